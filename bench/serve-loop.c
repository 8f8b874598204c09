/* serve-loop.c - for bench/serve: a monitored process served by
   `heapinspect serve`.  It keeps a small heap (12 blocks from 3
   functions), says "ready", then for each line N on standard input runs
   N rounds of an allocation loop (malloc and free of 8 sizes from 2
   functions) and answers with the loop's wall and CPU seconds; it ends
   with its input.  Idle, it is one of many processes a scrape reads; fed, it is
   the process whose slowdown under scraping is measured. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void *volatile keep[12];

void __attribute__ ((noinline))
keep_small (int i)
{
  keep[i] = malloc (64);
}

void __attribute__ ((noinline))
keep_large (int i)
{
  keep[i] = malloc (4096);
}

void __attribute__ ((noinline))
churn_a (size_t size)
{
  void *volatile p = malloc (size);
  free (p);
}

void __attribute__ ((noinline))
churn_b (size_t size)
{
  void *volatile p = malloc (size);
  free (p);
}

static double
now (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int
main (void)
{
  for (int i = 0; i < 12; i++)
    if (i % 3)
      keep_small (i);
    else
      keep_large (i);
  printf ("ready\n");
  fflush (stdout);
  char line[64];
  while (fgets (line, sizeof line, stdin))
    {
      long n = strtol (line, NULL, 10);
      double t0 = now (CLOCK_MONOTONIC);
      double c0 = now (CLOCK_PROCESS_CPUTIME_ID);
      for (long i = 0; i < n; i++)
        {
          churn_a (16 + (size_t) (i % 8) * 24);
          churn_b (200 + (size_t) (i % 8) * 100);
        }
      double t1 = now (CLOCK_MONOTONIC);
      printf ("%.6f %.6f\n", t1 - t0, now (CLOCK_PROCESS_CPUTIME_ID) - c0);
      fflush (stdout);
    }
  return 0;
}
