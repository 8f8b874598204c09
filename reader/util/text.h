/* text.h - numbers and strings as the reports write them. */
#ifndef HI_TEXT_H
#define HI_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "  " for 0, " ." under 1%, "**" for all, else the percent: mprof's
   two-character fields.  OUT has room for 3 bytes.  Never overflows. */
void hi_pct2 (char *out, uint64_t part, uint64_t whole);

/* BYTES in human units into OUT (at least 16 bytes): "0", "512", "1.0K",
   "55.3M", "2.0G" (powers of 1024, one decimal). */
void hi_human_bytes (uint64_t bytes, char *out, size_t size);

/* Write S as a JSON string. */
void hi_json_string (FILE *f, const char *s);
/* NAMES[0..N) joined by ", ", LAST before the last one (", " or " or "),
   into OUT of SIZE bytes (cut if too long). */
void hi_join_names (const char *const *names, size_t n, const char *last,
                    char *out, size_t size);

#endif
