/* cmd-attach.c - `heapinspect attach -p PID`: the monitor loaded into a
   program that is already running, which records from then on.  Every
   thread is stopped (inject.c), none inside malloc (glibc's arena locks
   free: a call of dlopen mallocs), the process made to call dlopen of
   libheapinspect.so and heapinspect_attach, which redirects the malloc
   family through the GOT (libheapinspect(7)), and let go.  The report
   comes when the program ends (from the snapshot the monitor writes at
   its exit, or when SIGTERM, SIGINT or SIGHUP it left default kills
   it), or at Ctrl-C or --duration (read live, as -p), after which
   heapinspect_detach is called in it, unless --keep; `heapinspect
   detach -p PID` calls it later. */
#define _GNU_SOURCE
#include "commands.h"
#include "inject.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* COMMAND's operands and options: none but -p PID (and, for attach,
   the report's); WHOM says what the process is.  -1 to go on, else 2. */
static int
pid_alone (const char *command, const char *whom, int argc,
           const struct hi_settings *st, int leak_check_refused)
{
  char msg[128];
  if (argc > 1)
    {
      snprintf (msg, sizeof msg, "%s takes no operand: heapinspect %s -p "
                "PID", command, command);
      return hi_bad_usage (msg);
    }
  if (!st->src.pid)
    {
      snprintf (msg, sizeof msg, "%s needs -p PID, %s", command, whom);
      return hi_bad_usage (msg);
    }
  if (st->src.no_stop || st->src.raw || (leak_check_refused && st->leak_check))
    {
      snprintf (msg, sizeof msg, "%s goes with -p PID alone", command);
      return hi_bad_usage (msg);
    }
  return -1;
}

int
hi_parse_attach (int argc, char **argv, struct hi_settings *st)
{
  (void) argv;
  int r = pid_alone ("attach", "the running program", argc, st, 0);
  if (r != -1)
    return r;
  static char name[32];
  snprintf (name, sizeof name, "process %ld", st->src.pid);
  st->src.name = name;
  return -1;
}

/* The address of symbol NAME in process PID's loaded objects: 0, or
   -1. */
static int
symbol (int pid, const char *name, uint64_t *addr)
{
  struct hi_target t;
  if (hi_target_open_maps (pid, &t) != HI_OK)
    return -1;
  int r = t.ops->lookup_symbol (t.ctx, name, addr);
  hi_target_close (&t);
  return r;
}

/* 1 if process PID maps an object whose file name begins with BASE
   (libc.so.: glibc's), 0 if not, -1 if it cannot be read. */
static int
maps_object (int pid, const char *base_prefix)
{
  struct hi_target t;
  struct hi_map_entry e;
  if (hi_target_open_maps (pid, &t) != HI_OK)
    return -1;
  int found = 0;
  for (size_t i = 0; !found && t.ops->mapping (t.ctx, i, &e) == 0; i++)
    {
      const char *base = strrchr (e.path, '/');
      found = base && strncmp (base + 1, base_prefix,
                               strlen (base_prefix)) == 0;
    }
  hi_target_close (&t);
  return found;
}

/* Why process PID's memory map could not be read: gone, or refused
   (another user's, a debugger's, Yama), in WHY, after "process PID: ". */
static const char *
unreadable (int pid, char *why, size_t size)
{
  int gone = kill (pid, 0) != 0 && errno == ESRCH;
  hi_ptrace_refusal (pid, gone ? ESRCH : EPERM, why, size);
  return why;
}

/* 1 if a thread of process PID holds one of glibc's arena locks. */
static int
in_malloc (int pid)
{
  struct hi_target t;
  if (hi_target_open_maps (pid, &t) != HI_OK)
    return -1;
  int r = hi_glibc_locked (&t);
  hi_target_close (&t);
  return r;
}

/* Make the process of IJ call NAME (TEXT, ARG2): its value in *RET.  0,
   or -1 with WHY. */
static int
call (struct hi_inject *ij, int pid, const char *name, const char *text,
      uint64_t arg2, uint64_t *ret, char *why, size_t size)
{
  uint64_t fn;
  if (symbol (pid, name, &fn) != 0)
    {
      snprintf (why, size, "process %d has no %s", pid, name);
      return -1;
    }
  return hi_inject_call (ij, fn, text, arg2, 10000, ret, why, size);
}

