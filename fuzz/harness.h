/* harness.h - what every libFuzzer target of the reader shares: the input
   as a file, and every table, JSON and block lookup computed from it. */
#ifndef HI_FUZZ_HARNESS_H
#define HI_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hi-reader.h"

/* A memfd holding SIZE bytes of DATA; its name /proc/self/fd/N goes to
   PATH (room for 64 bytes).  The descriptor, or -1. */
int hi_fuzz_file (const uint8_t *data, size_t size, char *path);

/* Where the reports go: nowhere (/dev/null), but through stdio like the
   CLI's.  Aborts if it cannot be opened. */
FILE *hi_fuzz_sink (void);

/* Load the model from T, then print every table in text and JSON at
   each verbosity, `stat` alone, and look up blocks at addresses the
   root and the target's regions name.  Symbolization sees no module, so
   nothing outside the input is read.  Closes T. */
void hi_fuzz_target (struct hi_target *t);

#endif
