/* errors.c - messages of hi_status, with the details of the last
   failure; and opening a file an input names, safely. */
#define _GNU_SOURCE
#include "util/errors.h"
#include "hi-reader.h"
#include "util/errors.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static _Thread_local struct
{
  hi_status s;
  int err;
  uint64_t missing;
  char text[400];            /* a detail given as text, or "" */
  char buf[512];
} last;

hi_status
hi_fail (hi_status s, int err)
{
  last.s = s;
  last.err = err;
  last.missing = 0;
  last.text[0] = '\0';
  return s;
}

hi_status
hi_fail_text (hi_status s, const char *fmt, ...)
{
  last.s = s;
  last.err = 0;
  last.missing = 0;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (last.text, sizeof last.text, fmt, ap);
  va_end (ap);
  return s;
}

hi_status
hi_fail_missing (hi_status s, uint64_t missing)
{
  last.s = s;
  last.err = 0;
  last.missing = missing;
  last.text[0] = '\0';
  return s;
}

void
hi_error_reset (void)
{
  last.s = HI_OK;
  last.err = 0;
  last.missing = 0;
  last.text[0] = '\0';
}

static char usage[320];

static void
make_usage (void)
{
#define HI_X_NAME(id, name, build, names) name,
  static const char *const names[] = { HI_TABLES (HI_X_NAME) };
#undef HI_X_NAME
  char list[256];
  hi_join_names (names, sizeof names / sizeof *names, " or ", list,
                 sizeof list);
  snprintf (usage, sizeof usage, "unknown table: use %s", list);
}

/* HI_E_USAGE's message names the tables of the registry. */
static const char *
usage_message (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, make_usage);
  return usage;
}

const char *
hi_strerror (hi_status s)
{
#define HI_ERROR_MSG(name, msg) msg,
  static const char *const msgs[] = { HI_ERRORS (HI_ERROR_MSG) };
#undef HI_ERROR_MSG
  if ((unsigned) s >= HI_NSTATUS)
    return "unknown error";
  if (s == HI_E_USAGE && (s != last.s || !last.text[0]))
    return usage_message ();
  if (s == HI_OK || s != last.s
      || (!last.err && !last.missing && !last.text[0]))
    return msgs[s];
  if (last.text[0])
    snprintf (last.buf, sizeof last.buf, "%s: %s", msgs[s], last.text);
  else if (last.missing)
    snprintf (last.buf, sizeof last.buf, "%s: %" PRIu64 " bytes missing",
              msgs[s], last.missing);
  else if (last.err == EINVAL)
    snprintf (last.buf, sizeof last.buf, "%s: not a regular file", msgs[s]);
  else
    snprintf (last.buf, sizeof last.buf, "%s: %s", msgs[s],
              strerror (last.err));
  return last.buf;
}

int
hi_open_regular (const char *path)
{
  /* stat first, so that a device is never opened (opening some has
     effects); then check the file actually opened. */
  struct stat st;
  if (stat (path, &st) != 0)
    return -1;
  if (!S_ISREG (st.st_mode))
    {
      errno = EINVAL;
      return -1;
    }
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      errno = EINVAL;
      return -1;
    }
  return fd;
}
