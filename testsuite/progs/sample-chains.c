/* sample-chains.c - call chains whose shapes the profile formats must
   keep: a function inlined at a call site (one location, two frames), a
   recursion through one call site (the same location four times), a
   chain whose blocks are all freed (no in-use figures), and, with
   HEAPINSPECT_DEPTH, chains cut at the depth cap.
   Usage: sample-chains N   (N >= 1: blocks per chain) */
#include <stdlib.h>

static void *keep[4096];
static int kept;

__attribute__ ((noinline)) void *
leaf_alloc (size_t size)
{
  void *p = malloc (size);
  __asm__ volatile ("" : : "r" (p) : "memory");
  return p;
}

static inline __attribute__ ((always_inline)) void
inl_step (size_t size)
{
  keep[kept++ % 4096] = leaf_alloc (size);
}

__attribute__ ((noinline)) void
outer_a (size_t size)
{
  inl_step (size);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) void
rec (int depth, size_t size)
{
  if (depth > 1)
    rec (depth - 1, size);
  else
    keep[kept++ % 4096] = leaf_alloc (size);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) void
churn (size_t size)
{
  free (leaf_alloc (size));
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 3;
  for (int i = 0; i < n; i++)
    {
      outer_a (100);
      rec (4, 50);
      churn (30);
    }
  return 0;
}
