/* outfile-unit.c - unit tests of the atomic output file
   (reader/util/outfile.c): the name holds the old file or the whole new one, never a part; the
   temporary file never stays behind; symbolic links and devices are
   kept. */
#define _GNU_SOURCE
#include "hi-reader.h"
#include "unit-check.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/outfile-unit.XXXXXX";

static char *
in_dir (const char *name)
{
  static char buf[2][256];
  static int which;
  which = !which;
  snprintf (buf[which], sizeof buf[which], "%s/%s", dir, name);
  return buf[which];
}

/* The content of PATH (up to 255 bytes), or "<none>". */
static const char *
content (const char *path)
{
  static char buf[256];
  FILE *f = fopen (path, "r");
  if (!f)
    return "<none>";
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose (f);
  return buf;
}

static void
put (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");
  fputs (text, f);
  fclose (f);
}

/* How many entries DIR holds besides . and .. */
static int
entries (void)
{
  DIR *d = opendir (dir);
  int n = 0;
  for (struct dirent *e; (e = readdir (d)); )
    n += strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
  closedir (d);
  return n;
}

static void
test_new_and_replace (void)
{
  struct hi_outfile o;
  const char *p = in_dir ("new.txt");
  hi_status s = hi_outfile_open (&o, p);
  check (s == HI_OK && o.f, "outfile: a new file opens", "%s", hi_strerror (s));
  if (s != HI_OK)
    return;
  fputs ("hello\n", o.f);
  check (access (p, F_OK) != 0, "outfile: the name appears only at commit",
         "it exists before");
  s = hi_outfile_commit (&o);
  check (s == HI_OK && strcmp (content (p), "hello\n") == 0,
         "outfile: commit gives the whole file", "%s, '%s'", hi_strerror (s),
         content (p));
  check (entries () == 1, "outfile: no temporary file after commit",
         "%d entries", entries ());
  struct stat st;
  check (stat (p, &st) == 0 && (st.st_mode & 0777) == 0640,
         "outfile: mode 0666 less the umask", "mode %o", st.st_mode & 0777);

  chmod (p, 0604);
  s = hi_outfile_open (&o, p);
  fputs ("second\n", o.f);
  check (strcmp (content (p), "hello\n") == 0,
         "outfile: the old file stays until commit", "'%s'", content (p));
  s = hi_outfile_commit (&o);
  check (s == HI_OK && strcmp (content (p), "second\n") == 0,
         "outfile: commit replaces an existing file", "'%s'", content (p));
  check (stat (p, &st) == 0 && (st.st_mode & 0777) == 0604,
         "outfile: a replaced file keeps its mode", "mode %o",
         st.st_mode & 0777);

  s = hi_outfile_open (&o, p);
  fputs ("third\n", o.f);
  hi_outfile_abort (&o);
  hi_outfile_abort (&o);
  check (strcmp (content (p), "second\n") == 0 && entries () == 1,
         "outfile: abort leaves the old file and no temporary file",
         "'%s', %d entries", content (p), entries ());
  unlink (p);
}

/* A write that fails (the file size limit) fails the commit: the old
   file stays whole and the temporary file goes. */
static void
test_write_failure (void)
{
  struct hi_outfile o;
  const char *p = in_dir ("big.txt");
  put (p, "old\n");
  struct rlimit saved, small = { 4096, 4096 };
  getrlimit (RLIMIT_FSIZE, &saved);
  small.rlim_max = saved.rlim_max;
  signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &small);
  hi_status s = hi_outfile_open (&o, p);
  for (int i = 0; s == HI_OK && i < 1000; i++)
    fputs ("0123456789012345678901234567890123456789\n", o.f);
  if (s == HI_OK)
    s = hi_outfile_commit (&o);
  setrlimit (RLIMIT_FSIZE, &saved);
  check (s == HI_E_WRITE && strstr (hi_strerror (s), strerror (EFBIG)),
         "outfile: a failed write fails the commit, saying why", "%s",
         hi_strerror (s));
  check (strcmp (content (p), "old\n") == 0 && entries () == 1,
         "outfile: after a failed write the old file is whole, no temporary",
         "'%s', %d entries", content (p), entries ());
  unlink (p);
}

static void
test_refused (void)
{
  struct hi_outfile o;
  hi_status s = hi_outfile_open (&o, in_dir ("no/such/dir/x"));
  check (s == HI_E_WRITE && strstr (hi_strerror (s), strerror (ENOENT))
         && o.f == NULL, "outfile: a missing directory is refused, saying why",
         "%s", hi_strerror (s));
  s = hi_outfile_open (&o, dir);
  check (s == HI_E_WRITE && strstr (hi_strerror (s), strerror (EISDIR)),
         "outfile: a directory is refused, saying why", "%s", hi_strerror (s));
  s = hi_outfile_open (&o, "");
  check (s == HI_E_WRITE, "outfile: an empty name is refused", "%d", s);
  check (entries () == 0, "outfile: nothing created when refused",
         "%d entries", entries ());
}

static void
test_link_and_device (void)
{
  struct hi_outfile o;
  const char *target = in_dir ("target.txt"), *link = in_dir ("link.txt");
  put (target, "old\n");
  if (symlink ("target.txt", link) != 0)
    check (0, "outfile: a symbolic link stays a link", "symlink: %s",
           strerror (errno));
  hi_status s = hi_outfile_open (&o, link);
  if (s == HI_OK)
    {
      fputs ("new\n", o.f);
      s = hi_outfile_commit (&o);
    }
  struct stat st;
  check (s == HI_OK && lstat (link, &st) == 0 && S_ISLNK (st.st_mode)
         && strcmp (content (target), "new\n") == 0,
         "outfile: a symbolic link stays a link, its file replaced",
         "%s, '%s'", hi_strerror (s), content (target));
  unlink (link);
  unlink (target);

  s = hi_outfile_open (&o, "/dev/null");
  if (s == HI_OK)
    {
      fputs ("nothing\n", o.f);
      s = hi_outfile_commit (&o);
    }
  check (s == HI_OK && stat ("/dev/null", &st) == 0 && S_ISCHR (st.st_mode),
         "outfile: a device is written in place, never replaced", "%s",
         hi_strerror (s));
}

int
main (void)
{
  if (!mkdtemp (dir))
    {
      perror ("mkdtemp");
      return 1;
    }
  umask (027);
  test_new_and_replace ();
  test_write_failure ();
  test_refused ();
  test_link_and_device ();
  rmdir (dir);
  return failed;
}
