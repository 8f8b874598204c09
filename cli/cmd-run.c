/* cmd-run.c - `heapinspect run CMD ARGS...`: run CMD with the monitor
   preloaded, read its heap at its end, print the tables, and exit as it
   did. */
#define _GNU_SOURCE
#include "config.h"
#include "cli/paths.h"
#include "commands.h"
#include "common/output-name.h"
#include "heapinspect/leak-stop.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_OUTPUT "heapinspect.%p.hip"

const char *
hi_cli_monitor_path (char *buf, size_t size)
{
  const char *env = getenv ("HEAPINSPECT_LIB");
  if (env && *env)
    return env;
  char exe[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0)
    {
      exe[n] = '\0';
      char *slash = strrchr (exe, '/');
      if (slash)
        {
          *slash = '\0';
          snprintf (buf, size, "%s/../lib/.libs/libheapinspect.so", exe);
          if (access (buf, R_OK) == 0)
            return buf;
        }
    }
  return HI_LIBDIR "/libheapinspect.so";
}

/* The program, killed by a signal sent to us (kill, timeout): pass it on
   and stay to read the program at its end. */
static volatile sig_atomic_t child_pid;

static void
forward_signal (int sig)
{
  if (child_pid > 0)
    kill ((pid_t) child_pid, sig);
}

/* The dispositions we change, as we found them: the program gets them
   back (an ignored SIGHUP under nohup stays ignored). */
static const int our_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
static struct sigaction saved[4];

