/* channel.c - the channel and the map file: files with no name (a
   memfd, or an unlinked file in a private directory) that gdb holds open
   at HI_GDB_CHANNEL_FD and HI_GDB_MAPS_FD, reached by heap-run.gdb as
   /proc/self/fd/N.  A heap command writes its request into the channel
   (protocol.h), and heap lost and heap block gdb's memory map into the
   map file; the plugin replaces the request with the answer as gdb
   `echo` commands, which heap-run.gdb `source`s, so paging, logging and
   `pipe` see it. */
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
#define MAPS_FD HI_GDB_MAPS_FD

/* 1 if FD is a file an earlier load of ours opened: a memfd named NAME,
   or an unlinked file .../heapinspect-gdb.XXXXXX/..., regular, of our
   user, mode 0600. */
static int
is_ours (int fd, const char *name)
{
  char link[64], target[4200], memfd[128];
  struct stat st;
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  snprintf (memfd, sizeof memfd, "/memfd:%s ", name);
  ssize_t n = readlink (link, target, sizeof target - 1);
  if (n <= 0 || fstat (fd, &st) != 0)
    return 0;
  target[n] = '\0';
  return S_ISREG (st.st_mode) && st.st_uid == getuid () && st.st_nlink == 0
         && (st.st_mode & 0777) == 0600
         && (strncmp (target, memfd, strlen (memfd)) == 0
             || strstr (target, "/heapinspect-gdb.") != NULL);
}

/* A new nameless file: a memfd named NAME, else an unlinked file in a
   private directory under $TMPDIR or /tmp.  -1 with a reason in WHY. */
static int
new_file (const char *name, char *why, size_t why_size)
{
  int fd = memfd_create (name, MFD_CLOEXEC);
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
      snprintf (path, sizeof path, "%s/%s", dir, name);
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

/* Have our file NAME at descriptor FD: 0, or -1 with why not in WHY. */
static int
have_file (int fd, const char *name, char *why, size_t why_size)
{
  if (fcntl (fd, F_GETFD) != -1)
    {
      if (is_ours (fd, name))
        return 0;
      snprintf (why, why_size, "descriptor %d is already open in gdb, on "
                "something else", fd);
      return -1;
    }
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= (rlim_t) fd)
    {
      /* gdb raises its own soft limit to the hard one at start. */
      snprintf (why, why_size, "gdb may open at most %llu files (ulimit -n),"
                " and it needs descriptor %d", (unsigned long long) rl.rlim_cur,
                fd);
      return -1;
    }
  int nf = new_file (name, why, why_size);
  if (nf < 0)
    return -1;
  int r = dup3 (nf, fd, O_CLOEXEC);
  int err = errno;
  close (nf);
  if (r != fd)
    {
      snprintf (why, why_size, "cannot use descriptor %d: %s", fd,
                strerror (err));
      return -1;
    }
  return 0;
}

int
hi_gdb_channel_open (char *why, size_t why_size)
{
  if (have_file (CHANNEL_FD, "heapinspect-gdb-channel", why, why_size) != 0
      || have_file (MAPS_FD, "heapinspect-gdb-maps", why, why_size) != 0)
    return -1;
  return 0;
}

/* The commands that stop a failed heap command as a gdb error, after
   its lines: SIGINT to gdb (which its handler makes a "Quit" at the next
   check, `while`).  Sent by a shell, while gdb waits for it: never in
   the midst of gdb's work, which a Quit could leave half done. */
static void
quit_script (FILE *out)
{
  fprintf (out, "shell kill -INT %d\nwhile 0\nend\n", (int) getpid ());
}

int
hi_gdb_channel_quit (void)
{
  char head[sizeof HI_GDB_QUIT_TAG - 1];
  if (pread (CHANNEL_FD, head, sizeof head, 0) != (ssize_t) sizeof head
      || memcmp (head, HI_GDB_QUIT_TAG, sizeof head) != 0)
    return 0;
  char script[128];
  FILE *out = fmemopen (script, sizeof script, "w");
  if (!out)
    return 0;
  quit_script (out);
  long n = ftell (out);
  fclose (out);
  if (ftruncate (CHANNEL_FD, 0) != 0 || n <= 0
      || pwrite (CHANNEL_FD, script, (size_t) n, 0) != (ssize_t) n)
    return 0;
  return 1;
}

/* The text of the file at FD (malloc'd, NUL-terminated with room for
   it, *LEN bytes), or NULL if it is empty or cannot be read; with
   EMPTY, the file is emptied (read once). */
static char *
file_text (int fd, size_t *len, int empty)
{
  struct stat st;
  *len = 0;
  if (fstat (fd, &st) != 0 || st.st_size <= 0
      || st.st_size > (off_t) (64u << 20))
    return NULL;
  char *text = malloc ((size_t) st.st_size + 1);
  ssize_t n = text ? pread (fd, text, (size_t) st.st_size, 0) : -1;
  if ((empty && ftruncate (fd, 0) != 0) || n <= 0)
    {
      free (text);
      return NULL;
    }
  text[n] = '\0';
  *len = (size_t) n;
  return text;
}

static char *
channel_text (size_t *len)
{
  return file_text (CHANNEL_FD, len, 0);
}

int
hi_gdb_channel_request (char **text, struct hi_gdb_request *r)
{
  size_t n;
  *text = channel_text (&n);
  if (!*text || hi_gdb_request_parse (*text, n, r) != 0)
    {
      free (*text);
      *text = NULL;
      return -1;
    }
  return 0;
}

int
hi_gdb_channel_glibc (void)
{
  size_t n;
  char *text = channel_text (&n);
  int glibc = text && strncmp (text, HI_GDB_REQUEST_TAG,
                               strlen (HI_GDB_REQUEST_TAG)) == 0
              && memmem (text, n, "\n" HI_GDB_GLIBC_TAG,
                         strlen (HI_GDB_GLIBC_TAG) + 1) != NULL;
  free (text);
  return glibc;
}

char *
hi_gdb_channel_maps (size_t *len)
{
  /* Read once: a later command that gives none finds none. */
  return file_text (MAPS_FD, len, 1);
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

char *hi_gdb_answer_script;

void
hi_gdb_channel_answer (const char *text, size_t len, int failed)
{
  char *script = NULL;
  size_t script_len = 0;
  char *commands = hi_gdb_answer_script;
  hi_gdb_answer_script = NULL;
  FILE *out = open_memstream (&script, &script_len);
  if (!out)
    {
      free (commands);
      return;
    }
  as_echo_script (text, len, out);
  fputs (HI_GDB_ANSWERED "\n", out);
  /* After the flag: should one of them fail, gdb stops with its error. */
  if (commands && !failed)
    fputs (commands, out);
  free (commands);
  if (failed)
    quit_script (out);
  fclose (out);
  if (ftruncate (CHANNEL_FD, 0) != 0
      || pwrite (CHANNEL_FD, script, script_len, 0) != (ssize_t) script_len)
    fprintf (stderr, "heap: cannot write the answer: %s\n", strerror (errno));
  free (script);
}
