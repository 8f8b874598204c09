/* serve-target.c - a monitored process for heapinspect.serve: a known
   heap, then it waits.  serve_target_keep allocates ARGV[1] blocks of
   1000 bytes (default 7) and keeps them, serve_target_drop allocates 3
   blocks of 40 and frees them; with ARGV[2], the process's name
   (/proc/PID/comm) becomes it, to check how labels are escaped.  Says
   "ready PID" and waits for its input to end. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "report.h"

void *volatile kept[1000];

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

int
main (int argc, char **argv)
{
  serve_target_keep (argc > 1 ? atoi (argv[1]) : 7);
  serve_target_drop ();
  if (argc > 2)
    prctl (PR_SET_NAME, argv[2], 0, 0, 0);
  say ("ready %ld\n", (long) getpid ());
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
