/* inject.c - calls of functions in a running process, with ptrace, as
   gdb's `call` makes them: every thread stopped (PTRACE_SEIZE and
   PTRACE_INTERRUPT), one thread's registers saved, set to call FN with
   its arguments and a return address of 0, resumed alone until the
   return faults at 0, then its registers restored; the threads let go
   at the end, each as it was.  A thread stopped in a system call
   restarts it afterwards (orig_rax is -1 during the call, and the saved
   registers bring the restart back).  A signal that stops a thread
   while it is being stopped is delivered to it there and then (the
   thread runs its handler, and is stopped again).  During a call the
   calling thread blocks every signal it can (PTRACE_SETSIGMASK) but
   the ones a fault raises: one sent meanwhile stays pending in the
   kernel, with all it says (a real-time signal's value, its sender),
   and comes when the thread's own mask is back.  One that still stops
   the calling thread during a call is kept, in order, and sent again
   when the thread is let go. */
#define _GNU_SOURCE
#include "inject.h"
#include "hi-reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096
/* Signals that reach the calling thread while it runs a call in spite
   of its mask (another's SIGSEGV sent with kill, say; or every signal,
   where PTRACE_SETSIGMASK is refused) are dequeued by the kernel at its
   signal-delivery stop; they are kept and sent again at the end, in
   order, as their numbers alone.  Real-time signals queue: keep room
   for many (a sender at 1 kHz during a long attach). */
#define MAX_KEPT 8192

/* The signals kept for the calling thread, in the order they came. */
struct kept
{
  int sigs[MAX_KEPT];
  int n;
};

struct hi_inject
{
  int pid;
  int mem;                    /* /proc/PID/mem, for the call's data */
  int tids[MAX_THREADS];
  int n;
  int caller;                 /* the thread made to call */
  struct kept kept;           /* for it, when let go */
};

static void
say (char *why, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (why, size, fmt, ap);
  va_end (ap);
}

static int
seized (const struct hi_inject *ij, int tid)
{
  for (int i = 0; i < ij->n; i++)
    if (ij->tids[i] == tid)
      return 1;
  return 0;
}

/* Why PTRACE_SEIZE of PID failed (ERR), in a line saying what to do. */
static void
refused (int pid, int err, char *why, size_t size)
{
  char r[200];
  hi_ptrace_refusal (pid, err, r, sizeof r);
  say (why, size, "process %d: %s", pid, r);
}

static void
keep (struct kept *k, int sig)
{
  if (k->n < MAX_KEPT)
    k->sigs[k->n++] = sig;
}

/* The signals a fault raises (forced on a thread that blocks them, with
   its handler reset to the default), and the two no mask holds: the
   ones a call leaves unblocked. */
static uint64_t
unblockable (void)
{
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP,
                              SIGSYS, SIGKILL, SIGSTOP };
  uint64_t m = 0;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    m |= (uint64_t) 1 << (sigs[i] - 1);
  return m;
}

/* Thread TID's registers and signal mask back as SAVED and MASK (if
   HAVE_MASK) after a call. */
static int
restore (int tid, const struct user_regs_struct *saved, uint64_t mask,
         int have_mask)
{
  int r = ptrace (PTRACE_SETREGS, tid, 0, saved);
  if (have_mask
      && ptrace (PTRACE_SETSIGMASK, tid, sizeof mask, &mask) != 0)
    r = -1;
  return r;
}

/* Wait for thread TID's stop after PTRACE_INTERRUPT: 0, or -1 if it is
   gone.  A signal that stops it first is kept in K, or if K is NULL
   delivered now (its handler runs before the thread stops again). */
static int
wait_stop (int tid, struct kept *k)
{
  for (;;)
    {
      int status;
      if (waitpid (tid, &status, __WALL) != tid)
        return -1;
      if (WIFEXITED (status) || WIFSIGNALED (status))
        return -1;
      if (!WIFSTOPPED (status))
        continue;
      int s = WSTOPSIG (status);
      if (status >> 16 == PTRACE_EVENT_STOP)
        return 0;               /* the interrupt's stop (or group-stop) */
      /* A signal delivery stop (the signal dequeued): keep it or
         deliver it, and stop again. */
      int deliver = s;
      if (k)
        {
          keep (k, s);
          deliver = 0;
        }
      if (ptrace (PTRACE_CONT, tid, 0, deliver) != 0
          || ptrace (PTRACE_INTERRUPT, tid, 0, 0) != 0)
        return -1;
    }
}

