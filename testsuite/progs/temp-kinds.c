/* temp-kinds.c - the kinds of temporary allocation heaptrack counts and
   the monitor's temporary table does or does not, every block from
   make_block (temporary-heaptrack.exp):
     plain    N blocks allocated and freed at once: both count them;
     realloc  M blocks reallocated right after their allocation:
              heaptrack counts the realloc's free, the monitor does not
              (a realloc is no temporary: the block lives on);
     twins    K pairs allocated from one call with one size, the first
              freed right after the second: heaptrack matches the free
              to the last allocation by size and chain and counts it,
              the monitor matches the block and does not.
   Nothing else is a temporary of make_block's.  It says N, M and K on
   standard output with write(2) alone (no stdio buffer in the heap). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 100, M = 30, K = 20 };

static void *volatile sink;
static volatile int two = 2;    /* keeps the twins' loop one call */

__attribute__ ((noinline)) static void *
make_block (size_t size)
{
  void *p = malloc (size);
  if (!p)
    exit (1);
  memset (p, 1, size);
  return p;
}

__attribute__ ((noinline)) static void *
other_block (size_t size)
{
  void *p = malloc (size);
  if (!p)
    exit (1);
  sink = p;
  return p;
}

int
main (void)
{
  static void *kept[M];
  for (int i = 0; i < N; i++)
    {
      void *p = make_block (64);
      sink = p;
      free (p);
    }
  for (int i = 0; i < M; i++)
    {
      void *p = realloc (make_block (32), 200);
      if (!p)
        return 1;
      kept[i] = p;
    }
  for (int i = 0; i < M; i++)
    {
      void *x = other_block (16);
      free (kept[i]);
      free (x);
    }
  for (int i = 0; i < K; i++)
    {
      void *pair[2];
      for (int j = 0; j < two; j++)
        pair[j] = make_block (48);
      free (pair[0]);
      void *x = other_block (8);
      free (pair[1]);
      free (x);
    }
  char line[64];
  int len = snprintf (line, sizeof line, "N: %d\nM: %d\nK: %d\n", N, M, K);
  return write (STDOUT_FILENO, line, (size_t) len) == len ? 0 : 1;
}