/* What glibc loads by itself (NSS modules, iconv's converters) is
   redirected too, through the loader's pointer to _dl_open, found with
   the loader's debug symbols.  Looked for before the process is
   stopped (ld.so's data does not move): the stop stays as short as it
   was.  0 and *SLOT to redirect; 1 if an earlier attach's monitor has
   it already; -1 and *WHY. */
static int
loader_slot (int pid, uint64_t *slot, const char **why)
{
  struct hi_target t;
  uint64_t wrapper = 0;
  *why = "the process's memory map cannot be read";
  if (symbol (pid, "heapinspect_loader_open", &wrapper) != 0)
    wrapper = 0;
  if (hi_target_open_maps (pid, &t) != HI_OK)
    return -1;
  int found = hi_loader_open_slot (&t, wrapper, slot, why);
  hi_target_close (&t);
  return found;
}

static void
redirect_loader (struct hi_inject *ij, int pid, int found, uint64_t slot,
                 const char *why)
{
  char text[32], err[256];
  uint64_t r;
  if (found == 1)
    return;                     /* an earlier attach's, kept */
  if (found == 0)
    {
      snprintf (text, sizeof text, "%" PRIx64, slot);
      if (call (ij, pid, "heapinspect_attach_loader", text, 0, &r, err,
                sizeof err) == 0 && (int32_t) r == 0)
        return;
      why = "the monitor refused the loader's pointer to _dl_open";
    }
  fprintf (stderr, "heapinspect: %s: libraries glibc loads by itself (NSS "
           "modules) are not redirected, and one that frees a block of "
           "the monitor's ends the program\n", why);
}

/* Load the monitor into process PID and start it writing its exit
   snapshot to SNAPSHOT: 0, or -1 with WHY.  Nothing is left changed on
   failure but a loaded, idle library. */
static int
inject (int pid, const char *snapshot, char *why, size_t size)
{
  /* libheapinspect-attach.so, beside the monitor: the build of it a
     running program can dlopen (dynamic TLS). */
  char libbuf[PATH_MAX], lib[PATH_MAX];
  const char *mon = hi_cli_monitor_path (libbuf, sizeof libbuf);
  const char *slash = strrchr (mon, '/');
  char attach_lib[PATH_MAX];
  snprintf (attach_lib, sizeof attach_lib, "%.*slibheapinspect-attach.so",
            slash ? (int) (slash - mon + 1) : 0, mon);
  snprintf (libbuf, sizeof libbuf, "%s", attach_lib);
  if (!realpath (libbuf, lib))
    {
      snprintf (why, size, "the monitor %.300s cannot be found: %s", libbuf,
                strerror (errno));
      return -1;
    }
  uint64_t slot = 0;
  const char *no_slot = NULL;
  int slot_found = loader_slot (pid, &slot, &no_slot);
  struct hi_inject *ij;
  if (hi_inject_open (pid, &ij, why, size) != 0)
    return -1;
  /* dlopen calls malloc: never while a thread holds an arena's lock. */
  int locked = in_malloc (pid);
  for (int tries = 0; locked == 1 && tries < 200; tries++)
    {
      if (hi_inject_resume_briefly (ij, 1) != 0)
        {
          snprintf (why, size, "process %d ended", pid);
          return -1;
        }
      locked = in_malloc (pid);
    }
  if (locked == 1)
    {
      snprintf (why, size, "process %d stays inside malloc (a thread holds "
                "an arena's lock): try again", pid);
      hi_inject_close (ij);
      return -1;
    }
  uint64_t handle = 0, r;
  int st = call (ij, pid, "dlopen", lib, RTLD_NOW, &handle, why, size);
  if (st == 0 && !handle)
    {
      char msg[256] = "unknown reason";
      if (call (ij, pid, "dlerror", NULL, 0, &r, why, size) == 0)
        hi_inject_read_string (ij, r, msg, sizeof msg);
      snprintf (why, size, "process %d could not load %.300s: %.256s", pid,
                lib, msg);
      st = -1;
    }
  /* on_signal: SIGTERM, SIGINT and SIGHUP, where the program left them
     default, write the snapshot before the program dies of them, so
     that the report comes all the same. */
  char options[PATH_MAX + 64];
  snprintf (options, sizeof options, "output=%s;on_signal=snapshot",
            snapshot);
  if (st == 0
      && (st = call (ij, pid, "heapinspect_attach", options, 0, &r, why,
                     size)) == 0
      && (int32_t) r != 0)
    {
      char msg[256] = "unknown reason";
      if (call (ij, pid, "heapinspect_attach_error", NULL, 0, &r, why,
                size) == 0)
        hi_inject_read_string (ij, r, msg, sizeof msg);
      snprintf (why, size, "the monitor could not start in process %d: %s",
                pid, msg);
      st = -1;
    }
  /* Attached again after a detach (which cleared it): the snapshot at
     its exit is ours. */
  if (st == 0)
    st = call (ij, pid, "heapinspect_set_output", snapshot, 0, &r, why,
               size);
  if (st == 0)
    redirect_loader (ij, pid, slot_found, slot, no_slot);
  hi_inject_close (ij);
  return st;
}

