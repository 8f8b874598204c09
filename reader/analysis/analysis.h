/* analysis.h - the model's chains as function names (symbolized,
   trimmed, filtered), and which rows the options show. */
#ifndef HI_ANALYSIS_H
#define HI_ANALYSIS_H

#include "hi-reader.h"
#include "model/model.h"
#include "util/strtab.h"
#include "symbols/symbolize.h"
#include "report/rmodel.h"

/* Per site, sums over size classes. */
struct hi_site_sum
{
  uint64_t allocs, frees, bytes, freed;
};

/* One frame of a chain as the tables show it.  A return address gives
   one frame, or several when code was inlined there (innermost first in
   the symbolizer, outermost first in a chain).  Frames are shared: every
   chain through a call site uses the same frame ids. */
#define HI_FRAME_CUT 0u        /* frame 0: callers cut at the depth cap */
#define HI_NONE UINT32_MAX     /* no string */
struct hi_frame
{
  uint32_t func;             /* id in funcs: the name tables group by */
  uint32_t label;            /* id in labels: the name in leak paths */
  uint32_t module;           /* id in strs: module base name, or HI_NONE */
  uint32_t file;             /* id in strs: source file, or HI_NONE */
  uint32_t line;             /* source line, 0 if unknown */
  uint32_t inlined;          /* 1: inlined into the next outer frame */
  uint64_t offset;           /* from the function's start (or module's) */
  uint32_t name;             /* id in strs: the name shown, without the
                                " (module)" func adds when two modules
                                share it (JSON's function); HI_NONE for
                                the cut frame */
  uint32_t long_name;        /* id in strs: the full demangled name (what
                                suppressions match), HI_NONE as NAME */
  uint32_t system_name;      /* id in strs: the symbol as the module
                                names it (mangled), HI_NONE if unknown */
  uint32_t symbolized;       /* 1: named by a symbol (not module+0x...) */
  uint64_t address;          /* the return address this frame is for
                                (every frame of one address has it); 0
                                for the cut frame */
};

struct hi_analysis
{
  const struct hi_model *m;
  struct hi_symbolizer *sym;
  struct hi_options opt;
  struct hi_strtab funcs;    /* function names: the graph's and direct's */
  struct hi_strtab labels;   /* leak-path labels: names, or name+0xOFF */
  struct hi_strtab strs;     /* modules and files */
  struct hi_frame *frames;   /* frame 0 is HI_FRAME_CUT */
  uint32_t n_frames, frames_cap;
  /* Per site: its chain of frame ids, outermost first, trimmed to main;
     a chain the monitor cut at its depth cap starts with HI_FRAME_CUT. */
  uint32_t *chain_start;     /* n_sites + 1 offsets into chain_frames */
  uint32_t *chain_frames;
  struct hi_site_sum *sum;   /* per site */
  /* Per site: HI_SITE_* bits from the filters and suppressions, or NULL
     when none apply. */
  uint8_t *site_flags;
  /* Lines of other sanitizers' kinds (race:, called_from_lib:, ...) the
     --suppressions file held, skipped: for the summary's problems. */
  uint32_t suppress_ignored;
  uint64_t total_allocs, total_bytes, total_frees, total_freed;
  /* The client API's types (hi_types_ready): one entry per name, and per
     type record of the model its entry (UINT32_MAX: none). */
  struct hi_type_sum *types;
  uint32_t n_types;
  uint32_t *type_of_rec;
  int types_done;
};

/* One type as the tables show it: blocks given the type, summed over
   the type records of that name. */
struct hi_type_sum
{
  const char *name;          /* owned by the analysis (labels) */
  uint64_t elem_size;        /* sizeof the type, 0 if not known */
  uint64_t allocs, bytes, frees, freed;
};

/* Name and sum A's types (once): HI_OK or HI_E_NOMEM. */
hi_status hi_types_ready (struct hi_analysis *a);
/* A's type pairs (format.h) grouped by a key: their size bin (BY_BIN),
   else ROW_OF[their site] (ROW_OF NULL: their site); keys N_KEYS and
   above are left out.  *START (N_KEYS + 2 entries) and *LIST are new
   arrays: key K's pair record indexes are LIST[START[K], START[K + 1]).
   HI_OK or HI_E_NOMEM. */
hi_status hi_types_group (struct hi_analysis *a, const uint32_t *row_of,
                          int by_bin, uint32_t n_keys, uint32_t **start,
                          uint32_t **list);
