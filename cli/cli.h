/* cli.h - shared declarations of heapinspect(1). */
#ifndef HI_CLI_H
#define HI_CLI_H

#include "hi-reader.h"

/* Where the data comes from. */
struct hi_source
{
  const char *path;          /* snapshot or core file, or raw dump */
  const char *exe;           /* executable given on the command line */
  long pid;                  /* -p PID, or 0 */
  int no_stop;               /* --no-stop */
  const char *raw_path[64];  /* --raw FILE@ADDRESS, repeatable */
  uint64_t raw_base[64];
  int raw;                   /* how many */
  const char *name;          /* for messages */
  /* attach: glibc's in-use chunks read just before it (at_attach 1),
     for the report of a snapshot written at the end. */
  int at_attach;
  uint64_t at_attach_blocks, at_attach_bytes;
};

/* The monitor's path (BUF, SIZE bytes, may hold it): $HEAPINSPECT_LIB,
   else the build tree next to this program (uninstalled use), else the
   installed one. */
const char *hi_cli_monitor_path (char *buf, size_t size);

/* Print "heapinspect: SOURCE: MESSAGE" on stderr. */
void hi_cli_error (const char *source, const char *message);

/* Open SRC and load its model; on failure print the error and return
   NULL.  Notes (an incomplete report) go to stderr.  With KEEP, the
   target stays open there for the caller to close. */
struct hi_model *hi_cli_load (const struct hi_source *src,
                              struct hi_target *keep);

/* hi_cli_load with KEEP, but the target not finished: a live process
   stays stopped until the caller calls hi_target_finish on *KEEP (the
   leak check reads its memory after the model). */
struct hi_model *hi_cli_load_open (const struct hi_source *src,
                                   struct hi_target *keep);

/* hi_cli_load, but for a core or process without heapinspect data:
   NULL with nothing said and *NO_DATA set (a snapshot has data). */
struct hi_model *hi_cli_load_or_none (const struct hi_source *src,
                                      struct hi_target *keep, int *no_data);

/* hi_cli_load_open, likewise. */
struct hi_model *hi_cli_load_open_or_none (const struct hi_source *src,
                                           struct hi_target *keep,
                                           int *no_data);

/* What of glibc's own heap (no monitor needed) hi_cli_glibc shows. */
enum hi_glibc_view { HI_VIEW_STAT, HI_VIEW_BLOCK, HI_VIEW_VERIFY,
                     HI_VIEW_LEAKS, HI_VIEW_REF, HI_VIEW_BINS };
/* glibc's own heap of SRC to stdout, as OPT's format says: its totals,
   its chunks by size, what it says of address BLOCK or what points into
   its chunk (REF), or its consistency walk (status 1 when it finds
   damage).  The exit status; *WRITTEN as hi_cli_report's. */
int hi_cli_glibc (const struct hi_source *src, const struct hi_options *opt,
                  enum hi_glibc_view view, uint64_t block, int *written);

/* Print the tables named in TABLES (comma-separated) of M, or its
   chains in a profile format, to stdout.  Returns the exit status; sets
   *WRITTEN to 1 if the report was written whole (a damaged input gives
   a whole report and status 1). */
int hi_cli_report (const struct hi_source *src, struct hi_model *m,
                   const char *tables, const struct hi_options *opt,
                   int *written);

/* One warning line on stderr per module of M (read from SRC) whose code
   is shown as module+offset, saying why. */
void hi_cli_module_problems (const struct hi_source *src,
                             const struct hi_model *m);

/* Where the report goes (output.c): stdout, standard error (run's,
   whose standard output is the program's), or -o FILE written
   atomically (reader/outfile.c).  Must not move between hi_out_open and
   its commit or abort (FILE's stream points into it). */
struct hi_out
{
  const char *path;          /* -o FILE, or NULL */
  int open;                  /* FILE is being written */
  struct hi_outfile file;
  FILE *err;                 /* without FILE: a stream of our own on
                                standard error, or NULL: stdout */
  FILE *saved_stdout;        /* stdout before hi_out_redirect */
};

/* Prepare O for PATH (NULL: standard output, or standard error if
   TO_STDERR): for a regular or new file, create the temporary beside it
   (hi_outfile_open); a device or FIFO is opened as it is.  0, or -1
   with one error line said (a directory, no permission).  Signals that
   end us remove the temporary; a file-size limit makes a write fail
   instead of killing us. */
int hi_out_open (struct hi_out *o, const char *path, int to_stderr);
/* From now on stdout is FILE's stream (if -o), or standard error's (if
   so opened).  0, or -1 with the error said. */
int hi_out_redirect (struct hi_out *o);
/* The report is complete: flush it and rename the temporary over FILE.
   0, or -1 with one error line said (a write error, a full disk) and the
   temporary removed, FILE untouched. */
int hi_out_commit (struct hi_out *o);
/* The report is not complete: remove the temporary; FILE untouched. */
void hi_out_abort (struct hi_out *o);

/* How `run` runs. */
struct hi_run
{
  int follow_children;       /* --follow-children: every process writes
                                its own snapshot */
  int leak_check;            /* --leak-check: scan the program for leaks
                                at its exit and print that report */
  int error_exitcode;        /* --error-exitcode=N: exit N when the scan
                                found leaks of error_kinds; 0: never */
  unsigned error_kinds;      /* --errors-for-leak-kinds: 1 << class
                                (enum hi_reach_class) of each kind that
                                counts; memcheck's default is definite
                                and possible */
  long duration;             /* attach --duration=SECONDS; 0: until the
                                program ends or Ctrl-C */
  int keep;                  /* attach --keep: stay attached */
};
/* memcheck's --errors-for-leak-kinds default: definite,possible. */
#define HI_RUN_ERROR_KINDS_DEFAULT 5u

/* The tracing half of `run` (run-trace.c). */
struct hi_traced_end
{
  int status;                /* the program's wait status */
  int seen_exit;             /* it was stopped at its exit and read */
  hi_status read;            /* the live read's outcome, if seen_exit */
  struct hi_model *model;    /* the model read there, or NULL */
  /* With --leak-check: */
  int scanned;               /* the leak report was made */
  int at_exit_handlers;      /* ... at the monitor's exit stop (else at
                                the exit stop: _exit, a signal) */
  hi_status scan;            /* its outcome, if scanned */
  char *report;              /* its text (malloc'd), if scanned */
  size_t report_len;
  struct hi_reach_totals totals; /* the classes' totals, if HI_OK */
};

/* What `run --leak-check` hands the tracing half. */
struct hi_leak_run
{
  int fd;                    /* the write end of the exit stop's pipe
                                (heapinspect/leak-stop.h): closed here once the
                                scan is done or can no longer happen */
  const struct hi_options *opt;
  const char *name;          /* the program, for the report */
};

/* Trace PID, a child that has not yet exec'd: 0, or the errno of
   PTRACE_SEIZE (ptrace not permitted). */
int hi_run_trace (int pid);
/* Let traced PID run to its end, passing its signals on; at its exit
   stop (after its exit handlers, also on death by a signal) read its
   heap live.  With LEAK (not NULL: --leak-check), scan it for leaks at
   the monitor's stop at the end of its exit handlers, all its threads
   stopped, or at its exit stop if it never gets there (_exit, a signal).
   Fills *END. */
void hi_run_wait_traced (int pid, struct hi_leak_run *leak,
                         struct hi_traced_end *end);

#endif
