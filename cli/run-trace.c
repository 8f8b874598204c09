/* run-trace.c - `run` as the program's tracer: it stops the program at
   its very end, whatever the cause, and reads its heap there. */
#define _GNU_SOURCE
#include "cli.h"

#include "heapinspect/leak-stop.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int
hi_run_trace (int pid)
{
  /* EXIT: the stop at the end of do_exit, after the exit handlers and
     also when a signal kills it (SIGKILL included, on kernels that stop
     there: checked by the testsuite).  EXEC: the stop of its exec, so
     the seize follows it into the program.  EXITKILL: the program is
     ours, part of this run; if we are killed (SIGKILL), it goes with
     us rather than run on untraced, its report lost. */
  if (ptrace (PTRACE_SEIZE, pid, NULL,
              (void *) (long) (PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC
                               | PTRACE_O_EXITKILL)) != 0)
    return errno ? errno : EPERM;
  return 0;
}

/* Read the heap of PID, held in its exit stop. */
static void
read_at_exit (int pid, struct hi_traced_end *end)
{
  struct hi_target t;
  end->seen_exit = 1;
  end->read = hi_target_open_stopped (pid, &t);
  if (end->read != HI_OK)
    return;
  end->read = hi_model_load (&t, &end->model);
  hi_target_close (&t);
}

/* 1 if PID's stop for signal SIGTRAP is the monitor's exit stop. */
static int
is_leak_stop (int pid)
{
  siginfo_t si;
  return ptrace (PTRACE_GETSIGINFO, pid, NULL, &si) == 0
         && si.si_code == SI_QUEUE && si.si_pid == pid
         && (unsigned long long) (uintptr_t) si.si_value.sival_ptr
            == HI_LEAK_STOP_VALUE;
}

/* The exit stop's pipe: closing our end lets a thread waiting at the
   monitor's exit stop go on. */
static void
release (struct hi_leak_run *leak)
{
  if (leak && leak->fd >= 0)
    {
      close (leak->fd);
      leak->fd = -1;
    }
}

/* Scan PID, held in a stop, for leaks: its model and the leak report,
   with every other thread stopped meanwhile (hi_target_open_stopped). */
static void
scan_live (int pid, struct hi_leak_run *leak, int at_handlers,
           struct hi_traced_end *end)
{
  struct hi_target t;
  struct hi_model *m = NULL;
  /* The monitor's side waits for this byte (then for the end of the
     pipe) before it would give up on us. */
  if (at_handlers && leak->fd >= 0)
    {
      /* The program may have closed its end: EPIPE then, not SIGPIPE. */
      struct sigaction ign, old;
      memset (&ign, 0, sizeof ign);
      ign.sa_handler = SIG_IGN;
      sigaction (SIGPIPE, &ign, &old);
      ssize_t n = write (leak->fd, "S", 1);
      sigaction (SIGPIPE, &old, NULL);
      if (n != 1)
        release (leak);
    }
  end->scanned = 1;
  end->at_exit_handlers = at_handlers;
  end->scan = hi_target_open_stopped (pid, &t);
  if (end->scan == HI_OK)
    {
      end->scan = hi_model_load (&t, &m);
      FILE *f = NULL;
      if (end->scan == HI_OK
          && !(f = open_memstream (&end->report, &end->report_len)))
        end->scan = HI_E_NOMEM;
      if (f)
        {
          unsigned missing = 0;
          end->scan = hi_reach_report (&t, m, NULL, leak->name, leak->opt,
                                       f, &end->totals, &missing);
          if (fclose (f) != 0 && end->scan == HI_OK)
            end->scan = HI_E_NOMEM;
        }
      hi_target_close (&t);
    }
  /* The model of this moment is the run's: the tables' read at the exit
     stop is not made again. */
  end->seen_exit = 1;
  end->read = end->scan;
  end->model = m;
  release (leak);
}

void
hi_run_wait_traced (int pid, struct hi_leak_run *leak,
                    struct hi_traced_end *end)
{
  memset (end, 0, sizeof *end);
  for (;;)
    {
      int st;
      if (waitpid (pid, &st, 0) < 0)
        {
          if (errno == EINTR)
            continue;
          end->status = 0;
          return;
        }
      if (WIFEXITED (st) || WIFSIGNALED (st))
        {
          end->status = st;
          release (leak);
          return;
        }
      if (!WIFSTOPPED (st))
        continue;
      int event = st >> 16, sig = WSTOPSIG (st);
      if (event == PTRACE_EVENT_EXIT)
        {
          /* No exit stop of the monitor came (_exit, a signal, or the
             main thread ended first): the leaks as the program ends. */
          if (leak && !end->scanned)
            scan_live (pid, leak, 0, end);
          release (leak);
          if (!end->seen_exit)
            read_at_exit (pid, end);
          /* It only has to die now: no more stops for it. */
          ptrace (PTRACE_DETACH, pid, NULL, NULL);
        }
      else if (event == PTRACE_EVENT_STOP)
        {
          /* A group stop (SIGSTOP, ^Z): stay stopped as without us. */
          if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN
              || sig == SIGTTOU)
            ptrace (PTRACE_LISTEN, pid, NULL, NULL);
          else
            ptrace (PTRACE_CONT, pid, NULL, NULL);
        }
      else if (event != 0)
        ptrace (PTRACE_CONT, pid, NULL, NULL);         /* its exec */
      else if (leak && sig == SIGTRAP && !end->scanned && is_leak_stop (pid))
        {
          /* The monitor's stop at the end of the exit handlers: the
             signal was only for us. */
          scan_live (pid, leak, 1, end);
          ptrace (PTRACE_CONT, pid, NULL, NULL);
        }
      else
        ptrace (PTRACE_CONT, pid, NULL, (void *) (long) sig);  /* a signal */
    }
}
