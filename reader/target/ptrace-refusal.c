/* ptrace-refusal.c - why ptrace of a process was refused, in one line
   saying what to do: the reader's process target and the CLI's
   injector (attach) say the same. */
#define _GNU_SOURCE
#include "hi-reader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* From /proc/PID/status: its tracer's pid and its real uid (-1 if not
   found). */
static void
status_of (int pid, int *tracer, long *uid)
{
  char path[64], line[256];
  *tracer = 0;
  *uid = -1;
  snprintf (path, sizeof path, "/proc/%d/status", pid);
  FILE *f = fopen (path, "re");
  if (!f)
    return;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "TracerPid: %d", tracer) != 1)
      sscanf (line, "Uid: %ld", uid);
  fclose (f);
}

static int
yama_scope (void)
{
  int scope = -1;
  FILE *f = fopen ("/proc/sys/kernel/yama/ptrace_scope", "re");
  if (f && fscanf (f, "%d", &scope) != 1)
    scope = -1;
  if (f)
    fclose (f);
  return scope;
}

void
hi_ptrace_refusal (int pid, int err, char *why, size_t size)
{
  int tracer;
  long uid;
  status_of (pid, &tracer, &uid);
  int scope = yama_scope ();
  if (err == ESRCH || (err == ENOENT && uid < 0))
    snprintf (why, size, "no such process");
  else if (tracer && tracer != getpid ())
    snprintf (why, size, "traced by process %d already (a debugger): "
              "detach it first", tracer);
  else if ((err == EPERM || err == EACCES) && geteuid () != 0 && uid >= 0
           && uid != (long) geteuid ())
    snprintf (why, size, "user %ld's process: run as that user or as root",
              uid);
  else if ((err == EPERM || err == EACCES) && scope == 3)
    snprintf (why, size, "ptrace is disabled on this machine "
              "(/proc/sys/kernel/yama/ptrace_scope is 3)");
  else if ((err == EPERM || err == EACCES) && scope > 0)
    snprintf (why, size, "ptrace is not permitted: "
              "/proc/sys/kernel/yama/ptrace_scope is %d (run as root, or "
              "set it to 0)", scope);
  else
    snprintf (why, size, "cannot trace it: %s", strerror (err));
}
