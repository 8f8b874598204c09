/* run-trace.c - `run` as the program's tracer: it stops the program at
   its very end, whatever the cause, and reads its heap there. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int
hi_run_trace (int pid)
{
  /* EXIT: the stop at the end of do_exit, after the exit handlers and
     also when a signal kills it (SIGKILL included, on kernels that stop
     there: checked by the testsuite).  EXEC: the stop of its exec, so
     the seize follows it into the program. */
  if (ptrace (PTRACE_SEIZE, pid, NULL,
              (void *) (long) (PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC)) != 0)
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

void
hi_run_wait_traced (int pid, struct hi_traced_end *end)
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
          return;
        }
      if (!WIFSTOPPED (st))
        continue;
      int event = st >> 16, sig = WSTOPSIG (st);
      if (event == PTRACE_EVENT_EXIT)
        {
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
      else
        ptrace (PTRACE_CONT, pid, NULL, (void *) (long) sig);  /* a signal */
    }
}
