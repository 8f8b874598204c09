/* unit-check.h - the one check helper of the C unit tests: prints
   "PASS: name" or "FAIL: name: why" (the .exp files turn them into
   DejaGnu results) and remembers a failure for the exit status. */
#ifndef HI_UNIT_CHECK_H
#define HI_UNIT_CHECK_H

#include <stdarg.h>
#include <stdio.h>

/* Set once any check failed: main returns it as its exit status. */
static int failed;

static void check (int ok, const char *name, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4), unused));

/* Reports check NAME: passed if OK, else failed, with FMT's explanation. */
static void
check (int ok, const char *name, const char *fmt, ...)
{
  if (ok)
    {
      printf ("PASS: %s\n", name);
      return;
    }
  failed = 1;
  printf ("FAIL: %s: ", name);
  va_list ap;
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
}

#endif
