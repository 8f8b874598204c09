/* small-stacks.c - threads with 32 KiB stacks, one after another, each
   allocating through two chains: the monitor's per-thread state must fit
   beside glibc's thread-local storage in such a stack, and a thread's
   chain cache, handed on when it exits, must serve the next one. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include "report.h"

#define THREADS 20
#define ROUNDS 100

static void *volatile sink;

__attribute__ ((noinline)) static void
alloc_a (void)
{
  sink = malloc (24);
  free (sink);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
alloc_b (void)
{
  sink = malloc (40);
  free (sink);
  __asm__ volatile ("" ::: "memory");
}

static void *
work (void *arg)
{
  for (int i = 0; i < ROUNDS / 2; i++)
    {
      alloc_a ();
      alloc_b ();
    }
  return arg;
}

int
main (void)
{
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  if (pthread_attr_setstacksize (&attr, 32768) != 0)
    return 2;
  int made = 0;
  for (int i = 0; i < THREADS; i++)
    {
      pthread_t t;
      int err = pthread_create (&t, &attr, work, NULL);
      if (err != 0)
        {
          say ("pthread_create: error %d\n", err);
          return 1;
        }
      pthread_join (t, NULL);
      made++;
    }
  say ("threads: %d\nallocations: %d\n", made, made * ROUNDS);
  return 0;
}
