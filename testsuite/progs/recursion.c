/* recursion.c - mutual recursion F <-> G allocating at every depth. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "report.h"

static void *volatile sink;
static long bytes, blocks;

static void G (int n);

__attribute__ ((noinline)) static void
F (int n)
{
  sink = malloc (24);
  bytes += 24;
  blocks++;
  if (n > 0)
    G (n - 1);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
G (int n)
{
  sink = malloc (100);
  bytes += 100;
  blocks++;
  if (n > 0)
    F (n - 1);
  __asm__ volatile ("" ::: "memory");
}

int
main (void)
{
  F (6);
  F (3);
  G (4);
  say ("bytes: %ld\nblocks: %ld\n", bytes, blocks);
  return 0;
}