/* The types of the N pair records RECS, joined by ", ", most bytes
   first, into BUF of SIZE bytes; "" if none. */
void hi_types_join (struct hi_analysis *a, const uint32_t *recs, size_t n,
                    char *buf, size_t size);
#define HI_ANY_SITE UINT64_MAX

/* Site flags: left out of every table by --focus, --ignore or --module;
   left out of the leak table by the user's suppressions, or by the
   built-in list (both counted there, never silently). */
#define HI_SITE_FILTERED 1u
#define HI_SITE_SUPPRESSED 2u
#define HI_SITE_SUPPRESSED_DEFAULT 4u

static inline unsigned
hi_site_flags (const struct hi_analysis *a, uint64_t s)
{
  return a->site_flags ? a->site_flags[s] : 0;
}

/* Frame id I of A's chain list (chain_frames[I]) as a record. */
static inline const struct hi_frame *
hi_chain_frame (const struct hi_analysis *a, uint32_t i)
{
  return &a->frames[a->chain_frames[i]];
}

/* Symbolize and trim the chains of M.  SYM and M must outlive A. */
hi_status hi_analysis_init (struct hi_analysis *a, const struct hi_model *m,
                            struct hi_symbolizer *sym,
                            const struct hi_options *opt);
void hi_analysis_free (struct hi_analysis *a);

/* The labels the leak path of site S shows: chain_frames[*FROM, *TO), its
   last opt.depth nodes.  Returns 1 if callers were cut (here, or by the
   monitor's depth cap): the path starts with "...".  The one definition
   of a leak path: the leak table's rows and hi_site_path both use it. */
int hi_path_span (const struct hi_analysis *a, uint64_t s, uint32_t *from,
                  uint32_t *to);
/* The leak-path text of site S: its last opt.depth labels, outermost
   first, "... > " when callers were cut. */
void hi_site_path (struct hi_analysis *a, uint64_t s, char *buf, size_t size);

/* The threshold in effect, in thousandths of a percent: the option's,
   or the verbosity's (terse 1%, normal 0.5%, verbose 0). */
int32_t hi_threshold (const struct hi_options *o);
/* Whether a row of PART of WHOLE reaches the threshold (PART 0 never). */
int hi_shown (const struct hi_options *o, uint64_t part, uint64_t whole);
/* The rows mprof's flat tables (leaks, bins, direct) show at most: the
   --limit given, else a page's worth, HI_PAGE_ROWS (half with --terse),
   so that the default report stays readable; with --verbose or a
   --threshold given, every row that reaches the threshold (0: no
   limit).  The call graph has its own, by entries. */
#define HI_PAGE_ROWS 20
uint32_t hi_page_rows (const struct hi_options *o);
/* Whether the next row of T is shown: not if below the threshold
   (ABOVE_THRESHOLD 0) or past --limit (*N_SHOWN rows shown so far; no
   limit for HI_OPT_LIMIT_AUTO); each row left out is counted in T. */
int hi_keep_row (const struct hi_options *o, struct hi_table *t,
                 uint64_t *n_shown, int above_threshold);

/* The frames of site S's leak path (hi_path_span, "..." first when cut)
   appended to R: a PATH cell for them. */
struct hi_cell hi_path_cell (struct hi_analysis *a, uint64_t s,
                             struct hi_rmodel *r);
/* Frame F of A as a report frame, its label as the function's name. */
/* Frame F of A as a report frame, its label as the function's name. */
struct hi_rframe hi_report_frame (const struct hi_analysis *a, uint32_t f);

/* Where functions allocated in the source: the lines of the calls that
   end their chains (none with --no-lines, none for filtered chains). */
struct hi_where;
struct hi_where *hi_where_new (const struct hi_analysis *a);
void hi_where_free (struct hi_where *w);
/* Function FUNC's name, then its places: "make_widget (widget.c:17, 23)"
   (at most four, then "..."; file base names), into OUT. */
void hi_where_name (const struct hi_analysis *a, const struct hi_where *w,
                    uint32_t func, char *out, size_t size);
/* Function FUNC's name without " (module)" (its frames carry the
   module). */
const char *hi_where_bare_name (const struct hi_analysis *a,
                                const struct hi_where *w, uint32_t func);
/* Function FUNC's places as frames of R (function, module, file, line;
   one frame without a line when none is known): for JSON. */
struct hi_cell hi_where_cell (const struct hi_analysis *a,
                              const struct hi_where *w, uint32_t func,
                              struct hi_rmodel *r);

#endif