int
hi_inject_open (int pid, struct hi_inject **out, char *why, size_t size)
{
  struct hi_inject *ij = calloc (1, sizeof *ij);
  if (!ij)
    {
      say (why, size, "out of memory");
      return -1;
    }
  ij->pid = pid;
  ij->caller = pid;
  ij->mem = -1;
  /* Seize every thread, again until a pass finds none new (threads
     made meanwhile). */
  for (int found = 1; found;)
    {
      found = 0;
      char path[64];
      snprintf (path, sizeof path, "/proc/%d/task", pid);
      DIR *d = opendir (path);
      if (!d)
        {
          refused (pid, errno == ENOENT ? ESRCH : errno, why, size);
          hi_inject_close (ij);
          return -1;
        }
      struct dirent *e;
      while ((e = readdir (d)) != NULL)
        {
          int tid = atoi (e->d_name);
          if (tid <= 0 || seized (ij, tid))
            continue;
          if (ij->n == MAX_THREADS)
            break;
          if (ptrace (PTRACE_SEIZE, tid, 0, 0) != 0)
            {
              if (errno == ESRCH)
                continue;       /* it ended */
              int err = errno;
              closedir (d);
              refused (pid, err, why, size);
              hi_inject_close (ij);
              return -1;
            }
          ij->tids[ij->n++] = tid;
          found = 1;
          if (ptrace (PTRACE_INTERRUPT, tid, 0, 0) != 0
              || wait_stop (tid, NULL) != 0)
            ij->n--;            /* it ended meanwhile */
        }
      closedir (d);
    }
  if (ij->n == 0)
    {
      say (why, size, "no process %d", pid);
      hi_inject_close (ij);
      return -1;
    }
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/mem", pid);
  ij->mem = open (path, O_RDWR | O_CLOEXEC);
  if (ij->mem < 0)
    {
      say (why, size, "cannot write the memory of process %d: %s", pid,
           strerror (errno));
      hi_inject_close (ij);
      return -1;
    }
  *out = ij;
  return 0;
}

int
hi_inject_resume_briefly (struct hi_inject *ij, int ms)
{
  for (int i = 0; i < ij->n; i++)
    ptrace (PTRACE_CONT, ij->tids[i], 0, 0);
  struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000 };
  nanosleep (&ts, NULL);
  int alive = 0;
  for (int i = 0; i < ij->n; i++)
    {
      if (ptrace (PTRACE_INTERRUPT, ij->tids[i], 0, 0) == 0
          && wait_stop (ij->tids[i], NULL) == 0)
        ij->tids[alive++] = ij->tids[i];
    }
  ij->n = alive;
  return alive > 0 ? 0 : -1;
}

