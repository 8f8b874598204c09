/* pie-main.c - a position-independent executable that allocates, and
   calls a shared library that allocates too. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "report.h"

void lib_make (int n);
static void *volatile sink[4];

__attribute__ ((noinline)) static void
main_make (int n)
{
  for (int i = 0; i < n; i++)
    sink[i] = malloc (128);
}

int
main (void)
{
  lib_make (5);
  main_make (3);
  say ("done\n");
  return 0;
}
