/* analysis.h - the model's chains as function names, and mprof's tables
   computed from them.  One implementation, used by heapinspect(1) and the
   gdb plugin. */
#ifndef HI_ANALYSIS_H
#define HI_ANALYSIS_H

#include "hi-reader.h"
#include "util/strtab.h"
#include "symbols/symbolize.h"
#include "report/rmodel.h"

enum hi_verbosity { HI_TERSE, HI_NORMAL, HI_VERBOSE };
/* --format: the tables as text or JSON, or the chains as a profile
   (pprof's protobuf, gperftools' heap text, collapsed stacks, an SVG
   flame graph), which ignore -t; or the timeline as valgrind massif's
   massif.out, which ignores -t too.  An SVG of -t timeline alone is the
   stacked timeline, not the flame graph. */
enum hi_format { HI_TEXT, HI_JSON, HI_PPROF, HI_PPROF_TEXT, HI_FOLDED, HI_SVG,
                 HI_MASSIF };

/* Whether format F writes the chains (samples), not tables. */
static inline int
hi_format_samples (enum hi_format f)
{
  return f >= HI_PPROF && f <= HI_SVG;
}

struct hi_options
{
  int depth;                 /* functions in a leak path; default 5 */
  int offsets;               /* leak paths tell call sites apart */
  enum hi_verbosity verbosity;
  enum hi_format format;
  /* Rows under this share of their table's whole are hidden, in
     thousandths of a percent (500 = 0.5%); -1: by verbosity (terse 1%,
     normal 0.5%, verbose none). */
  int32_t threshold;
  uint32_t limit;            /* rows per table; 0: no limit */
  int exact_bytes;           /* --bytes: exact figures, not 1.2M */
  int long_names;            /* --long-names: C++ names in full */
  int lines;                 /* file:line in frames (0: --no-lines) */
  const char *focus;         /* --focus=RE: only chains with a frame matching */
  const char *ignore;        /* --ignore=RE: no chain with a frame matching */
  const char *module;        /* --module=NAME: only chains through it */
  const char *suppressions;  /* --suppressions=FILE (LSan's leak:PATTERN) */
  int default_suppressions;  /* the built-in list (0: --no-default-suppressions) */
  enum hi_weight weight;     /* --weight: folded and SVG's figure */
  int tables_given;          /* -t was given: the default tables are not
                                led by the errors table (hi_report) */
  int gdb;                   /* the report is for gdb's heap commands: its
                                hints name them (`heap errors`), not
                                heapinspect(1)'s options */
};

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

/* A block handed out by the monitor, found from its header. */
struct hi_block
{
  uint64_t start;            /* the user pointer; 0: none */
  uint64_t size;             /* requested bytes */
  uint32_t site;
  int freed;                 /* its header says it was freed */
  int quarantined;           /* ... and is held in the quarantine */
  int aligned;               /* HI_BLOCK_ALIGNED */
  uint32_t type;             /* the client API's type record (format.h's
                                HI_BLOCK_TYPE_MASK), 0: none */
};

/* What an address is (hi_block_classify). */
enum hi_block_state
{
  HI_BLOCK_NONE,             /* in no block: see where */
  HI_BLOCK_LIVE,             /* in a live block's bytes */
  HI_BLOCK_QUARANTINED,      /* in a freed block held in the quarantine */
  HI_BLOCK_FREED,            /* in a freed block given back to malloc (its
                                header still says so) */
  HI_BLOCK_OUR_HEADER,       /* in heapinspect's header (birth stamp,
                                alignment word) of block */
  HI_BLOCK_CHUNK_HEADER,     /* in glibc's chunk header of block */
  HI_BLOCK_PAST_END,         /* past block's end, in its redzone or the
                                rest of its glibc chunk (an overflow) */
  HI_BLOCK_BAD_HEADER,       /* in a glibc chunk after block `before`
                                whose header fails its check (or whose
                                glibc header is overwritten: chunk_size 0) */
  HI_BLOCK_FREE_MEMORY,      /* in a free glibc chunk after `before` */
  HI_BLOCK_FREED_CHUNK,      /* in a glibc chunk after `before` that
                                glibc's tcache or a fastbin holds: freed
                                to malloc, which overwrote the header */
  HI_BLOCK_RECORDED,         /* in a block that only the monitor's records
                                name (an error record that says nothing of
                                whether it was freed); see from_records */
};

