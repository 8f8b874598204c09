/* options.h - the report options' defaults and limits: one definition
   for heapinspect(1) and the gdb plugin, so `heap leaks` and
   `heapinspect -t leaks` print the same table unless told otherwise. */
#ifndef HI_OPTIONS_H
#define HI_OPTIONS_H

#include "analysis/analysis.h"

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
    .module = NULL, .suppressions = NULL, .default_suppressions = 1, \
    .weight = HI_WEIGHT_INUSE_SPACE }

/* The report options of heapinspect(1) and of the heap commands in gdb,
   one list for both: X (ID, NAME, TAKES_VALUE) per option, NAME without
   its "--".  The CLI makes its getopt_long table of it; the plugin looks
   its words up in it. */
#define HI_REPORT_OPTIONS(X) \
  X (DEPTH, "depth", 1) X (OFFSETS, "offsets", 0) X (TERSE, "terse", 0) \
  X (VERBOSE, "verbose", 0) X (FORMAT, "format", 1) \
  X (THRESHOLD, "threshold", 1) X (LIMIT, "limit", 1) X (BYTES, "bytes", 0) \
  X (LONG_NAMES, "long-names", 0) X (NO_LINES, "no-lines", 0) \
  X (FOCUS, "focus", 1) X (IGNORE, "ignore", 1) X (MODULE, "module", 1) \
  X (SUPPRESSIONS, "suppressions", 1) \
  X (NO_DEFAULT_SUPPRESSIONS, "no-default-suppressions", 0) \
  X (WEIGHT, "weight", 1)

enum hi_report_option
{
#define HI_X_ENUM(id, name, value) HI_ROPT_##id,
  HI_REPORT_OPTIONS (HI_X_ENUM)
#undef HI_X_ENUM
  HI_N_REPORT_OPTIONS
};

/* Name (without "--") of report option ID, or NULL if ID is none. */
const char *hi_option_name (int id);

/* The report option named by the LEN bytes at NAME (without "--"): its
   id, spelt in full or as a prefix of one option only (getopt_long's
   rule); -1 if it names none, -2 if several.  *TAKES_VALUE, if not NULL,
   gets 1 for an option that takes a value.  Thread-safe. */
int hi_option_find (const char *name, size_t len, int *takes_value);

/* Set report option NAME (its full name, without "--") of O to VALUE
   (NULL for an option that takes none).  The one parser of the report
   options: heapinspect(1) and the gdb plugin give it the same words, so
   they accept and refuse the same values.  Numbers are decimal digits
   only (no sign, no 0x); --threshold is a percentage with at most 3
   decimals, stored in thousandths of a percent.  VALUE is kept, not
   copied, by --focus, --ignore, --module and --suppressions: it must
   outlive O.  Whether a regular expression compiles or a file can be
   read is not checked here.  Returns 0, or -1 with one line saying what
   to give instead in ERR (ERRSIZE bytes, without the program's name and
   without a newline), O unchanged.  Thread-safe. */
int hi_option_set (struct hi_options *o, const char *name, const char *value,
                   char *err, size_t errsize);

/* Remove the shell's quoting from WORD, in place: 'x' keeps x as it is,
   "x" keeps x but for \ before one of \ " $ `, and outside quotes \c is
   c.  gdb hands a user command its words with their quotes, so `heap
   leaks --focus='a b'` gives the regular expression `a b`, as the shell
   gives it to heapinspect(1).  0; -1 if a quote is not closed, -2 if the
   word ends with a lone \ (WORD is then undefined).  Thread-safe. */
int hi_unquote (char *word);

#endif
