/* chain-cache.c - chains the monitor's chain cache must tell apart: one
   call site reached at the same stack depth through other callers (the
   same starting frame, other return addresses further out), more such
   chains than the cache keeps for one starting frame, frames whose CFA
   is computed from rbp (alloca) at several stack depths, and recursion
   of several depths, all interleaved.  Prints the number of distinct
   chains and of allocations. */
#define _GNU_SOURCE
#include <alloca.h>
#include <stdlib.h>
#include "report.h"

static void *volatile sink;
static volatile int opaque = 1;
static long blocks;

#define NOINLINE __attribute__ ((noinline))

NOINLINE static void
leaf (size_t n)
{
  sink = malloc (n);
  free (sink);
  blocks++;
  __asm__ volatile ("" ::: "memory");
}

/* Two callers and two callers of those, with frames of one size: the
   four chains start from the same frame of leaf, at the same depth. */
NOINLINE static void
via_a (void)
{
  volatile char pad[24];
  pad[0] = 1;
  leaf (16 + pad[0] * opaque);
  __asm__ volatile ("" ::: "memory");
}

NOINLINE static void
via_b (void)
{
  volatile char pad[24];
  pad[0] = 2;
  leaf (16 + pad[0] * opaque);
  __asm__ volatile ("" ::: "memory");
}

NOINLINE static void
top_1 (int b)
{
  volatile char pad[40];
  pad[0] = (char) b;
  if (pad[0])
    via_b ();
  else
    via_a ();
  __asm__ volatile ("" ::: "memory");
}

NOINLINE static void
top_2 (int b)
{
  volatile char pad[40];
  pad[1] = (char) b;
  if (pad[1])
    via_b ();
  else
    via_a ();
  __asm__ volatile ("" ::: "memory");
}

/* A frame of variable size: its CFA comes from rbp. */
NOINLINE static void
with_alloca (int k)
{
  char *p = alloca ((size_t) k * opaque);
  p[0] = 0;
  __asm__ volatile ("" : : "r" (p) : "memory");
  via_a ();
  __asm__ volatile ("" ::: "memory");
}

NOINLINE static void
rec (int d)
{
  if (d == 0)
    leaf (48);
  else
    rec (d - 1);
  __asm__ volatile ("" ::: "memory");
}

int
main (void)
{
  /* One call site of each in main, so that each path is one chain. */
  for (int i = 0; i < 3000; i++)
    {
      top_1 ((i >> 1) & 1);
      top_2 (((i >> 2) ^ i) & 1);
      with_alloca (16 + 32 * (i % 3));
      rec (i % 5);
    }
  /* top_1 and top_2 each through via_a and via_b; with_alloca through
     via_a; rec at depths 0 to 4. */
  say ("chains: %d\nallocations: %ld\n", 4 + 1 + 5, blocks);
  return 0;
}
