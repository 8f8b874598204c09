/* client-threads.c - the client API from several threads at once: typed
   blocks (HI_MALLOC, heapinspect_set_type) and blocks of one shared pool
   and of one pool per thread.  Prints what it did, for the test. */
#define _GNU_SOURCE
#include <heapinspect/heapinspect.h>
#include <heapinspect/typed.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define ROUNDS 5000

struct item { long a, b, c; };

static char shared_pool;                /* its address names the pool */
static char arena[THREADS][ROUNDS * 16];
static char thread_pools[THREADS];

static void *
work (void *arg)
{
  long t = (long) arg;
  heapinspect_pool_create (&thread_pools[t], "per-thread");
  for (int i = 0; i < ROUNDS; i++)
    {
      struct item *it = HI_MALLOC (struct item);
      char *buf = malloc (24);
      heapinspect_set_type (buf, "buffer");
      heapinspect_alloc (&shared_pool, &arena[t][i * 16], 16);
      heapinspect_alloc (&thread_pools[t], &arena[t][i * 16 + 8], 8);
      if (i % 2)
        {
          free (it);
          heapinspect_free (&shared_pool, &arena[t][i * 16]);
        }
      (void) buf;
    }
  heapinspect_pool_reset (&thread_pools[t]);
  return NULL;
}

int
main (void)
{
  heapinspect_pool_create (&shared_pool, "shared");
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; t++)
    pthread_create (&th[t], NULL, work, (void *) t);
  for (int t = 0; t < THREADS; t++)
    pthread_join (th[t], NULL);
  unsigned long n = (unsigned long) THREADS * ROUNDS;
  printf ("expect struct item %lu %lu %lu %lu\n", n, n * sizeof (struct item),
          n / 2, n / 2 * sizeof (struct item));
  printf ("expect buffer %lu %lu %lu %lu\n", n, n * 24, n, n * 24);
  printf ("pools %d allocations %lu frees %lu live_bytes %lu\n",
          THREADS + 1, 2 * n, n / 2 + n, n / 2 * 16);
  return 0;
}