/* The state of an earlier attach's monitor in process PID (heapinspect_
   attach_state: 2 detached), or -1 if it has none or it cannot be
   asked. */
static int
attach_state (int pid)
{
  char why[256];
  struct hi_inject *ij;
  uint64_t r;
  if (hi_inject_open (pid, &ij, why, sizeof why) != 0)
    return -1;
  int st = call (ij, pid, "heapinspect_attach_state", NULL, 0, &r, why,
                 sizeof why);
  hi_inject_close (ij);
  return st == 0 ? (int) (int32_t) r : -1;
}

/* heapinspect_detach in process PID: 0, or -1 with WHY.  OUTPUT, if not
   NULL, gets where its snapshot would have gone (OUTPUT_SIZE bytes),
   read in the same stop before the detach clears it. */
static int
detach (int pid, char *output, size_t output_size, char *why, size_t size)
{
  struct hi_inject *ij;
  if (hi_inject_open (pid, &ij, why, size) != 0)
    return -1;
  uint64_t r;
  if (output && call (ij, pid, "heapinspect_output", NULL, 0, &r, why,
                      size) == 0 && r)
    hi_inject_read_string (ij, r, output, output_size);
  /* Nothing to write at its end: the report is made. */
  int st = call (ij, pid, "heapinspect_set_output", "none", 0, &r, why,
                 size);
  if (st == 0)
    st = call (ij, pid, "heapinspect_detach", NULL, 0, &r, why, size);
  hi_inject_close (ij);
  return st;
}

static volatile sig_atomic_t interrupted;

static void
on_interrupt (int sig)
{
  (void) sig;
  interrupted = 1;
}

/* Wait for process PID to end (1), or Ctrl-C or SECONDS (0; 0 seconds:
   no limit). */
static int
wait_end (int pid, long seconds)
{
  struct sigaction sa = { .sa_handler = on_interrupt }, old_int, old_term;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, &old_int);
  sigaction (SIGTERM, &sa, &old_term);
  int fd = (int) syscall (SYS_pidfd_open, pid, 0);
  int ended = 0;
  long waited_ms = 0;
  while (!interrupted && !ended
         && (seconds == 0 || waited_ms < seconds * 1000))
    {
      if (fd >= 0)
        {
          struct pollfd p = { fd, POLLIN, 0 };
          ended = poll (&p, 1, 100) == 1;
        }
      else
        {
          usleep (100000);
          ended = kill (pid, 0) != 0 && errno == ESRCH;
        }
      waited_ms += 100;
    }
  if (fd >= 0)
    close (fd);
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGTERM, &old_term, NULL);
  return ended;
}

/* A directory for the monitor's exit snapshot that process PID's user
   may write and no one else (PATH, SIZE bytes): 0, or -1. */
