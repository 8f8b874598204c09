/* serve-target.c - a monitored process for heapinspect.serve: a known
   heap, then it waits.  serve_target_keep allocates ARGV[1] blocks of
   1000 bytes (default 7) and keeps them; serve_target_drop allocates 3
   blocks of 40 and frees them.  ARGV[2], if given: "chains" also keeps
   one block of 100 * (I + 1) bytes from each of 12 functions
   serve_target_leafI (more chains than /metrics shows), and two of 650
   from serve_target_deep 3 and 4 calls deep (two chains whose 3
   innermost frames are the same); "hostile" names
   the process (/proc/PID/comm) h"i\n<newline>x<0xff>y, to check how
   labels are escaped, and keeps 100 bytes from a function whose name
   is longer than a chain label may be.  Says "ready PID" and waits for its input to
   end. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "report.h"

void *volatile kept[1000];
void *volatile leaves[12];
void *volatile deep[2];

int __attribute__ ((noinline))
serve_target_deep (int depth, int slot)
{
  if (depth > 1)
    return serve_target_deep (depth - 1, slot) + 1;
  deep[slot] = malloc (650);
  return 0;
}

void __attribute__ ((noinline))
serve_target_keep (int n)
{
  for (int i = 0; i < n && i < 1000; i++)
    kept[i] = malloc (1000);
}

void __attribute__ ((noinline))
serve_target_drop (void)
{
  for (int i = 0; i < 3; i++)
    {
      void *volatile p = malloc (40);
      free (p);
    }
}

#define LEAF(i) \
  void __attribute__ ((noinline)) serve_target_leaf##i (void) \
  { leaves[i] = malloc (100 * (i + 1)); }
LEAF (0) LEAF (1) LEAF (2) LEAF (3) LEAF (4) LEAF (5)
LEAF (6) LEAF (7) LEAF (8) LEAF (9) LEAF (10) LEAF (11)

void __attribute__ ((noinline))
serve_target_long_abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij (void)
{
  leaves[0] = malloc (100);
}

int
main (int argc, char **argv)
{
  serve_target_keep (argc > 1 ? atoi (argv[1]) : 7);
  serve_target_drop ();
  if (argc > 2 && strcmp (argv[2], "chains") == 0)
    {
      serve_target_leaf0 (); serve_target_leaf1 (); serve_target_leaf2 ();
      serve_target_leaf3 (); serve_target_leaf4 (); serve_target_leaf5 ();
      serve_target_leaf6 (); serve_target_leaf7 (); serve_target_leaf8 ();
      serve_target_leaf9 (); serve_target_leaf10 (); serve_target_leaf11 ();
      serve_target_deep (3, 0);
      serve_target_deep (4, 1);
    }
  if (argc > 2 && strcmp (argv[2], "hostile") == 0)
    {
      prctl (PR_SET_NAME, "h\"i\\n\nx\xffy", 0, 0, 0);
      serve_target_long_abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij ();
    }
  say ("ready %ld\n", (long) getpid ());
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
