/* report.h - test programs' output without stdio buffers (which would
   allocate and disturb exact counts), and snapshots at chosen points. */
#ifndef HI_TEST_REPORT_H
#define HI_TEST_REPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "heapinspect/heapinspect.h"

static inline void
say (const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  if (n > 0 && write (1, buf, (size_t) n) != n)
    _exit (3);
}

/* Write snapshot NAME in $HI_SNAPDIR (or the working directory). */
static inline void
snap (const char *name)
{
  char path[512];
  const char *dir = getenv ("HI_SNAPDIR");
  snprintf (path, sizeof path, "%s/%s", dir ? dir : ".", name);
  if (!heapinspect_snapshot || heapinspect_snapshot (path) != 0)
    {
      say ("snapshot %s failed\n", path);
      _exit (4);
    }
}

#endif