static int
snapshot_dir (int pid, char *path, size_t size)
{
  const char *tmp = getenv ("TMPDIR");
  snprintf (path, size, "%s/heapinspect-attach.XXXXXX",
            tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (path))
    return -1;
  char proc[64];
  struct stat st;
  snprintf (proc, sizeof proc, "/proc/%d", pid);
  if (stat (proc, &st) == 0 && st.st_uid != geteuid ()
      && chown (path, st.st_uid, st.st_gid) != 0)
    return -1;
  return 0;
}

static int attach_run (const struct hi_settings *st, int *written);

/* The report written into a pipe that closes (heapinspect attach ... |
   head) fails with EPIPE instead of killing heapinspect, so that the
   monitor is detached and the snapshot's directory removed all the
   same; SIGPIPE's own disposition comes back for the output's last
   flush. */
int
hi_cmd_attach (const struct hi_settings *st, int *written)
{
  struct sigaction ign = { .sa_handler = SIG_IGN }, old;
  sigemptyset (&ign.sa_mask);
  sigaction (SIGPIPE, &ign, &old);
  int status = attach_run (st, written);
  sigaction (SIGPIPE, &old, NULL);
  return status;
}

static int
attach_run (const struct hi_settings *st, int *written)
{
  int pid = (int) st->src.pid;
  char why[768];
  *written = 0;
  uint64_t root;
  /* A monitor an earlier attach loaded and detached is attached again
     (its data goes on); any other is read as it is. */
  if (symbol (pid, "heapinspect_root", &root) == 0
      && (maps_object (pid, "libheapinspect-attach.so") != 1
          || attach_state (pid) != 2))
    {
      fprintf (stderr, "heapinspect: process %d runs under the monitor "
               "already: reading it, as heapinspect -p does\n", pid);
      return st->leak_check ? hi_cmd_leak_check (st, written)
                            : hi_cmd_report (st, written);
    }
  int libc = maps_object (pid, "libc.so.");
  if (libc != 1)
    {
      char why[256];
      fprintf (stderr, "heapinspect: process %d: %s\n", pid, libc < 0
               ? unreadable (pid, why, sizeof why)
               : "it does not use glibc's shared libc (a static program?): "
                 "the monitor cannot be loaded into it");
      return 1;
    }
  char dir[PATH_MAX], snapshot[PATH_MAX + 16];
  if (snapshot_dir (pid, dir, sizeof dir) != 0)
    {
      fprintf (stderr, "heapinspect: cannot make a directory for the "
               "monitor's snapshot in %s: %s\n", dir, strerror (errno));
      return 1;
    }
  snprintf (snapshot, sizeof snapshot, "%s/exit.hip", dir);
  /* glibc's heap before the attach, for a report from the snapshot at
     its end (its heap then gone); not where an earlier attach's
     monitor made some of its blocks. */
  struct hi_settings s = *st;
  struct hi_target pt;
  int at_attach = 0;
  uint64_t at_blocks = 0, at_bytes = 0;
  if (symbol (pid, "heapinspect_root", &root) != 0
      && hi_target_open_process (pid, 1, &pt) == HI_OK)
    {
      const char *no;
      at_attach = hi_glibc_in_use (&pt, &at_blocks, &at_bytes, &no) == HI_OK;
      hi_target_finish (&pt);
      hi_target_close (&pt);
    }
  if (inject (pid, snapshot, why, sizeof why) != 0)
    {
      fprintf (stderr, "heapinspect: %s\n", why);
      rmdir (dir);
      return 1;
    }
  fprintf (stderr, "heapinspect: attached to process %d: recording; the "
           "report at its end, %s\n", pid, st->run.duration
           ? "or when --duration is up" : "or at Ctrl-C");
  int ended = wait_end (pid, st->run.duration);
  int status;
  if (ended && access (snapshot, F_OK) != 0)
    {
      fprintf (stderr, "heapinspect: process %d ended without the "
               "monitor's snapshot (it ran another program, exec, or was "
               "killed): no report\n", pid);
      status = 1;
    }
  else if (ended)
    {
      /* Its memory is gone: the snapshot it wrote at its exit. */
      s.src.pid = 0;
      s.src.path = snapshot;
      s.src.at_attach = at_attach;
      s.src.at_attach_blocks = at_blocks;
      s.src.at_attach_bytes = at_bytes;
      if (st->leak_check)
        fprintf (stderr, "heapinspect: process %d ended: no leak check "
                 "(its memory is gone); the report of its snapshot\n",
                 pid);
      s.leak_check = 0;
      status = hi_cmd_report (&s, written);
      unlink (snapshot);
    }
  else if (symbol (pid, "heapinspect_root", &root) != 0)
    {
      /* Its pid, another program: exec ended the one with the monitor
         (which wrote no snapshot). */
      fprintf (stderr, "heapinspect: process %d ran another program "
               "(exec): the monitor went with the one attached to; no "
               "report\n", pid);
      status = 1;
    }
  else
    {
      status = st->leak_check ? hi_cmd_leak_check (&s, written)
                              : hi_cmd_report (&s, written);
      if (!st->run.keep && detach (pid, NULL, 0, why, sizeof why) != 0)
        {
          fprintf (stderr, "heapinspect: %s\n", why);
          status = 1;
        }
      else if (st->run.keep)
        {
          fprintf (stderr, "heapinspect: process %d stays monitored "
                   "(--keep): heapinspect -p %d reads it, heapinspect "
                   "detach -p %d detaches it; its snapshot at exit goes to "
                   "%s\n", pid, pid, pid, snapshot);
          return status;        /* the directory stays for it */
        }
    }
  /* A program that ended between the read and the detach wrote its
     snapshot all the same. */
  unlink (snapshot);
  rmdir (dir);
  return status;
}

