/* snapshot-race.c - THREADS threads each write ROUNDS snapshots to the
   same path at once (heapinspect_snapshot), allocating between them;
   prints how many calls failed.  snapshot-race.exp checks none did and
   the file left is whole. */
#define _GNU_SOURCE
#include <heapinspect/heapinspect.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define ROUNDS 100

static const char *path;
static _Atomic int failed;
static pthread_barrier_t start;

static void *
writer (void *arg)
{
  (void) arg;
  pthread_barrier_wait (&start);
  for (int i = 0; i < ROUNDS; i++)
    {
      free (malloc (64));
      if (heapinspect_snapshot (path) != 0)
        atomic_fetch_add (&failed, 1);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  path = argv[1];
  pthread_t t[THREADS];
  pthread_barrier_init (&start, NULL, THREADS);
  for (int i = 0; i < THREADS; i++)
    pthread_create (&t[i], NULL, writer, NULL);
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  printf ("failed %d of %d\n", atomic_load (&failed), THREADS * ROUNDS);
  return 0;
}
