/* leak-rows.c - chains whose leak rows merge: leaf () allocates at two
   call sites, one whose blocks are all freed and one that keeps some;
   it is called from mid_x () and mid_y ().  only_freed () frees all it
   allocates.  Each call's counts are printed as "chain SITE N SIZE
   FREED": N blocks of SIZE bytes from SITE, FREED of them freed. */
#include <stdlib.h>
#include "report.h"

static void *volatile sink;

__attribute__ ((noinline)) static void
leaf (const char *caller, int freed_n, int kept_n, int kept_freed)
{
  for (int i = 0; i < freed_n; i++)
    {
      sink = malloc (32);                    /* site A */
      free (sink);
    }
  void *keep[16];
  for (int i = 0; i < kept_n; i++)
    keep[i] = malloc (64);                   /* site B */
  for (int i = 0; i < kept_freed; i++)
    free (keep[i]);
  say ("chain main>%s>leaf A %d 32 %d\n", caller, freed_n, freed_n);
  say ("chain main>%s>leaf B %d 64 %d\n", caller, kept_n, kept_freed);
}

__attribute__ ((noinline)) static void
mid_x (void)
{
  leaf ("mid_x", 5, 3, 1);
}

__attribute__ ((noinline)) static void
mid_y (void)
{
  leaf ("mid_y", 2, 4, 0);
}

__attribute__ ((noinline)) static void
only_freed (void)
{
  for (int i = 0; i < 6; i++)
    {
      sink = malloc (16);
      free (sink);
    }
  say ("chain main>only_freed - 6 16 6\n");
}

int
main (void)
{
  mid_x ();
  mid_y ();
  only_freed ();
  return 0;
}
