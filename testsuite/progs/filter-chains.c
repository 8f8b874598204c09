/* filter-chains.c - allocations through known chains, for --focus,
   --ignore, --module and suppressions: each prints "chain PATH N SIZE
   FREED" (N blocks of SIZE bytes allocated through the functions PATH,
   outermost first, FREED of them freed); functions named lib_* are in
   the library libhifilter.so, the others in the program. */
#include <stdlib.h>
#include "report.h"

void lib_alloc (int n, size_t size);
void lib_call (void (*f) (void));

static void *kept[64];
static int n_kept;

__attribute__ ((noinline)) static void
work (int n, size_t size, int freed)
{
  void *p[16];
  for (int i = 0; i < n; i++)
    p[i] = malloc (size);
  for (int i = 0; i < n; i++)
    if (i < freed)
      free (p[i]);
    else
      kept[n_kept++] = p[i];
  __asm__ volatile ("");
}

__attribute__ ((noinline)) static void
alpha (void)
{
  work (3, 100, 0);
  say ("chain main>alpha>work 3 100 0\n");
}

__attribute__ ((noinline)) static void
beta (void)
{
  work (2, 200, 1);
  say ("chain main>beta>work 2 200 1\n");
  lib_alloc (4, 64);
  say ("chain main>beta>lib_alloc 4 64 0\n");
}

__attribute__ ((noinline)) static void
callback (void)
{
  work (5, 48, 2);
  say ("chain main>gamma_>lib_call>callback>work 5 48 2\n");
}

__attribute__ ((noinline)) static void
gamma_ (void)
{
  lib_call (callback);
  __asm__ volatile ("");
}

__attribute__ ((noinline)) static void
delta (void)
{
  work (1, 32, 1);
  say ("chain main>delta>work 1 32 1\n");
}

int
main (void)
{
  alpha ();
  beta ();
  gamma_ ();
  delta ();
  return 0;
}