static void
handle_signals (void)
{
  /* Like a shell: the terminal's ^C and ^\ reach the program (our
     process group); we wait for it. */
  struct sigaction ign, fwd;
  memset (&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset (&ign.sa_mask);
  fwd = ign;
  fwd.sa_handler = forward_signal;
  fwd.sa_flags = SA_RESTART;
  for (int i = 0; i < 4; i++)
    sigaction (our_signals[i], i < 2 ? &ign : &fwd, &saved[i]);
}

static void
restore_signals (void)
{
  for (int i = 0; i < 4; i++)
    sigaction (our_signals[i], &saved[i], NULL);
}

/* In the child: wait for the parent's word (traced or not), set the
   environment, exec.  On failure the errno goes up ERR_FD.  PARENT: our
   pid, before the fork. */
static void
child (char **argv, int go_fd, int err_fd, const char *preload,
       const char *pattern, int follow, int leak_fd, pid_t parent)
{
  restore_signals ();
  /* Killed, we take the program with us, traced (PTRACE_O_EXITKILL) or
     not: the parent's death signal, which exec keeps. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid () != parent)
    _exit (127);
  char traced = 0;
  if (read (go_fd, &traced, 1) != 1)
    _exit (127);
  close (go_fd);
  char pid[32];
  snprintf (pid, sizeof pid, "%ld", (long) getpid ());
  setenv ("LD_PRELOAD", preload, 1);
  /* Without the trace the file is all there is: write it whatever
     HEAPINSPECT_OUTPUT says. */
  setenv ("HEAPINSPECT_OUTPUT", traced == 't' || strcmp (pattern, "none")
          ? pattern : DEFAULT_OUTPUT, 1);
  if (follow)
    unsetenv ("HEAPINSPECT_ROOT_PID");
  else
    setenv ("HEAPINSPECT_ROOT_PID", pid, 1);
  /* The exit stop for --leak-check, only under our trace: untraced, the
     monitor's SIGTRAP would kill the program. */
  char stop[64];
  snprintf (stop, sizeof stop, "%d:%s", leak_fd, pid);
  if (traced == 't' && leak_fd >= 0 && fcntl (leak_fd, F_SETFD, 0) == 0)
    setenv (HI_LEAK_STOP_ENV, stop, 1);
  else
    unsetenv (HI_LEAK_STOP_ENV);
  /* Traced, we read the program at its end and report its heap errors,
     named: the monitor then says only their first line. */
  if (traced == 't')
    setenv (HI_RUN_REPORTS_ENV, pid, 1);
  else
    unsetenv (HI_RUN_REPORTS_ENV);
  execvp (argv[0], argv);
  int e = errno;
  if (write (err_fd, &e, sizeof e) != (ssize_t) sizeof e)
    _exit (127);
  _exit (e == ENOENT ? 127 : 126);
}

/* Why no snapshot file PATH appeared: one true line.  READ_LIVE: the
   program was read at its end, so a program that simply wrote none (it
   ended by _exit) lost nothing and nothing is said. */
static void
explain_missing (const char *prog, const char *path, int read_live)
{
  char dir[PATH_MAX];
  snprintf (dir, sizeof dir, "%s", path);
  const char *d = dirname (dir);
  struct stat sb;
  char msg[2 * PATH_MAX + 256];
  if (stat (d, &sb) != 0)
    snprintf (msg, sizeof msg, "no snapshot file: its directory %s: %s", d,
              strerror (errno));
  else if (!S_ISDIR (sb.st_mode))
    snprintf (msg, sizeof msg, "no snapshot file: %s is not a directory", d);
  else if (access (d, W_OK | X_OK) != 0)
    snprintf (msg, sizeof msg, "no snapshot file: the directory %s is not "
              "writable", d);
  else if (read_live)
    return;
  else
    snprintf (msg, sizeof msg, "no snapshot file %s: the program wrote "
              "none (the monitor says why above, if it knows; a program "
              "that ends by _exit or a signal writes none)", path);
  /* The report below comes whole all the same: say so, lest "no
     snapshot" read as "no report". */
  if (read_live)
    snprintf (msg + strlen (msg), sizeof msg - strlen (msg), "; the report "
              "was read from the program at its end");
  hi_cli_error (prog, msg);
}

/* The program's end as an exit status: N, or 128 + the signal. */
static int
end_status (const char *prog, int st, int read_live)
{
  char msg[160];
  if (WIFSIGNALED (st))
    {
      snprintf (msg, sizeof msg, "killed by signal %d (%s)%s", WTERMSIG (st),
                strsignal (WTERMSIG (st)), read_live
                ? "; its heap was read as it ended" : "");
      hi_cli_error (prog, msg);
      return 128 + WTERMSIG (st);
    }
  if (WEXITSTATUS (st) != 0)
    {
      snprintf (msg, sizeof msg, "exited with status %d", WEXITSTATUS (st));
      hi_cli_error (prog, msg);
    }
  return WEXITSTATUS (st);
}

/* A one-line message for a live read that gave no model. */
static const char *
read_failure (hi_status s)
{
  switch (s)
    {
    case HI_E_NOT_READY:
      return "the program allocated no memory through the monitor: "
             "no tables";
    case HI_E_NO_DATA:
      return "the monitor was not loaded in the program (a static or "
             "setuid program ignores LD_PRELOAD): no tables";
    default:
      return hi_strerror (s);
    }
}

/* Whether a live read's outcome S means there was nothing to report: the
   program allocated nothing through the monitor, or the monitor was
   never in it (a static or setuid program).  Said on stderr; run's exit
   status is then the program's alone, as when there is a report. */
static int
nothing_to_report (hi_status s)
{
  return s == HI_E_NOT_READY || s == HI_E_NO_DATA;
}

/* Whether PATTERN (HEAPINSPECT_OUTPUT) can name a file, checked with
   the longest pid so that a bad one stops us before the program runs;
   if not, say why. */
static int
pattern_usable (const char *pattern)
{
  char output[PATH_MAX];
  if (strcmp (pattern, "none") == 0
      || hi_expand_output (output, sizeof output, pattern, 4194304L) >= 0)
    return 1;
  /* %p grows at most tenfold: if that room is not enough either, the
     pattern itself is wrong. */
  size_t room = strlen (pattern) * 10 + 32;
  char *big = malloc (room);
  int valid = big && hi_expand_output (big, room, pattern, 0) >= 0;
  free (big);
  hi_cli_error ("HEAPINSPECT_OUTPUT", valid
                ? "too long a file name"
                : "not a valid file-name pattern (only %p and %% are "
                  "expanded)");
  return 0;
}

/* The model to report on: the one read at the program's end, else the
   program's snapshot file; NULL, with the reason said, if neither. */
static struct hi_model *
choose_model (const char *prog, struct hi_traced_end *end, int traced,
              int have_file, const char *file, struct hi_source *src)
{
  memset (src, 0, sizeof *src);
  src->name = prog;
  if (end->model)
    return end->model;
  if (have_file)
    {
      src->path = src->name = file;
      return hi_cli_load (src, NULL);
    }
  if (end->seen_exit)
    hi_cli_error (prog, read_failure (end->read));
  else if (traced)
    hi_cli_error (prog, "it was not stopped at its exit, and left no "
                  "snapshot: no tables");
  else
    hi_cli_error (prog, "no tables");
  return NULL;
}

/* `run --leak-check`'s end: the report made at the program's exit, and
   the exit status: RUN's error_exitcode when it found leaks of its
   error_kinds and the program exited (not killed), else STATUS (1 if
   that is 0 and no report could be made, though there was something to
   report). */
static int
leak_report (const char *prog, struct hi_traced_end *end,
             const struct hi_run *run, int status, int trace_error,
             int *written)
{
  int leaks = 0;
  if (end->scanned && end->scan == HI_OK)
    {
      if (end->report_len
          && fwrite (end->report, 1, end->report_len, stdout)
             != end->report_len)
        hi_cli_error (prog, hi_strerror (HI_E_WRITE));
      else
        *written = 1;
      for (int c = 0; c < HI_REACH_NCLASSES; c++)
        if (run->error_kinds & (1u << c))
          leaks |= end->totals.cls[c].blocks > 0;
      if (end->model && hi_model_damaged (end->model))
        fprintf (stderr, "heapinspect: %s: incomplete report: %llu damaged "
                 "entries were left out\n", prog,
                 (unsigned long long) hi_model_damaged (end->model));
    }
  else if (end->scanned && end->scan == HI_E_NOT_READY)
    hi_cli_error (prog, "the program allocated no memory through the "
                  "monitor: no leaks are possible");
  else if (end->scanned && end->scan == HI_E_NO_DATA)
    hi_cli_error (prog, "the monitor was not loaded in the program (a "
                  "static or setuid program ignores LD_PRELOAD): no leak "
                  "check");
  else if (end->scanned)
    hi_cli_error (prog, end->scan == HI_E_NO_MEMORY
                  ? "the leak check needs the program's memory, and it "
                    "could not be read" : read_failure (end->scan));
  else if (!trace_error)
    hi_cli_error (prog, "it was not stopped at its exit: no leak check");
  hi_model_free (end->model);
  free (end->report);
  if (leaks && run->error_exitcode && WIFEXITED (end->status))
    return run->error_exitcode;
  if (status)
    return status;
  return end->scanned && (end->scan == HI_OK
                          || nothing_to_report (end->scan)) ? 0 : 1;
}

/* `run [RUN-OPTIONS] [--] COMMAND ARGS...`: ARGV starts at "run".
   Options after `run` are heapinspect's up to the command's name or
   `--`; the command's own options are left alone. */
int
hi_parse_run (int argc, char **argv, struct hi_settings *st)
{
  /* 0, not 1: glibc's getopt starts afresh, in the "+" mode. */
  optind = 0;
  argv[0] = (char *) "heapinspect";
  int r = hi_options_parse (argc, argv, "+t:p:o:h", st);
  if (r >= 0)
    return r;
  if (st->src.pid || st->src.raw || st->src.no_stop)
    return hi_bad_usage ("run reads the program it starts: -p, --raw and "
                         "--no-stop do not go with it");
  if (st->error_options && !st->run.leak_check)
    return hi_error_options_usage ();
  if (st->run.leak_check
      && (r = hi_check_own_report (st, "--leak-check")) >= 0)
    return r;
  if (!hi_tables_valid (st->tables))
    return hi_bad_tables ();
  st->command = argv + optind;
  if (!*st->command)
    return hi_bad_usage ("run needs a command");
  return hi_check_filters (&st->opt);
}

/* One run of the program, from its start to its report. */
struct launch
{
  const char *prog;          /* the command, for messages */
  char preload[2 * PATH_MAX + 2];  /* LD_PRELOAD, the monitor first */
  const char *pattern;       /* HEAPINSPECT_OUTPUT, or the default */
  pid_t pid;
  int trace_error;           /* PTRACE_SEIZE's errno; 0: traced */
  int err_fd;                /* read end: the child's exec errno */
  int leak_fd;               /* write end of the exit stop's pipe, or -1 */
  struct hi_traced_end end;
  char output[PATH_MAX];     /* the snapshot file's name, or "" */
  int have_file;             /* ... and it can be read */
};

/* The monitor, LD_PRELOAD and the snapshot file's pattern, into L: -1
   to go on, else the exit status with the reason said. */
static int
prepare (struct launch *l)
{
  char libbuf[PATH_MAX + 64];
  const char *lib = hi_cli_monitor_path (libbuf, sizeof libbuf);
  if (access (lib, R_OK) != 0)
    {
      hi_cli_error (lib, "cannot find the monitor (set HEAPINSPECT_LIB)");
      return 1;
    }
  const char *old = getenv ("LD_PRELOAD");
  if ((size_t) snprintf (l->preload, sizeof l->preload, "%s%s%s", lib,
                         old && *old ? ":" : "", old ? old : "")
      >= sizeof l->preload)
    {
      hi_cli_error ("LD_PRELOAD", "too long");
      return 1;
    }
  l->pattern = getenv ("HEAPINSPECT_OUTPUT");
  if (!l->pattern || !*l->pattern)
    l->pattern = DEFAULT_OUTPUT;
  return pattern_usable (l->pattern) ? -1 : 2;
}

/* Without the trace there is no live read and no leak check: say so,
   and close the exit stop's pipe. */
static void
say_untraced (const struct hi_run *run, struct launch *l)
{
  char msg[256];
  snprintf (msg, sizeof msg, "cannot trace the program (%s): the tables "
            "come from its snapshot file, so only if it exits normally",
            strerror (l->trace_error));
  hi_cli_error ("ptrace", msg);
  if (run->leak_check)
    hi_cli_error ("ptrace", "--leak-check reads the program live: "
                  "there is no leak check");
  if (l->leak_fd >= 0)
    close (l->leak_fd);
  l->leak_fd = -1;
}

/* Start ARGV in a child, traced if ptrace lets us, into L: -1 to go on,
   else 1 with the reason said. */
static int
start (char **argv, const struct hi_run *run, struct launch *l)
{
  int go[2], err[2], leak[2] = { -1, -1 };
  if (pipe2 (go, O_CLOEXEC) != 0 || pipe2 (err, O_CLOEXEC) != 0
      || (run->leak_check && pipe2 (leak, O_CLOEXEC) != 0))
    {
      hi_cli_error (l->prog, strerror (errno));
      return 1;
    }
  handle_signals ();
  pid_t parent = getpid ();
  pid_t pid = fork ();
  if (pid < 0)
    {
      hi_cli_error (l->prog, strerror (errno));
      return 1;
    }
  if (pid == 0)
    {
      close (go[1]);
      close (err[0]);
      child (argv, go[0], err[1], l->preload, l->pattern,
             run->follow_children, leak[0], parent);
    }
  child_pid = l->pid = pid;
  close (go[0]);
  close (err[1]);
  if (leak[0] >= 0)
    close (leak[0]);
  l->err_fd = err[0];
  l->leak_fd = leak[1];
  l->trace_error = hi_run_trace (pid);
  char word = l->trace_error ? 'f' : 't';
  if (write (go[1], &word, 1) != 1)
    l->trace_error = errno;
  close (go[1]);
  if (l->trace_error)
    say_untraced (run, l);
  return -1;
}

/* Wait for L's program to end, read at its end (and scanned, with
   --leak-check) if traced: -1 to go on, else 126 or 127 when its exec
   failed, said. */
static int
wait_end (const struct hi_options *opt, const struct hi_run *run,
          struct launch *l)
{
  int exec_errno = 0;
  ssize_t got;
  while ((got = read (l->err_fd, &exec_errno, sizeof exec_errno)) < 0
         && errno == EINTR)
    ;
  close (l->err_fd);
  struct hi_leak_run leak_run = { l->leak_fd, opt, l->prog };
  if (!l->trace_error)
    hi_run_wait_traced (l->pid, run->leak_check ? &leak_run : NULL,
                        &l->end);
  else
    {
      memset (&l->end, 0, sizeof l->end);
      while (waitpid (l->pid, &l->end.status, 0) < 0 && errno == EINTR)
        ;
    }
  child_pid = 0;
  if (leak_run.fd >= 0)
    close (leak_run.fd);          /* not traced: no stop to end */
  if (got != (ssize_t) sizeof exec_errno)
    return -1;
  hi_cli_error (l->prog, strerror (exec_errno));
  hi_model_free (l->end.model);
  free (l->end.report);
  return exec_errno == ENOENT ? 127 : 126;
}

/* The snapshot file, if the program wrote one: named on stderr; if it
   wrote none, why (unless nothing was lost by it). */
static void
find_snapshot (struct launch *l)
{
  int none = strcmp (l->pattern, "none") == 0;
  if (none && !l->trace_error)
    return;
  hi_expand_output (l->output, sizeof l->output,
                    l->trace_error && none ? DEFAULT_OUTPUT : l->pattern,
                    (long) l->pid);
  l->have_file = access (l->output, R_OK) == 0;
  if (l->have_file)
    fprintf (stderr, "heapinspect: snapshot in %s\n", l->output);
  else if (l->end.read != HI_E_NOT_READY && l->end.read != HI_E_NO_DATA
           && !(l->end.model && WIFSIGNALED (l->end.status)))
    explain_missing (l->prog, l->output, l->end.model != NULL);
}

/* Whether the comma-separated LIST names table NAME. */
static int
has_table (const char *list, const char *name)
{
  size_t n = strlen (name);
  for (const char *p = list; *p;)
    {
      size_t len = strcspn (p, ",");
      if (len == n && strncmp (p, name, n) == 0)
        return 1;
      p += len + (p[len] == ',');
    }
  return 0;
}

/* The tables of L's program, read at its end or from its snapshot file.
   STATUS: the program's exit status.  The exit status. */
static int
report_tables (struct launch *l, const char *tables,
               const struct hi_options *opt, int status, int *written)
{
  struct hi_source src;
  struct hi_model *m = choose_model (l->prog, &l->end, !l->trace_error,
                                     l->have_file, l->output, &src);
  if (!m)
    return status ? status
           : l->end.seen_exit && nothing_to_report (l->end.read) ? 0 : 1;
  struct hi_stat totals;
  hi_stat_compute (m, &totals);
  if (totals.allocations == 0)
    {
      hi_cli_error (l->prog, read_failure (HI_E_NOT_READY));
      hi_model_free (m);
      return status;
    }
  if (l->end.model && hi_model_damaged (m))
    fprintf (stderr, "heapinspect: %s: incomplete report: %llu damaged "
             "entries were left out\n", src.name,
             (unsigned long long) hi_model_damaged (m));
  /* Heap errors lead the report whatever -t says: the monitor left
     their full report to us (HI_RUN_REPORTS_ENV). */
  char with_errors[256];
  if (totals.errors_total && !has_table (tables, "errors")
      && (size_t) snprintf (with_errors, sizeof with_errors, "errors,%s",
                            tables) < sizeof with_errors)
    tables = with_errors;
  int r = hi_cli_report (&src, m, tables, opt, written);
  hi_model_free (m);
  return status ? status : r;
}

/* Run the command with the monitor preloaded: its exit status, 128 +
   the signal that killed it, 126/127 if it could not be started, or 1
   if it exited 0 but no report could be made of what there was to
   report (nothing_to_report: its status all the same). */
int
hi_cmd_run (const struct hi_settings *st, int *written)
{
  *written = 0;
  struct launch l = { .prog = st->command[0], .leak_fd = -1 };
  int r;
  if ((r = prepare (&l)) >= 0 || (r = start (st->command, &st->run, &l)) >= 0
      || (r = wait_end (&st->opt, &st->run, &l)) >= 0)
    return r;
  int status = end_status (l.prog, l.end.status, l.end.model != NULL);
  find_snapshot (&l);
  if (st->run.leak_check)
    return leak_report (l.prog, &l.end, &st->run, status, l.trace_error,
                        written);
  return report_tables (&l, st->tables, &st->opt, status, written);
}
