/* output-name.h - expansion of the HEAPINSPECT_OUTPUT file-name pattern,
   shared by the monitor and `heapinspect run`. */
#ifndef HI_OUTPUT_NAME_H
#define HI_OUTPUT_NAME_H

#include <stddef.h>

/* Expands PATTERN (HEAPINSPECT_OUTPUT syntax) for process PID into DST of
   CAP bytes, NUL-terminated. Returns the length written, or -1 when the
   result (with its NUL) does not fit in CAP or PATTERN is invalid; DST is
   then an empty string. Pure: no malloc, no stdio, async-signal-safe.

   Syntax: `%p` is PID in decimal, `%%` is one `%`; every other byte is
   copied.  Invalid: a NULL or empty PATTERN, a `%` followed by anything
   else or by the end of the pattern. */
int hi_expand_output (char *dst, size_t cap, const char *pattern, long pid);

#endif
