/* threads-scaling.c - allocation throughput with 1 and with 2 threads:
   each thread makes ITERS malloc/free pairs of varied sizes through a
   few call chains of its own.  Prints the seconds of each run and the
   2-thread throughput as a fraction of twice the 1-thread one.
   usage: threads-scaling [ITERS]   (default 2000000) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long iters = 2000000;

__attribute__ ((noinline)) static void *
make (size_t n)
{
  return malloc (n);
}

__attribute__ ((noinline)) static void
churn (unsigned seed)
{
  void *keep[64] = { 0 };
  for (long i = 0; i < iters; i++)
    {
      seed = seed * 1103515245u + 12345u;
      unsigned k = (seed >> 16) % 64;
      free (keep[k]);
      keep[k] = (seed & 1) ? make (16 + (seed >> 24)) : malloc (48);
    }
  for (int k = 0; k < 64; k++)
    free (keep[k]);
}

static void *
worker (void *arg)
{
  churn ((unsigned) (unsigned long) arg);
  return NULL;
}

static double
run (int threads)
{
  struct timespec a, b;
  pthread_t t[2];
  clock_gettime (CLOCK_MONOTONIC, &a);
  for (int i = 0; i < threads; i++)
    pthread_create (&t[i], NULL, worker, (void *) (unsigned long) (i + 1));
  for (int i = 0; i < threads; i++)
    pthread_join (t[i], NULL);
  clock_gettime (CLOCK_MONOTONIC, &b);
  return (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_nsec - a.tv_nsec) / 1e9;
}

int
main (int argc, char **argv)
{
  if (argc > 1)
    iters = atol (argv[1]);
  double one = run (1), two = run (2);
  /* Throughput: pairs per second.  Two threads do twice the work. */
  printf ("1 thread: %.3f s\n2 threads: %.3f s\nscaling: %.2f\n", one, two,
          (2.0 * (double) iters / two) / (2.0 * (double) iters / one));
  return 0;
}
