/* errors.h - for the reader's own files: failing with a detail that
   hi_strerror then gives. */
#ifndef HI_ERRORS_H
#define HI_ERRORS_H

#include "hi-reader.h"

/* For the reader's own files: return S, recording ERR (an errno value,
   or 0) as its detail; hi_fail_missing records MISSING bytes instead;
   hi_error_reset forgets the detail (at the start of each public entry
   point, so no detail outlives its call). */
hi_status hi_fail (hi_status s, int err);
hi_status hi_fail_missing (hi_status s, uint64_t missing);
/* Return S, recording the text of FMT as its detail ("FILE:3: not a
   leak:PATTERN line"): hi_strerror gives "message: text". */
hi_status hi_fail_text (hi_status s, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
void hi_error_reset (void);

#endif
