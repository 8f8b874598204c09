/* output.c - where heapinspect(1)'s report goes: stdout, standard error
   (`run`'s: its standard output is the program's), or `-o FILE` written
   atomically by reader/outfile.c (a temporary beside FILE, renamed over
   it once whole).  The CLI's part: the commands print to stdout, so
   stdout becomes the file's or standard error's stream; a signal or a
   file-size limit must not leave the temporary behind. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The temporary to remove if a signal ends us before the rename; set
   once its name is complete, cleared before it is freed. */
static const char *volatile tmp_for_signal;

static void
remove_and_die (int sig)
{
  const char *tmp = tmp_for_signal;
  if (tmp)
    unlink (tmp);
  signal (sig, SIG_DFL);
  raise (sig);
}

/* A file-size limit (ulimit -f) would kill us with SIGXFSZ, leaving the
   temporary: with a handler instead, the write fails with EFBIG and the
   usual error path cleans up.  A handler, unlike SIG_IGN, is not passed
   on to a program `run` starts. */
static void
no_op (int sig)
{
  (void) sig;
}

static void
catch_signals (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = remove_and_die;
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    {
      struct sigaction old;
      /* Leave ignored signals ignored (nohup). */
      if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (sigs[i], &sa, NULL);
    }
  sa.sa_handler = no_op;
  sigaction (SIGXFSZ, &sa, NULL);
}

/* A stream of our own on standard error, for the report: buffered by
   line, so that a line said on stderr meanwhile (a module that cannot
   be read) comes between the report's lines, not inside one; its
   descriptor closed on exec, so that `run`'s program does not get it.
   NULL with the error said. */
static FILE *
open_stderr (void)
{
  int fd = fcntl (STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  FILE *f = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (!f || setvbuf (f, NULL, _IOLBF, BUFSIZ) != 0)
    {
      int e = errno;
      if (f)
        fclose (f);
      else if (fd >= 0)
        close (fd);
      hi_cli_error ("standard error", strerror (e));
      return NULL;
    }
  return f;
}

int
hi_out_open (struct hi_out *o, const char *path, int to_stderr)
{
  memset (o, 0, sizeof *o);
  o->path = path;
  if (!path && to_stderr)
    return (o->err = open_stderr ()) ? 0 : -1;
  if (!path)
    return 0;
  hi_status s = hi_outfile_open (&o->file, path);
  if (s != HI_OK)
    {
      hi_cli_error (path, hi_strerror (s));
      return -1;
    }
  o->open = 1;
  tmp_for_signal = o->file.tmp;
  catch_signals ();
  return 0;
}

int
hi_out_redirect (struct hi_out *o)
{
  if (!o->open && !o->err)
    return 0;
  /* The commands print to stdout: glibc lets stdout be assigned (its
     manual's "Standard Streams"). */
  if (fflush (stdout) != 0)
    {
      hi_cli_error ("standard output", strerror (errno));
      return -1;
    }
  o->saved_stdout = stdout;
  stdout = o->open ? o->file.f : o->err;
  return 0;
}

/* stdout as it was before hi_out_redirect. */
static void
restore_stdout (struct hi_out *o)
{
  if (o->saved_stdout)
    stdout = o->saved_stdout;
  o->saved_stdout = NULL;
}

/* Close the stream on standard error: 0, or -1 if a write failed (said
   if SAY). */
static int
close_stderr (struct hi_out *o, int say)
{
  if (!o->err)
    return 0;
  int failed = ferror (o->err);
  errno = 0;
  failed |= fclose (o->err) != 0;
  int e = errno ? errno : EIO;
  o->err = NULL;
  if (failed && say)
    hi_cli_error ("standard error", strerror (e));
  return failed ? -1 : 0;
}

void
hi_out_abort (struct hi_out *o)
{
  restore_stdout (o);
  close_stderr (o, 0);
  if (!o->open)
    return;
  tmp_for_signal = NULL;
  hi_outfile_abort (&o->file);
  o->open = 0;
}

int
hi_out_commit (struct hi_out *o)
{
  restore_stdout (o);
  if (o->err)
    return close_stderr (o, 1);
  if (!o->open)
    {
      /* The real standard output: a write error shows at the flush. */
      errno = 0;
      if (fflush (stdout) != 0 || ferror (stdout))
        {
          hi_cli_error ("standard output", strerror (errno ? errno : EIO));
          return -1;
        }
      return 0;
    }
  tmp_for_signal = NULL;
  o->open = 0;
  hi_status s = hi_outfile_commit (&o->file);
  if (s != HI_OK)
    {
      hi_cli_error (o->path, hi_strerror (s));
      return -1;
    }
  return 0;
}