/* For HI_BLOCK_NONE: where the address is. */
enum hi_where_is
{
  HI_WHERE_IS_UNKNOWN,       /* readable, nothing more known */
  HI_WHERE_IS_STACK,         /* a thread's stack (tid if known) */
  HI_WHERE_IS_MODULE,        /* a loaded object's image (module) */
  HI_WHERE_IS_HEAP,          /* glibc's [heap], in no block of ours */
  HI_WHERE_IS_MAPPING,       /* another mapping (mapping: its file) */
  HI_WHERE_IS_UNMAPPED,      /* nothing mapped (the target's map says) */
  HI_WHERE_IS_NOT_IN_SNAPSHOT, /* a snapshot holds no such memory */
  HI_WHERE_IS_UNREADABLE,    /* cannot be read (a core, gdb: no map) */
};

struct hi_block_info
{
  uint64_t addr;
  enum hi_block_state state;
  struct hi_block block;     /* the block named (start 0: none) */
  const struct hi_freed *freed; /* QUARANTINED: its quarantine entry (the
                                free's chain and thread) in the model, or
                                NULL if the ring lost it */
  uint32_t free_site;        /* QUARANTINED: the free's chain, from the
                                entry or else from an error record naming
                                the block (HI_SITE_UNKNOWN: not known) */
  uint64_t past;             /* PAST_END, BAD_HEADER, FREE_MEMORY,
                                FREED_CHUNK, and the header states with a
                                `before`: bytes from the end of block (or
                                before) to addr */
  int in_redzone;            /* PAST_END: within root.redzone bytes */
  int in_padding;            /* OUR_HEADER: in an aligned block's padding,
                                before its offset word */
  uint64_t chunk, chunk_size; /* BAD_HEADER, FREE_MEMORY: glibc's chunk */
  struct hi_block before;    /* BAD_HEADER, FREE_MEMORY, FREED_CHUNK: the
                                nearest valid block before the chunk; the
                                header states: the block right before
                                (its glibc chunk ends where block's
                                starts), start 0 if none */
  enum hi_where_is where;    /* NONE */
  uint64_t tid;              /* STACK: the thread, 0 if not known */
  uint64_t module;           /* MODULE: index in the model's modules */
  char mapping[HI_MAP_PATH_MAX]; /* MAPPING, HEAP: the mapping's name */
  /* No header in memory tells (a snapshot holds no heap memory, a core
     may lack it), but the quarantine's ring or an error record names a
     block holding the address: QUARANTINED (the ring's entry, in freed),
     FREED (an error that says so) or RECORDED, with block and free_site
     from the record and `where` saying why memory could not tell. */
  int from_records;
  uint64_t record;           /* from_records: the error's number (index
                                + 1) it came from; 0: the ring's entry */
};

/* What ADDR is in the heap of model M, read through T (module images
   from M; stacks and mappings from T's mapping and thread_regs, where T
   has them).  Never fails: reads that fail narrow the answer.  Scans
   back at most 64 MiB for a header whose check word is right. */
void hi_block_classify (const struct hi_target *t, const struct hi_model *m,
                        uint64_t addr, struct hi_block_info *out);
/* Whether I is in a block's bytes: live, quarantined, freed (its header
   says so, glibc's tcache holds it, or the monitor's records say so). */
int hi_block_in_bytes (const struct hi_model *m,
                       const struct hi_block_info *i);
/* The block of ours whose bytes hold ADDR (live, quarantined or freed):
   HI_OK, or HI_E_NOT_BLOCK. */
hi_status hi_block_find (const struct hi_target *t, const struct hi_model *m,
                         uint64_t addr, struct hi_block *out);
/* "live", "quarantined", ...: the JSON name of STATE. */
const char *hi_block_state_name (int state);
/* I as the `block` table of R: one prose row, "0x... is 12 bytes into a
   204-byte block at 0x..., allocated by main > ... (file.c:3)", and the
   figures as JSON keys.  HI_OK or HI_E_NOMEM. */