int
hi_inject_call (struct hi_inject *ij, uint64_t fn, const char *text,
                uint64_t arg2, int timeout_ms, uint64_t *ret, char *why,
                size_t size)
{
  int tid = ij->pid;            /* the main thread */
  if (!seized (ij, tid))
    tid = ij->tids[0];
  ij->caller = tid;
  struct user_regs_struct saved, r;
  if (ptrace (PTRACE_GETREGS, tid, 0, &saved) != 0)
    {
      say (why, size, "cannot read thread %d's registers: %s", tid,
           strerror (errno));
      return -1;
    }
  /* The thread's mask as it will be after the system call it may be
     stopped in (sigsuspend's or ppoll's temporary one is set again as
     it restarts); every signal but a fault's held during the call. */
  uint64_t mask = 0, held = ~unblockable ();
  int have_mask = ptrace (PTRACE_GETSIGMASK, tid, sizeof mask, &mask) == 0;
  r = saved;
  /* Below the red zone: the text, then the return address 0, the stack
     aligned as at a call. */
  uint64_t sp = saved.rsp - 512;
  uint64_t arg1 = 0;
  if (text)
    {
      size_t len = strlen (text) + 1;
      sp = (sp - len) & ~(uint64_t) 15;
      if (pwrite (ij->mem, text, len, (off_t) sp) != (ssize_t) len)
        {
          say (why, size, "cannot write into process %d: %s", ij->pid,
               strerror (errno));
          return -1;
        }
      arg1 = sp;
    }
  sp = (sp & ~(uint64_t) 15) - 8;
  uint64_t zero = 0;
  if (pwrite (ij->mem, &zero, 8, (off_t) sp) != 8)
    {
      say (why, size, "cannot write into process %d: %s", ij->pid,
           strerror (errno));
      return -1;
    }
  r.rsp = sp;
  r.rip = fn;
  r.rdi = arg1;
  r.rsi = arg2;
  r.rax = 0;
  r.orig_rax = (uint64_t) -1;   /* no system call to restart now */
  if ((have_mask
       && ptrace (PTRACE_SETSIGMASK, tid, sizeof held, &held) != 0)
      || ptrace (PTRACE_SETREGS, tid, 0, &r) != 0
      || ptrace (PTRACE_CONT, tid, 0, 0) != 0)
    {
      say (why, size, "cannot make thread %d call: %s", tid,
           strerror (errno));
      restore (tid, &saved, mask, have_mask);
      return -1;
    }
  /* Until the return to 0 faults; other signals are kept for later. */
  int status, done = 0, waited = 0;
  while (!done)
    {
      pid_t w = waitpid (tid, &status, __WALL | WNOHANG);
      if (w == 0)
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
          if (++waited > timeout_ms)
            {
              say (why, size, "the call in process %d did not return in "
                   "%d ms (a lock its stopped threads hold?)", ij->pid,
                   timeout_ms);
              ptrace (PTRACE_INTERRUPT, tid, 0, 0);
              wait_stop (tid, &ij->kept);
              restore (tid, &saved, mask, have_mask);
              return -1;
            }
          continue;
        }
      if (w != tid || WIFEXITED (status) || WIFSIGNALED (status))
        {
          say (why, size, "process %d ended during the call", ij->pid);
          return -1;
        }
      int s = WSTOPSIG (status);
      if (s == SIGSEGV && ptrace (PTRACE_GETREGS, tid, 0, &r) == 0
          && r.rip == 0)
        done = 1;
      else if (s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE)
        {
          ptrace (PTRACE_GETREGS, tid, 0, &r);
          say (why, size, "the call in process %d faulted (signal %d at "
               "0x%llx): nothing is changed", ij->pid, s,
               (unsigned long long) r.rip);
          restore (tid, &saved, mask, have_mask);
          return -1;
        }
      else
        {
          if (status >> 16 == 0 && s != SIGTRAP)
            keep (&ij->kept, s);
          ptrace (PTRACE_CONT, tid, 0, 0);
        }
    }
  *ret = r.rax;
  if (restore (tid, &saved, mask, have_mask) != 0)
    {
      say (why, size, "cannot restore thread %d's registers: %s", tid,
           strerror (errno));
      return -1;
    }
  return 0;
}

int
hi_inject_read_string (struct hi_inject *ij, uint64_t addr, char *buf,
                       size_t size)
{
  if (!addr || size == 0)
    return -1;
  ssize_t n = pread (ij->mem, buf, size - 1, (off_t) addr);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  return 0;
}

void
hi_inject_close (struct hi_inject *ij)
{
  if (!ij)
    return;
  for (int i = 0; i < ij->n; i++)
    {
      int sig = 0;
      if (ij->tids[i] == ij->caller && ij->kept.n > 0)
        {
          /* The first delivered at once, the others pending after it. */
          sig = ij->kept.sigs[0];
          for (int j = 1; j < ij->kept.n; j++)
            syscall (SYS_tgkill, ij->pid, ij->caller, ij->kept.sigs[j]);
        }
      ptrace (PTRACE_DETACH, ij->tids[i], 0, sig);
    }
  if (ij->mem >= 0)
    close (ij->mem);
  free (ij);
}