int
hi_parse_detach (int argc, char **argv, struct hi_settings *st)
{
  (void) argv;
  return pid_alone ("detach", "the program attached to", argc, st, 1);
}

/* The directory of PATH if an attach made it for the monitor's snapshot
   (TMPDIR/heapinspect-attach.XXXXXX/exit.hip), into DIR: 1, else 0. */
static int
attach_dir (const char *path, char *dir, size_t size)
{
  const char *slash = strrchr (path, '/');
  if (!slash || strcmp (slash, "/exit.hip") != 0
      || (size_t) (slash - path) >= size)
    return 0;
  memcpy (dir, path, (size_t) (slash - path));
  dir[slash - path] = '\0';
  const char *base = strrchr (dir, '/');
  return base && strncmp (base + 1, "heapinspect-attach.", 19) == 0
         && strlen (base + 1) == 19 + 6;
}

/* `heapinspect detach -p PID`: the monitor an attach left attached
   (--keep) gives the malloc family back to glibc, as at the end of an
   attach without --keep; its figures stay readable, frozen, and the
   directory the attach made for its snapshot goes. */
int
hi_cmd_detach (const struct hi_settings *st, int *written)
{
  int pid = (int) st->src.pid;
  uint64_t root;
  char why[768];
  *written = 0;
  if (symbol (pid, "heapinspect_root", &root) != 0)
    {
      fprintf (stderr, "heapinspect: process %d: %s\n", pid,
               maps_object (pid, "libc.so.") < 0
               ? unreadable (pid, why, sizeof why)
               : "no monitor in it: nothing to detach");
      return 1;
    }
  int state = maps_object (pid, "libheapinspect-attach.so") == 1
              ? attach_state (pid) : -1;
  if (state < 0 || state == 0)
    {
      fprintf (stderr, "heapinspect: process %d runs under a monitor "
               "heapinspect attach did not load (preloaded or linked): it "
               "cannot be detached\n", pid);
      return 1;
    }
  if (state == 2)
    {
      fprintf (stderr, "heapinspect: process %d: its monitor is detached "
               "already\n", pid);
      return 1;
    }
  char output[PATH_MAX] = "", dir[PATH_MAX];
  if (detach (pid, output, sizeof output, why, sizeof why) != 0)
    {
      fprintf (stderr, "heapinspect: %s\n", why);
      return 1;
    }
  if (attach_dir (output, dir, sizeof dir))
    rmdir (dir);              /* empty: the process has not ended */
  fprintf (stderr, "heapinspect: process %d: the monitor is detached; "
           "heapinspect -p %d reads the figures of its attached time\n",
           pid, pid);
  return 0;
}