hi_status hi_block_table (struct hi_analysis *a, const struct hi_block_info *i,
                          struct hi_rmodel *r);
/* Site SITE's chain as a cell of R: its leak path (a PATH cell), or a
   text for the monitor's own blocks and sites out of range. */
struct hi_cell hi_site_cell (struct hi_analysis *a, uint32_t site,
                             struct hi_rmodel *r);
/* The `block ADDR` report, the one path heapinspect(1) and gdb share:
   what ADDR is in model M (read from T), symbolized with EXE (may be
   NULL), in OPT's format (JSON, else text) to OUT.  HI_OK if ADDR is in
   a block's bytes (live, quarantined or freed), HI_E_NOT_BLOCK if not
   (both printed), else an error (nothing printed). */
hi_status hi_block_report (const struct hi_target *t, const struct hi_model *m,
                           const char *exe, uint64_t addr,
                           const struct hi_options *opt, FILE *out);

/* The tables -t takes, for messages. */
#define HI_TABLE_NAMES \
  "leaks, bins, direct, graph, stat, peak, temporary, lifetimes, timeline, " \
  "errors, " \
  "types"
/* 1 if LIST names only known tables (HI_TABLE_NAMES). */
int hi_tables_valid (const char *list);
/* Print the tables of LIST (comma-separated) of M to OUT; NAME names the
   source in JSON; EXE overrides the main executable's path.  *MISSING,
   if not NULL, gets how many modules could not be used. */
/* R as text, or as JSON when OPT asks for it (the reports that have no
   profile formats: block, diff, the leak check). */
void hi_emit_text_or_json (const struct hi_rmodel *r,
                           const struct hi_options *opt, FILE *out);
hi_status hi_report (const struct hi_model *m, const char *exe,
                     const char *name, const char *list,
                     const struct hi_options *opt, FILE *out,
                     unsigned *missing);

/* `heapinspect diff OLD NEW` and gdb's `heap diff FILE`: what changed
   from model OLD (its executable OLD_EXE, may be NULL; named OLD_NAME) to
   model NEW, per chain and per function, matched by their symbolized
   frames (so ASLR and a rebuilt binary do not break it), in OPT's format
   (text or JSON) to OUT.  The one implementation both use (diff.c).
   The report is three tables: diff_totals (key: value), diff_chains and
   diff_functions (rows that changed, the largest change of live bytes
   first; OPT's depth, threshold, limit, focus, ignore and module apply;
   offsets and suppressions do not).  A chain is matched by the names of
   the frames its row shows and, with OPT->lines, the allocating call's
   file (base name) and line.  Models, names and executables are only
   read.  HI_OK; HI_E_NOMEM; HI_E_REGEX or HI_E_SUPPRESSIONS for bad
   filters (as hi_report); or HI_E_USAGE, nothing written, for a format
   other than HI_TEXT and HI_JSON (a host checks it first: the message
   of HI_E_USAGE is about tables). */
hi_status hi_diff_report (const struct hi_model *old, const char *old_exe,
                          const char *old_name, const struct hi_model *new_m,
                          const char *new_exe, const char *new_name,
                          const struct hi_options *opt, FILE *out);

/* Counter arithmetic that never wraps: a damaged input may claim
   anything, and a table must not print a wrapped-around number. */
