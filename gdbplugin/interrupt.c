/* interrupt.c - Ctrl-C while the plugin works.

   gdb's SIGINT handler only sets gdb's quit flag: gdb then stops the
   command at its next check, which comes after the plugin has returned,
   seconds later on a large heap.  And a check inside a gdb function the
   plugin calls (target_read over gdbserver) would unwind gdb's C++
   exception through the plugin's frames.  So while the plugin works,
   SIGINT is blocked in gdb's thread (gdb's own threads block it too),
   and the plugin looks for a pending one as it reads the inferior, and
   the reader's reachability scan asks it in its long loops: once one is
   there, every read fails and the scan stops.  When the plugin returns
   it unblocks SIGINT: gdb's handler runs then, and gdb stops the
   command with "Quit" before printing the answer, as it does for any
   command on Ctrl-C. */
#define _GNU_SOURCE
#include "plugin.h"

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* Looking costs a system call: at most once per this many milliseconds,
   the clock read (in the vDSO, no system call) once per EVERY reads. */
#define EVERY 16u
#define MS 20

static sigset_t saved;
static int holding, seen;
static unsigned calls;
static int64_t last_ms;

static int poll_sigint (void);

static int64_t
now_ms (void)
{
  struct timespec ts;
  if (clock_gettime (CLOCK_MONOTONIC_COARSE, &ts) != 0)
    return 0;
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
hi_gdb_interrupt_begin (void)
{
  sigset_t s;
  sigemptyset (&s);
  sigaddset (&s, SIGINT);
  holding = pthread_sigmask (SIG_BLOCK, &s, &saved) == 0;
  seen = 0;
  calls = 0;
  last_ms = now_ms ();
  /* The reachability scan's long loops, which read little, ask too. */
  hi_reach_set_interrupt (poll_sigint);
}

/* Whether SIGINT is pending, asked at most every MS milliseconds. */
static int
poll_sigint (void)
{
  if (seen || !holding)
    return seen;
  int64_t now = now_ms ();
  if (now - last_ms < MS)
    return 0;
  last_ms = now;
  sigset_t pending;
  seen = sigpending (&pending) == 0 && sigismember (&pending, SIGINT) == 1;
  return seen;
}

int
hi_gdb_interrupted (void)
{
  if (seen || !holding || ++calls % EVERY != 0)
    return seen;
  return poll_sigint ();
}

int
hi_gdb_interrupt_pending (void)
{
  sigset_t pending;
  return seen || (holding && sigpending (&pending) == 0
                  && sigismember (&pending, SIGINT) == 1);
}

void
hi_gdb_interrupt_end (void)
{
  hi_reach_set_interrupt (NULL);
  if (holding)
    pthread_sigmask (SIG_SETMASK, &saved, NULL);
  holding = 0;
}
