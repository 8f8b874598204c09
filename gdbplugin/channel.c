/* channel.c - the channel: the file with no name (a memfd, or an
   unlinked file in a private directory) that gdb holds open at
   HI_GDB_CHANNEL_FD, reached by heap.gdb as /proc/self/fd/N.  A heap
   command writes its request there (protocol.h); the plugin replaces it
   with the answer as gdb `echo` commands, which heap.gdb `source`s, so
   paging, logging and `pipe` see it. */
#define _GNU_SOURCE
#include "plugin.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHANNEL_FD HI_GDB_CHANNEL_FD
#define CHANNEL_NAME "heapinspect-gdb-channel"

/* 1 if CHANNEL_FD is the channel an earlier load of ours opened: a memfd
   named CHANNEL_NAME, or an unlinked file .../heapinspect-gdb.XXXXXX/...,
   regular, of our user, mode 0600. */
static int
is_our_channel (void)
{
  char link[64], target[4200];
  struct stat st;
  snprintf (link, sizeof link, "/proc/self/fd/%d", CHANNEL_FD);
  ssize_t n = readlink (link, target, sizeof target - 1);
  if (n <= 0 || fstat (CHANNEL_FD, &st) != 0)
    return 0;
  target[n] = '\0';
  return S_ISREG (st.st_mode) && st.st_uid == getuid () && st.st_nlink == 0
         && (st.st_mode & 0777) == 0600
         && (strncmp (target, "/memfd:" CHANNEL_NAME " ", 8 + strlen (CHANNEL_NAME)) == 0
             || strstr (target, "/heapinspect-gdb.") != NULL);
}

/* A new nameless file: a memfd, else an unlinked file in a private
   directory under $TMPDIR or /tmp.  -1 with a reason in WHY. */
static int
new_channel_file (char *why, size_t why_size)
{
  int fd = memfd_create (CHANNEL_NAME, MFD_CLOEXEC);
  if (fd >= 0)
    {
      if (fchmod (fd, 0600) == 0)
        return fd;
      close (fd);
    }
  const char *tmp = getenv ("TMPDIR");
  const char *dirs[] = { tmp && *tmp ? tmp : "/tmp", "/tmp" };
  for (int i = 0; i < 2; i++)
    {
      char dir[4096], path[4200];
      snprintf (dir, sizeof dir, "%s/heapinspect-gdb.XXXXXX", dirs[i]);
      if (!mkdtemp (dir))
        {
          snprintf (why, why_size, "cannot create a directory in %.300s: %s",
                    dirs[i], strerror (errno));
          continue;
        }
      snprintf (path, sizeof path, "%s/channel", dir);
      fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0600);
      if (fd < 0)
        snprintf (why, why_size, "cannot create a file in %.300s: %s", dir,
                  strerror (errno));
      else
        unlink (path);
      rmdir (dir);
      if (fd >= 0)
        return fd;
    }
  return -1;
}

int
hi_gdb_channel_open (char *why, size_t why_size)
{
  if (fcntl (CHANNEL_FD, F_GETFD) != -1)
    {
      if (is_our_channel ())
        return 0;
      snprintf (why, why_size, "descriptor %d is already open in gdb, on "
                "something else", CHANNEL_FD);
      return -1;
    }
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= CHANNEL_FD)
    {
      /* gdb raises its own soft limit to the hard one at start. */
      snprintf (why, why_size, "gdb may open at most %llu files (ulimit -n),"
                " and it needs descriptor %d", (unsigned long long) rl.rlim_cur,
                CHANNEL_FD);
      return -1;
    }
  int fd = new_channel_file (why, why_size);
  if (fd < 0)
    return -1;
  int r = dup3 (fd, CHANNEL_FD, O_CLOEXEC);
  int err = errno;
  close (fd);
  if (r != CHANNEL_FD)
    {
      snprintf (why, why_size, "cannot use descriptor %d: %s", CHANNEL_FD,
                strerror (err));
      return -1;
    }
  return 0;
}

int
hi_gdb_channel_request (char *text, size_t size, struct hi_gdb_request *r)
{
  char more;
  ssize_t n = pread (CHANNEL_FD, text, size - 1, 0);
  if (n <= 0 || hi_gdb_request_parse (text, (size_t) n, r) != 0)
    return -1;
  if ((size_t) n == size - 1 && pread (CHANNEL_FD, &more, 1, n) == 1)
    snprintf (r->error, sizeof r->error, "heap: the words after heap %s "
              "are too long", r->name);
  return 0;
}

/* TEXT as gdb commands that print it: `echo` with escapes, one a line. */
static void
as_echo_script (const char *text, size_t len, FILE *out)
{
  const char *p = text, *end = text + len;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      const char *stop = nl ? nl : end;
      fputs ("echo ", out);
      for (const char *c = p; c < stop; c++)
        {
          if (*c == '\\' || (c == p && (*c == ' ' || *c == '\t')))
            fputc ('\\', out);
          fputc (*c, out);
        }
      fputs (nl ? "\\n\n" : "\n", out);
      p = nl ? nl + 1 : end;
    }
}

void
hi_gdb_channel_answer (const char *text, size_t len)
{
  char *script = NULL;
  size_t script_len = 0;
  FILE *out = open_memstream (&script, &script_len);
  if (!out)
    return;
  as_echo_script (text, len, out);
  fclose (out);
  if (ftruncate (CHANNEL_FD, 0) != 0
      || pwrite (CHANNEL_FD, script, script_len, 0) != (ssize_t) script_len)
    fprintf (stderr, "heap: cannot write the answer: %s\n", strerror (errno));
  free (script);
}
