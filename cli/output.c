/* output.c - `-o FILE`: the report is written to a temporary file beside
   FILE and renamed over it only once written whole, so FILE is either
   its old self or the complete new report, never a truncated one. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary to remove if a signal ends us before the rename: its
   name is complete before the pointer is set. */
static volatile sig_atomic_t have_tmp;
static char tmp_for_signal[PATH_MAX];

static void
remove_and_die (int sig)
{
  if (have_tmp)
    unlink (tmp_for_signal);
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
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    {
      struct sigaction old;
      /* Leave ignored signals ignored (nohup). */
      if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sa.sa_handler = remove_and_die;
      sigaction (sigs[i], &sa, NULL);
    }
  sa.sa_handler = no_op;
  sigaction (SIGXFSZ, &sa, NULL);
}

static void
say (const char *path, int err)
{
  hi_cli_error (path, strerror (err));
}

int
hi_out_open (struct hi_out *o, const char *path)
{
  memset (o, 0, sizeof *o);
  o->fd = -1;
  o->path = path;
  if (!path)
    return 0;
  /* A symbolic link keeps pointing where it did: the file it names is
     the one replaced. */
  const char *target = path;
  char *real = NULL;
  struct stat st;
  int exists = stat (path, &st) == 0;
  if (exists && S_ISDIR (st.st_mode))
    {
      say (path, EISDIR);
      return -1;
    }
  if (exists && !S_ISREG (st.st_mode))
    {
      /* A device, a FIFO, a socket (/dev/null, /dev/stdout, a pipe of
         the shell's): nothing to replace, written straight through. */
      o->fd = open (path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (o->fd < 0)
        {
          say (path, errno);
          return -1;
        }
      o->direct = 1;
      return 0;
    }
  if (exists)
    {
      real = realpath (path, NULL);
      if (real)
        target = real;
    }
  size_t len = strlen (target);
  if (len + 16 > sizeof o->target)
    {
      free (real);
      say (path, ENAMETOOLONG);
      return -1;
    }
  memcpy (o->target, target, len + 1);
  free (real);
  /* The temporary: ".NAME.XXXXXX" in FILE's directory (a rename only
     works within one file system), hidden from a plain ls. */
  const char *slash = strrchr (o->target, '/');
  size_t dirlen = slash ? (size_t) (slash - o->target) + 1 : 0;
  snprintf (o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", (int) dirlen,
            o->target, o->target + dirlen);
  o->fd = mkostemp (o->tmp, O_CLOEXEC);
  if (o->fd < 0)
    {
      say (path, errno);
      return -1;
    }
  memcpy (tmp_for_signal, o->tmp, sizeof o->tmp);
  have_tmp = 1;
  catch_signals ();
  /* The mode the file would get from open (..., 0666), or the one it
     has if it exists; mkostemp gives 0600. */
  mode_t mode;
  if (exists)
    mode = st.st_mode & 07777;
  else
    {
      mode_t mask = umask (0);
      umask (mask);
      mode = 0666 & ~mask;
    }
  if (fchmod (o->fd, mode) != 0)
    {
      say (path, errno);
      hi_out_abort (o);
      return -1;
    }
  return 0;
}

/* The report stream's write: all of BUF to the output's descriptor; the
   first error is kept for the message (stdio's errno is gone by the time
   the report ends). */
static ssize_t
cookie_write (void *cookie, const char *buf, size_t size)
{
  struct hi_out *o = cookie;
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (o->fd, buf + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (!o->err)
            o->err = n < 0 ? errno : EIO;
          return -1;
        }
      done += (size_t) n;
    }
  return (ssize_t) done;
}

int
hi_out_redirect (struct hi_out *o)
{
  /* Everything the commands print to stdout goes to the report stream:
     glibc lets stdout be assigned (its manual's "Standard Streams"). */
  if (fflush (stdout) != 0)
    {
      say (o->path ? o->path : "standard output", errno);
      return -1;
    }
  if (o->fd < 0)
    o->fd = STDOUT_FILENO;
  cookie_io_functions_t io = { .write = cookie_write };
  FILE *f = fopencookie (o, "w", io);
  if (!f)
    {
      say (o->path ? o->path : "standard output", errno);
      return -1;
    }
  setvbuf (f, NULL, _IOFBF, 1 << 16);
  o->saved_stdout = stdout;
  stdout = f;
  return 0;
}

/* Flush and close the report stream, stdout as it was again; 0, or -1
   with the error in O->err. */
static int
end_stream (struct hi_out *o)
{
  if (!o->saved_stdout)
    return 0;
  FILE *f = stdout;
  stdout = o->saved_stdout;
  o->saved_stdout = NULL;
  int bad = ferror (f) != 0;
  if (fclose (f) != 0 || bad)
    {
      if (!o->err)
        o->err = EIO;
      return -1;
    }
  return 0;
}

/* Close O's descriptor, unless it is our standard output. */
static int
close_fd (struct hi_out *o)
{
  int r = 0;
  if (o->fd >= 0 && o->fd != STDOUT_FILENO)
    r = close (o->fd);
  o->fd = -1;
  return r;
}

void
hi_out_abort (struct hi_out *o)
{
  if (o->saved_stdout)
    {
      /* Closing writes what the stream still holds: to the temporary,
         removed below, or to where the output goes anyway. */
      FILE *f = stdout;
      stdout = o->saved_stdout;
      o->saved_stdout = NULL;
      fclose (f);
    }
  close_fd (o);
  if (have_tmp)
    {
      have_tmp = 0;
      unlink (o->tmp);
    }
}

int
hi_out_commit (struct hi_out *o)
{
  const char *name = o->path ? o->path : "standard output";
  if (end_stream (o) != 0)
    {
      say (name, o->err);
      hi_out_abort (o);
      return -1;
    }
  if (!o->path || o->direct)
    {
      if (close_fd (o) != 0)
        {
          say (name, errno);
          return -1;
        }
      return 0;
    }
  /* On disk before the name points at it: a crash right after the
     rename must not leave an empty FILE. */
  int e = fsync (o->fd) != 0 ? errno : 0;
  if (close_fd (o) != 0 && !e)
    e = errno;
  if (!e && rename (o->tmp, o->target) != 0)
    e = errno;
  if (e)
    {
      say (name, e);
      hi_out_abort (o);
      return -1;
    }
  have_tmp = 0;
  return 0;
}
