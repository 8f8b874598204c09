/* outfile.c - an output file written whole or not at all: a temporary
   file in the same directory (so rename cannot cross file systems),
   renamed over the name when complete.  Shared by heapinspect -o and
   gdb's heap export. */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hi-reader.h"
#include "util/errors.h"

/* F writes through these, so that the first failed write's errno is
   kept for the message ("File too large"): stdio keeps only the error
   flag, and errno may have moved on by the time the output ends. */
static ssize_t
stream_write (void *cookie, const char *buf, size_t size)
{
  struct hi_outfile *o = cookie;
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
  return (ssize_t) size;
}

static int
stream_close (void *cookie)
{
  struct hi_outfile *o = cookie;
  int r = close (o->fd);
  o->fd = -1;
  return r;
}

static void
clear (struct hi_outfile *o)
{
  free (o->path);
  free (o->tmp);
  o->f = NULL;
  o->path = o->tmp = NULL;
  o->fd = -1;
  o->err = 0;
}

static hi_status
fail (struct hi_outfile *o, int err)
{
  clear (o);
  return hi_fail (HI_E_WRITE, err);
}

/* A new file beside TARGET, named ".BASE.XXXXXX"; its descriptor, or -1
   with errno set.  The suffix mixes the time, the pid and a counter:
   O_EXCL makes a clash a retry, never a shared file. */
static int
create_beside (const char *target, char **tmp_out)
{
  static const char digits[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static _Thread_local unsigned counter;
  const char *slash = strrchr (target, '/');
  size_t dir_len = slash ? (size_t) (slash - target) + 1 : 0;
  const char *base = target + dir_len;
  size_t size = strlen (target) + 16;
  char *tmp = malloc (size);
  if (!tmp)
    return errno = ENOMEM, -1;
  for (int attempt = 0; attempt < 100; attempt++)
    {
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      uint64_t x = (uint64_t) ts.tv_nsec * 0x9e3779b97f4a7c15u
                   ^ (uint64_t) getpid () << 20 ^ ++counter;
      char suffix[7];
      for (int i = 0; i < 6; i++, x /= 62)
        suffix[i] = digits[x % 62];
      suffix[6] = '\0';
      snprintf (tmp, size, "%.*s.%s.%s", (int) dir_len, target, base, suffix);
      int fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0666);
      if (fd >= 0)
        {
          *tmp_out = tmp;
          return fd;
        }
      if (errno != EEXIST)
        break;
    }
  int err = errno;
  free (tmp);
  errno = err;
  return -1;
}

/* The kernel's protected_symlinks rule, which realpath before the
   rename would side-step: a symbolic link in a sticky, world-writable
   directory (/tmp) is followed only when the writer or the directory's
   owner owns it. */
static int
untrusted_link (const char *path)
{
  struct stat ls, ds;
  if (lstat (path, &ls) != 0 || !S_ISLNK (ls.st_mode))
    return 0;
  const char *slash = strrchr (path, '/');
  char dir[4096];
  if (!slash)
    snprintf (dir, sizeof dir, ".");
  else
    snprintf (dir, sizeof dir, "%.*s",
              slash == path ? 1 : (int) (slash - path), path);
  if (stat (dir, &ds) != 0)
    return 1;
  if (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH))
    return 0;
  return ls.st_uid != geteuid () && ls.st_uid != ds.st_uid;
}

hi_status
hi_outfile_open (struct hi_outfile *o, const char *path)
{
  struct stat st;
  memset (o, 0, sizeof *o);
  hi_error_reset ();
  if (!path || !*path)
    return fail (o, ENOENT);
  if (untrusted_link (path))
    {
      clear (o);
      return hi_fail_text (HI_E_WRITE, "a symbolic link that another user "
                           "owns in a sticky directory: not followed");
    }
  int exists = stat (path, &st) == 0;
  if (exists && S_ISDIR (st.st_mode))
    return fail (o, EISDIR);
  /* A symbolic link stays a link: the regular file it names is
     replaced.  Anything else is opened through the link (/dev/stdout to
     a pipe names "pipe:[N]", which no path reaches). */
  int regular = exists && S_ISREG (st.st_mode);
  o->path = regular ? realpath (path, NULL) : strdup (path);
  if (!o->path)
    return fail (o, errno);
  int fd;
  if (exists && !regular)
    fd = open (o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  else
    fd = create_beside (o->path, &o->tmp);
  if (fd < 0)
    return fail (o, errno);
  /* A file replaced keeps its permissions. */
  if (exists && S_ISREG (st.st_mode))
    (void) fchmod (fd, st.st_mode & 07777);
  o->fd = fd;
  o->f = fopencookie (o, "w", (cookie_io_functions_t) {
                        .write = stream_write, .close = stream_close });
  if (!o->f)
    {
      int err = errno;
      close (fd);
      if (o->tmp)
        unlink (o->tmp);
      return fail (o, err);
    }
  return HI_OK;
}

hi_status
hi_outfile_commit (struct hi_outfile *o)
{
  if (!o->f)
    return hi_fail (HI_E_WRITE, EBADF);
  hi_error_reset ();
  int err = 0;
  if (fflush (o->f) != 0 || ferror (o->f))
    err = o->err ? o->err : EIO;
  /* Synced before the rename: after a crash the name holds the old file
     or the whole new one, never an empty one. */
  else if (o->tmp && fsync (o->fd) != 0)
    err = errno;
  if (fclose (o->f) != 0 && !err)
    err = errno;
  o->f = NULL;
  if (!err && o->tmp && rename (o->tmp, o->path) != 0)
    err = errno;
  if (err && o->tmp)
    unlink (o->tmp);
  if (err)
    return fail (o, err);
  clear (o);
  return HI_OK;
}

void
hi_outfile_abort (struct hi_outfile *o)
{
  if (o->f)
    fclose (o->f);
  if (o->tmp)
    unlink (o->tmp);
  clear (o);
}
