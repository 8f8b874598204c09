/* signals.c - the monitor's signal handlers, for signals.exp.
     signals wait   allocate 10 x 40 bytes, free 3, say "ready", then wait
                    for signals forever (the test kills it);
     signals own    the same with its own SIGTERM handler, which ends the
                    program normally (exit 0) after saying "own handler";
     signals errno  raise SIGUSR2 (the snapshot signal) with errno set and
                    check the handler left errno alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report.h"

static volatile sig_atomic_t got_term;

static void
own_term (int sig)
{
  (void) sig;
  got_term = 1;
}

static void *blocks[10];

static void
allocate (void)
{
  for (int i = 0; i < 10; i++)
    blocks[i] = malloc (40);
  for (int i = 0; i < 3; i++)
    free (blocks[i]);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  if (strcmp (argv[1], "errno") == 0)
    {
      int ok = 1;
      static const int values[] = { 0, EDOM, ERANGE };
      for (int i = 0; i < 3; i++)
        {
          errno = values[i];
          raise (SIGUSR2);
          ok &= errno == values[i];
        }
      say ("%s: errno kept across the snapshot signal\n",
           ok ? "ok" : "FAILED");
      return 0;
    }
  sigset_t block, old;
  sigemptyset (&block);
  sigaddset (&block, SIGTERM);
  if (strcmp (argv[1], "own") == 0)
    {
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = own_term;
      sigemptyset (&sa.sa_mask);
      sigaction (SIGTERM, &sa, NULL);
      sigprocmask (SIG_BLOCK, &block, &old);
    }
  else if (strcmp (argv[1], "wait") != 0)
    return 2;
  allocate ();
  say ("ready\n");
  if (strcmp (argv[1], "own") == 0)
    {
      while (!got_term)
        sigsuspend (&old);
      say ("own handler\n");
      return 0;
    }
  for (;;)
    pause ();
}
