/* procinfo-wait.c - for procinfo.exp: a program whose run is timed by
   its own clocks.  It allocates, says "ready MONO REAL" (CLOCK_MONOTONIC
   and CLOCK_REALTIME, ns), waits for a line on standard input, says
   "woke MONO REAL", writes snapshot "procinfo.hip" (report.h's snap),
   says "snapped MONO REAL" and exits.  With PROCINFO_FORK set, it says
   "forking MONO REAL" after ready, forks a child that writes snapshot
   "child.hip" and exits, and says "forked PID MONO REAL" once the
   child has ended.  Its arguments are not used: they are the command
   line the test looks for. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include "report.h"

static void
say_clocks (const char *what)
{
  struct timespec mono, real;
  clock_gettime (CLOCK_MONOTONIC, &mono);
  clock_gettime (CLOCK_REALTIME, &real);
  say ("%s %llu %llu\n", what,
       (unsigned long long) mono.tv_sec * 1000000000u
       + (unsigned long long) mono.tv_nsec,
       (unsigned long long) real.tv_sec * 1000000000u
       + (unsigned long long) real.tv_nsec);
}

int
main (void)
{
  void *volatile keep = malloc (100);
  (void) keep;
  say_clocks ("ready");
  if (getenv ("PROCINFO_FORK"))
    {
      say_clocks ("forking");
      pid_t child = fork ();
      if (child < 0)
        return 1;
      if (child == 0)
        {
          snap ("child.hip");
          _exit (0);
        }
      int status;
      if (waitpid (child, &status, 0) != child || status != 0)
        return 1;
      char what[32];
      snprintf (what, sizeof what, "forked %d", (int) child);
      say_clocks (what);
    }
  char c;
  while (read (0, &c, 1) == 1 && c != '\n')
    ;
  say_clocks ("woke");
  snap ("procinfo.hip");
  say_clocks ("snapped");
  return 0;
}
