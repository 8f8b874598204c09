/* recurse.c - allocations at the bottom of a recursion deeper than the
   depth cap. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "report.h"

static void *volatile sink;

__attribute__ ((noinline)) static void
dive (int depth, int allocs)
{
  if (depth == 0)
    {
      for (int i = 0; i < allocs; i++)
        free (sink), sink = malloc (24);
      return;
    }
  dive (depth - 1, allocs);
  __asm__ volatile ("" ::: "memory");   /* no tail call */
}

int
main (int argc, char **argv)
{
  int depth = argc > 1 ? atoi (argv[1]) : 300;
  snap ("recurse-before.hip");
  dive (depth, 5);
  free (sink);
  snap ("recurse-after.hip");
  say ("depth %d\n", depth);
  return 0;
}