static inline uint64_t
hi_add_sat (uint64_t x, uint64_t y)
{
  return x + y < x ? UINT64_MAX : x + y;
}
static inline uint64_t
hi_sub0 (uint64_t x, uint64_t y)
{
  return x > y ? x - y : 0;
}
static inline uint64_t
hi_mul_sat (uint64_t x, uint64_t y)
{
  return y && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

/* "  " for 0, " ." under 1%, "**" for all, else the percent: mprof's
   two-character fields.  OUT has room for 3 bytes.  Never overflows. */
void hi_pct2 (char *out, uint64_t part, uint64_t whole);
/* The threshold in effect, in thousandths of a percent: the option's,
   or the verbosity's (terse 1%, normal 0.5%, verbose 0). */
int32_t hi_threshold (const struct hi_options *o);
/* Whether a row of PART of WHOLE reaches the threshold (PART 0 never). */
int hi_shown (const struct hi_options *o, uint64_t part, uint64_t whole);
/* Whether the next row of T is shown: not if below the threshold
   (ABOVE_THRESHOLD 0) or past --limit (*N_SHOWN rows shown so far);
   each row left out is counted in T. */
int hi_keep_row (const struct hi_options *o, struct hi_table *t,
                 uint64_t *n_shown, int above_threshold);
/* Write S as a JSON string. */
void hi_json_string (FILE *f, const char *s);

/* The tables, computed into a table of report R: HI_OK, or HI_E_NOMEM.
   hi_table_stat uses only A's model (no symbolizer, no chains). */
hi_status hi_table_bins (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_leaks (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_direct (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_graph (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_stat (struct hi_analysis *a, struct hi_rmodel *r);
/* Time (format 4): the chains at the peak; temporary allocations per
   chain; lifetimes per chain; the timeline.  An input without time data
   gives a table that says so. */
hi_status hi_table_peak (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_temporary (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_lifetimes (struct hi_analysis *a, struct hi_rmodel *r);
hi_status hi_table_timeline (struct hi_analysis *a, struct hi_rmodel *r);
/* Heap errors (format 5): every error the monitor recorded, in order, a
   prose paragraph each with its chains; an older input says it has none. */
hi_status hi_table_errors (struct hi_analysis *a, struct hi_rmodel *r);
/* The client API's types (format 5): per type, its blocks, live figures
   and top chain, most live bytes first. */
hi_status hi_table_types (struct hi_analysis *a, struct hi_rmodel *r);

/* The frames of site S's leak path (hi_path_span, "..." first when cut)
   appended to R: a PATH cell for them. */
struct hi_cell hi_path_cell (struct hi_analysis *a, uint64_t s,
                             struct hi_rmodel *r);
/* The rows of a per-chain table (leaks, peak, temporary, lifetimes):
   A's sites grouped by the path they show (hi_path_span, and with
   opt.lines the line that allocated), sites whose flags differ in SPLIT
   (HI_SITE_* bits; 0: none) kept apart.  Sites with no allocation or
   free are in no row; sites HI_SITE_FILTERED are in none and counted in
   *FILTERED.  *ROW_OF gets a new array, per site its row or UINT32_MAX;
   *FIRST_SITE a new array, per row its first site (the row's path); *N
   the rows.  The caller frees both.  HI_OK or HI_E_NOMEM. */
hi_status hi_path_rows (const struct hi_analysis *a, unsigned split,
                        uint32_t **row_of, uint64_t **first_site, size_t *n,
                        uint64_t *filtered);
/* hi_path_rows, and *ROWS a new array of *N rows of SIZE bytes, zeroed
   but for the uint32_t at offset PATH_AT of each: its row index (the
   table's path).  The caller frees all three.  HI_OK or HI_E_NOMEM. */
hi_status hi_path_rows_new (const struct hi_analysis *a, unsigned split,
                            size_t size, size_t path_at, void **rows,
                            uint32_t **row_of, uint64_t **first_site,
                            size_t *n, uint64_t *filtered);
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

/* The chains of A that the filters keep (--focus, --ignore, --module;
   not suppressions, thresholds or limits: a profile holds every chain),
   each with its figures, as R's samples, locations and mappings (see
   rmodel.h).  Chains with no allocation are left out.  HI_OK or
   HI_E_NOMEM. */
hi_status hi_samples_build (struct hi_analysis *a, struct hi_rmodel *r);

/* The timeline of A's model (points, the peak, now, the detailed
   points' chains; the filters keep chains out) into R's timeline.  A
   model without time data gives now alone (timeline.has 0, no peak:
   timeline.peak SIZE_MAX).  Once per report: a second call does
   nothing.  HI_OK or HI_E_NOMEM. */
hi_status hi_timeline_build (struct hi_analysis *a, struct hi_rmodel *r);

/* The summary of M (A may be NULL: no chains, no symbols) into R. */
hi_status hi_summary_build (const struct hi_model *m,
                            const struct hi_analysis *a, unsigned missing,
                            struct hi_rmodel *r);

#endif
