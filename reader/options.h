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

/* The threshold when none is given and the verbosity is normal, in
   thousandths of a percent. */
#define HI_OPT_THRESHOLD_DEFAULT 500

/* opt.limit when no --limit was given: each table's own default (the
   call graph's top entries by verbosity; the others none).  --limit=0 is
   no limit. */
#define HI_OPT_LIMIT_AUTO UINT32_MAX

/* A struct hi_options initializer with every default: depth, no
   offsets, normal verbosity (threshold by verbosity), text, human units,
   short names, file:line, no filters, the built-in suppressions. */
#define HI_OPTIONS_DEFAULT \
  { .depth = HI_OPT_DEPTH_DEFAULT, .offsets = 0, .verbosity = HI_NORMAL, \
    .format = HI_TEXT, .threshold = -1, .limit = HI_OPT_LIMIT_AUTO, .exact_bytes = 0, \
    .long_names = 0, .lines = 1, .focus = NULL, .ignore = NULL, \
    .module = NULL, .suppressions = NULL, .default_suppressions = 1 }

#endif
