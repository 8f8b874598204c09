/* thread-counts.c - 6 threads, each making 25 allocations of its own
   sizes and freeing all but one; no stdio.  For own-work.exp: the
   program's figures under the monitor equal valgrind memcheck's, and the
   monitor's own work (a stack's bounds per thread) allocates nothing. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define THREADS 6
#define BLOCKS 25

static void *kept[THREADS];

static void *
worker (void *arg)
{
  uintptr_t id = (uintptr_t) arg;
  void *b[BLOCKS];
  for (int i = 0; i < BLOCKS; i++)
    b[i] = malloc (16 + id * 100 + (size_t) i);
  for (int i = 1; i < BLOCKS; i++)
    free (b[i]);
  kept[id] = b[0];
  return NULL;
}

int
main (void)
{
  pthread_t t[THREADS];
  for (uintptr_t i = 0; i < THREADS; i++)
    if (pthread_create (&t[i], NULL, worker, (void *) i) != 0)
      return 1;
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  return kept[THREADS - 1] ? 0 : 1;
}
