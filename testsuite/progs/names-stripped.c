/* names-stripped.c - three allocation call sites in one function, for
   the test of code without symbols: stripped, the function must still be
   one entry (module+0xSTART), not one per call site.  Sizes 100, 200 and
   300, all kept. */
#include <stdio.h>
#include <stdlib.h>

void *stripped_kept[3];

__attribute__ ((noinline)) void
stripped_allocs (void)
{
  stripped_kept[0] = malloc (100);
  stripped_kept[1] = malloc (200);
  stripped_kept[2] = malloc (300);
}

int
main (void)
{
  stripped_allocs ();
  puts ("done");
  return 0;
}
