/* inlined.c - a monitored program for the gdb tests: an inlined frame
   between two real ones, an array of heap blocks, a stop before any
   allocation, and enough frames for a backtrace limit.
   Usage: inlined N   (N >= 1 items) */
#include <stdio.h>
#include <stdlib.h>

struct item
{
  long key;
  char name[24];
};

struct item *items;            /* `heap block &items[3]` */
char *blocks[8];               /* `heap block blocks[2] + 16` */

/* gdb stops here, called from the inlined function. */
__attribute__ ((noinline)) void
stop_here (int n)
{
  __asm__ volatile ("" : : "r" (n) : "memory");
}

static inline __attribute__ ((always_inline)) void
inlined_step (int n)
{
  stop_here (n + 1);
}

__attribute__ ((noinline)) void
outer (int n)
{
  inlined_step (n);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) void
deeper (int depth, int n)
{
  if (depth > 0)
    deeper (depth - 1, n);
  else
    outer (n);
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 8;
  if (n < 1)
    n = 1;
  stop_here (0);               /* before any allocation */
  items = malloc ((size_t) n * sizeof *items);
  for (int i = 0; i < 8; i++)
    blocks[i] = malloc (100 + (size_t) i);
  deeper (3, n);
  printf ("items: %d sizeof_item: %zu\n", n, sizeof *items);
  return 0;
}
