/* names-lines.c - allocations at known source lines, one of them in a
   helper that is always inlined, for the tests of file:line and inlined
   frames.  Each allocating line carries a marker comment the test looks
   for (LINE:name), so the expected line numbers come from this file.
   Sizes: 111 in lines_outer, 222 through lines_helper inlined into
   lines_outer, 444 in main; all kept. */
#include <stdio.h>
#include <stdlib.h>

void *lines_kept[4];

static inline __attribute__ ((always_inline)) void *
lines_helper (size_t n)
{
  return malloc (n);           /* LINE:helper-malloc */
}

__attribute__ ((noinline)) void
lines_outer (void)
{
  lines_kept[0] = malloc (111);        /* LINE:outer-malloc */
  lines_kept[1] = lines_helper (222);  /* LINE:outer-helper */
}

int
main (void)
{
  lines_outer ();              /* LINE:main-outer */
  lines_kept[2] = malloc (444);        /* LINE:main-malloc */
  puts ("done");
  return 0;
}
