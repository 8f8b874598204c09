/* threads.c - 8 threads x 200000 random allocations and frees through a
   shared slot array, so most frees happen in another thread than the
   allocation.  Snapshots before and after the work bracket it exactly. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include "report.h"

#define THREADS 8
#define OPS 200000
#define SLOTS 4096

static _Atomic (void *) slots[SLOTS];
static _Atomic uint64_t n_alloc, n_free, n_bytes;
static pthread_barrier_t start, done;

static void *
worker (void *arg)
{
  uint64_t s = (uintptr_t) arg * 0x9e3779b97f4a7c15u + 1;
  uint64_t allocs = 0, frees = 0, bytes = 0;
  pthread_barrier_wait (&start);
  for (int i = 0; i < OPS; i++)
    {
      s = s * 6364136223846793005u + 1442695040888963407u;
      size_t size = (s >> 33) % 3000;
      unsigned slot = (unsigned) (s >> 20) % SLOTS;
      void *p = malloc (size);
      allocs++;
      bytes += size;
      p = atomic_exchange (&slots[slot], p);
      if (p)
        {
          free (p);
          frees++;
        }
    }
  n_alloc += allocs;
  n_free += frees;
  n_bytes += bytes;
  pthread_barrier_wait (&done);
  return NULL;
}

int
main (void)
{
  pthread_t t[THREADS];
  pthread_barrier_init (&start, NULL, THREADS + 1);
  pthread_barrier_init (&done, NULL, THREADS + 1);
  for (uintptr_t i = 0; i < THREADS; i++)
    pthread_create (&t[i], NULL, worker, (void *) i);
  snap ("threads-before.hip");
  pthread_barrier_wait (&start);
  pthread_barrier_wait (&done);
  for (int i = 0; i < SLOTS; i++)
    {
      void *p = atomic_exchange (&slots[i], NULL);
      if (p)
        {
          free (p);
          n_free++;
        }
    }
  snap ("threads-after.hip");
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  say ("allocations: %llu\nfrees: %llu\nbytes: %llu\n",
       (unsigned long long) n_alloc, (unsigned long long) n_free,
       (unsigned long long) n_bytes);
  return 0;
}
