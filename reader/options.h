/* options.h - the report options' defaults and limits: one definition
   for heapinspect(1) and the gdb plugin, so `heap leaks` and
   `heapinspect -t leaks` print the same table unless told otherwise. */
#ifndef HI_OPTIONS_H
#define HI_OPTIONS_H

#include "analysis.h"

/* Functions shown in a leak path (--depth, `heap leaks N`). */
#define HI_OPT_DEPTH_DEFAULT 5
#define HI_OPT_DEPTH_MAX 10000

/* The tables printed when none are named (-t). */
#define HI_OPT_TABLES_DEFAULT "leaks,bins,direct,graph"

/* A struct hi_options initializer with every default: depth, no
   offsets, normal verbosity (rows of at least 0.5%), text. */
#define HI_OPTIONS_DEFAULT \
  { HI_OPT_DEPTH_DEFAULT, 0, HI_NORMAL, HI_TEXT }

#endif
