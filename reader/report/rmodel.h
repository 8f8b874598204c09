/* rmodel.h - the report model: what a report says, apart from how it is
   written.  Tables compute their rows into a report (a summary, tables of
   typed cells, frames as records) and, for the profile formats, its call
   chains as samples; emitters (emit-text.c, emit-json.c, emit-pprof.c,
   emit-pprof-text.c, emit-folded.c, emit-svg.c) write a report out.  Thresholds, limits,
   filters and suppressions act while the rows are computed, so every
   emitter shows the same rows. */
#ifndef HI_RMODEL_H
#define HI_RMODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hi-reader.h"

/* A frame as a report shows it; strings belong to whoever built the
   report (the analysis) and outlive it. */
struct hi_rframe
{
  const char *function;      /* the function's name, never NULL */
  const char *label;         /* as a path shows it ("f+0x1c" with
                                --offsets), never NULL */
  const char *module;        /* base name, or NULL */
  const char *file;          /* source file, or NULL */
  uint32_t line;             /* 0 if unknown */
  uint32_t inlined;          /* 1: inlined into the next outer frame */
  uint64_t offset;           /* from the function's (or module's) start */
  uint32_t cut;              /* 1: the "..." of callers not shown */
  /* Set for the frames of locations (hi_samples_build); NULL elsewhere. */
  const char *group;         /* the name the tables group by: FUNCTION,
                                with " (module)" when two modules have a
                                function of that name (pprof's Function
                                name, folded and SVG frames) */
  const char *system_name;   /* the symbol as the module names it
                                (mangled for C++), or GROUP if unknown */
  uint64_t address;          /* the return address the frame is for (every
                                frame of one address has it); 0 if none */
};

/* The profile formats' view of a report (hi_samples_build): every call
   chain the filters keep, as pprof sees a profile.  Locations are code
   addresses, each with its frames; samples are chains of locations with
   their four figures; mappings are the recorded modules. */

/* A module, as a pprof mapping and a line of MAPPED_LIBRARIES. */
struct hi_rmapping
{
  uint64_t start, limit;     /* its code and data in the process:
                                [start, limit) */
  uint64_t offset;           /* the file offset mapped at START */
  const char *path;          /* the full path recorded, never NULL */
  const char *build_id;      /* lowercase hex, or NULL if none recorded */
  int symbolized;            /* its locations carry function names
                                (pprof's has_functions) */
  int lines;                 /* ... and file:line (has_filenames,
                                has_line_numbers, has_inline_frames) */
};

/* A code address of the chains: a call instruction. */
struct hi_rlocation
{
  uint64_t address;          /* the call: its return address - 1;
                                0 for the "<deeper>" location that
                                stands for callers cut at the depth cap */
  uint64_t return_address;   /* the return address the monitor recorded
                                (what gperftools' text format lists);
                                0 for "<deeper>" */
  uint32_t mapping;          /* index in the report's mappings + 1;
                                0: in no recorded module */
  uint64_t first, n;         /* the report's frames[first, first + n),
                                n >= 1: outermost first, the function
                                whose code holds the call, then each
                                function inlined into the one before it;
                                the last is where the call is */
};

/* One call chain and what it allocated. */
struct hi_rsample
{
  uint64_t first, n;         /* the report's sample_locs[first, first+n):
                                location indexes, innermost first (the
                                caller of malloc first, as pprof orders
                                them), the outermost last; n may be 0
                                (the monitor recorded no frame) */
  uint64_t alloc_objects, alloc_space, inuse_objects, inuse_space;
  uint64_t peak_objects, peak_space; /* live at the peak (the report's
                                has_peak), else 0 */
  const char *types;         /* the client API's types of its blocks
                                (", "-joined), or NULL: pprof's label
                                "type" */
};

/* Which figure of a sample a one-number format shows (--weight). */

/* Sample S's figure for weight W. */
static inline uint64_t
hi_sample_weight (const struct hi_rsample *s, enum hi_weight w)
{
  return w == HI_WEIGHT_INUSE_OBJECTS ? s->inuse_objects
         : w == HI_WEIGHT_ALLOC_SPACE ? s->alloc_space
         : w == HI_WEIGHT_ALLOC_OBJECTS ? s->alloc_objects
         : w == HI_WEIGHT_PEAK_SPACE ? s->peak_space
         : w == HI_WEIGHT_PEAK_OBJECTS ? s->peak_objects
                                        : s->inuse_space;
}

/* pprof's name of weight W: "inuse_space", ...; and its unit, "bytes"
   or "count". */
static inline const char *
hi_weight_name (enum hi_weight w)
{
  return w == HI_WEIGHT_INUSE_OBJECTS ? "inuse_objects"
         : w == HI_WEIGHT_ALLOC_SPACE ? "alloc_space"
         : w == HI_WEIGHT_ALLOC_OBJECTS ? "alloc_objects"
         : w == HI_WEIGHT_PEAK_SPACE ? "peak_space"
         : w == HI_WEIGHT_PEAK_OBJECTS ? "peak_objects" : "inuse_space";
}
static inline const char *
hi_weight_unit (enum hi_weight w)
{
  return w == HI_WEIGHT_INUSE_SPACE || w == HI_WEIGHT_ALLOC_SPACE
         || w == HI_WEIGHT_PEAK_SPACE ? "bytes" : "count";
}

struct hi_rmodel;

/* Weight W in words, "bytes in use", ...: what a flame graph shows. */
const char *hi_weight_title (enum hi_weight w);
/* Why a profile of R weighed by W shows nothing, and which weights to
   try instead (the others of its unit that some sample has), into S:
   "no bytes in use in this profile; try --weight=alloc_space or
   --weight=peak_space". */
void hi_weight_empty_hint (const struct hi_rmodel *r, enum hi_weight w,
                           char *s, size_t size);

/* What a cell holds.  Numbers are exact in the model; the text emitter
   writes bytes in human units unless told --bytes. */
enum hi_cell_type
{
  HI_CELL_EMPTY,             /* nothing: blank in text, absent in JSON */
  HI_CELL_COUNT,             /* v: a count (allocations, calls) */
  HI_CELL_BYTES,             /* v: bytes */
  HI_CELL_PCT2,              /* v of whole: mprof's two-character percent
                                (text only: JSON has the figures) */
  HI_CELL_RATIO,             /* v "/" whole: calls of all calls */
  HI_CELL_SUM,               /* v "+" whole: called+recursive */
  HI_CELL_TEXT,              /* text (a name, a size label, types) */
  HI_CELL_PATH,              /* frames[v, v + whole) of the report: a
                                call chain, outermost first */
  HI_CELL_REF,               /* v: a graph entry's index, "[v]" */
  HI_CELL_RATE,              /* v / whole as a fraction, 4 decimals */
  HI_CELL_JSON,              /* text: a JSON value written as it is (an
                                array of counts); JSON only, blank in text */
  HI_CELL_MS,                /* v nanoseconds: text in milliseconds with
                                3 decimals, JSON the nanoseconds */
  HI_CELL_DELTA,             /* v: a signed count (int64_t stored in v):
                                "+500", "-3", "0" (diff) */
  HI_CELL_DELTA_BYTES,       /* v: signed bytes, "+1.2K", "-512B", "0";
                                JSON gives both as exact integers */
};

struct hi_cell
{
  enum hi_cell_type type;
  const char *text;          /* TEXT (owned by the report) */
  uint64_t v, whole;
};

/* A column: its JSON key, its heading in text, and its cells' type. */
struct hi_column
{
  const char *key;           /* JSON key; NULL: text only */
  const char *head;          /* text heading; NULL: JSON only */
  const char *head2;         /* a second heading line, or NULL */
  enum hi_cell_type type;
  int left;                  /* text: left-aligned (names, paths) */
  int paren;                 /* text: PCT2 in parentheses, "(12)" */
  int blank_zero;            /* text: a 0 is left blank */
  size_t max_width;          /* text: longer TEXT cells end in "...";
                                0: no limit */
  int every_line;            /* text: a PATH cell gives the file:line of
                                every frame, not the innermost's alone */
};

/* A row's part in its table.  The call graph's entries are an ENTRY row
   with its CALLER rows before it and CALLEE and MEMBER rows after; the
   JSON emitter nests them in the entry's object. */
enum hi_row_role
{
  HI_ROW_PLAIN,
  HI_ROW_TOTAL,              /* a totals row (direct's <TOTAL>) */
  HI_ROW_ENTRY,
  HI_ROW_CALLER,
  HI_ROW_CALLEE,
  HI_ROW_MEMBER,             /* a function inside a <cycle N> entry */
  HI_ROW_ALL,                /* the sum of an entry's callers or callees */
};

struct hi_row
{
  enum hi_row_role role;
  uint32_t group;            /* the graph entry the row belongs to: the
                                text emitter rules a line between groups,
                                the JSON emitter nests a group's CALLER,
                                CALLEE and MEMBER rows in its ENTRY row's
                                object ("callers", "callees", "members") */
  int text_only;             /* ALL rows: derived sums, not in JSON */
  int json_only;             /* not in text (a cycle's members, each) */
  struct hi_cell *cells;     /* one per column */
};

/* A figure of a whole table (the peak's bytes and when, a table's
   totals, whether the input had the data): JSON writes it as a key of
   the table's object beside "rows"; text shows it only as the table's
   legend says it. */
struct hi_fact
{
  const char *key;           /* JSON key */
  struct hi_cell cell;       /* COUNT, BYTES, TEXT; EMPTY: null */
  int boolean;               /* true or false (cell.v != 0), not a number */
};
#define HI_TABLE_FACTS 16

struct hi_table
{
  const char *name;          /* "leaks": the JSON key and -t name */
  const char *title;         /* "Partial Memory Leak Table" */
  const char *legend;        /* one line explaining conventions, or NULL */
  struct hi_column *columns;
  size_t n_columns;
  struct hi_row *rows;
  size_t n_rows, cap_rows;
  /* Rows left out by the threshold, the limit, filters or suppressions:
     each reason one line "(N more below 0.5%)" in text, counts in JSON. */
  int32_t threshold;         /* the threshold applied, as in hi_options */
  uint64_t below_threshold, over_limit, filtered;
  uint64_t suppressed, suppressed_bytes;          /* the user's file */
  uint64_t suppressed_default, suppressed_default_bytes; /* built-in list */
  /* Text: "key: value" lines, not a grid; JSON: an object of the KEY
     column's texts to the VALUE column's numbers (stat). */
  int keyvalue;
  struct hi_fact facts[HI_TABLE_FACTS];
  size_t n_facts;
  /* Text: each row as prose, its cells written one after another with
     nothing between them (the cells of columns with a heading; the
     headings are not shown), a row a paragraph: sentences with call
     chains in them (block, errors).  JSON: rows as usual. */
  int prose;
  /* Text: the report's timeline drawn as a chart before the rows, as
     ms_print draws massif's (JSON leaves it out: the rows hold its
     figures). */
  int chart;
};

/* The timeline of a report (format 4's time data; hi_timeline_build):
   the points of live bytes, oldest first, the peak and "now" among them,
   and for the detailed ones (the monitor's detailed points, the peak,
   now) their chains, most bytes first.  Their time axis is the bytes
   allocated and freed so far (massif's --time-unit=B), which moves with
   frees too: a program that frees everything after its last allocation
   ends at now, later than its peak, with the live bytes now.  The
   timeline table, the chart, massif.out and the stacked SVG show it. */
enum hi_rpoint_kind
{
  HI_RPOINT_PLAIN,
  HI_RPOINT_DETAILED,        /* a detailed point: its top chains */
  HI_RPOINT_PEAK,            /* the peak: every chain's bytes then */
  HI_RPOINT_NOW,             /* when the data was read: the live totals
                                and every live chain */
};

struct hi_rpoint
{
  uint64_t time_ns;          /* since the monitor started */
  uint64_t clock;            /* the allocation clock: bytes allocated */
  uint64_t moved;            /* the time axis: bytes allocated and freed,
                                2 * clock - bytes (never going back) */
  uint64_t bytes, blocks;    /* live */
  enum hi_rpoint_kind kind;
  uint64_t first, n;         /* the timeline's at[first, first + n): its
                                chains (none for a plain point) */
};

/* A chain's figures at a point. */
struct hi_rtchain
{
  uint64_t chain;            /* index in the timeline's chains */
  uint64_t bytes, blocks;
};

/* A chain the timeline names: its site, its leak path (--depth, as a
   PATH cell) and all its frames (for massif's trees), in the report's
   frames, outermost first. */
struct hi_rchain
{
  uint64_t site;
  uint64_t same;             /* the first chain whose path reads as this
                                one's (hi_path_rows: the tables and the
                                SVG show them as one; massif's trees keep
                                them apart) */
  uint64_t path_first, path_n;
  uint64_t full_first, full_n;
};

struct hi_rtimeline
{
  int has;                   /* the input has time data (else: now alone) */
  struct hi_rpoint *points;
  size_t n_points;
  size_t peak;               /* the peak's index in points; SIZE_MAX:
                                none (no time data) */
  struct hi_rtchain *at;
  size_t n_at;
  struct hi_rchain *chains;
  size_t n_chains;
  uint32_t top;              /* chains a detailed point keeps at most */
};

/* Add fact KEY of value C to table T (ignored past HI_TABLE_FACTS);
   hi_table_flag a boolean one. */
static inline void
hi_table_fact (struct hi_table *t, const char *key, struct hi_cell c)
{
  if (t && t->n_facts < HI_TABLE_FACTS)
    t->facts[t->n_facts++] = (struct hi_fact) { key, c, 0 };
}
static inline void
hi_table_flag (struct hi_table *t, const char *key, int value)
{
  if (t && t->n_facts < HI_TABLE_FACTS)
    t->facts[t->n_facts++] = (struct hi_fact) {
      key, { HI_CELL_COUNT, NULL, value != 0, 0 }, 1 };
}

/* The summary that opens every report: stat's figures and the problems. */
struct hi_summary
{
  const char *command;       /* the command line, or NULL if not recorded */
  uint64_t pid;
  uint64_t run_ns;           /* run time until the data was read; 0: not recorded */
  int run_until_core;        /* run_ns ends when the core file was written */
  int attached;              /* recorded since an attach: run_ns is the
                                time since the first one */
  uint64_t attached_ns;      /* with attached: the time attached, the
                                periods summed; 0: not known */
  int detached;              /* with attached: detached since, the figures
                                those of the attached time */
  uint64_t detached_ns;      /* with detached: how long before the read;
                                0: not known */
  /* With attached: the chunks glibc holds in use with no block of the
     monitor's in them (made before the attach, or by the loader or
     glibc itself since): foreign_counted 1 with their number and usable
     bytes, else 0 and foreign_why (NULL: not asked); 2: read just
     before the attach (the input holds no heap: a snapshot at the
     end). */
  int foreign_counted;
  uint64_t foreign_blocks, foreign_bytes;
  const char *foreign_why;
  uint64_t read_ns;          /* when the data is from: CLOCK_REALTIME ns
                                since 1970; 0: not recorded */
  uint64_t allocations, frees, bytes_allocated, bytes_freed;
  uint64_t peak_bytes, peak_blocks, live_bytes, live_blocks;
  uint64_t cut_bytes, cut_chains; /* in chains cut at the depth cap */
  uint64_t cut_allocs;       /* allocations through those chains */
  uint32_t depth_cap;
  uint64_t monitor_bytes;    /* the monitor's own memory (its arenas) */
  uint64_t errors_total;     /* heap errors the monitor found (format 5) */
  uint64_t errors_recorded;  /* ... and recorded (-t errors lists them) */
  uint64_t quarantine_limit; /* HEAPINSPECT_QUARANTINE's bytes; 0: off */
  uint64_t quarantine_bytes; /* user bytes it held when read */
  uint32_t redzone;          /* HEAPINSPECT_REDZONE's bytes; 0: none */
  int gdb;                   /* for gdb: hints name its heap commands */
  const char *problems[8];   /* one line each: damage, unreadable modules */
  size_t n_problems;
};

struct hi_rmodel
{
  const char *source;        /* what was read (a file, "pid 1234") */
  int incomplete;            /* the input was damaged */
  int has_summary;
  struct hi_summary summary;
  struct hi_table *tables;
  size_t n_tables, cap_tables;
  struct hi_rframe *frames;  /* PATH cells point here */
  size_t n_frames, cap_frames;
  /* The samples (hi_samples_build), for the profile formats. */
  int has_samples;
  struct hi_rmapping *mappings;
  size_t n_mappings;
  struct hi_rlocation *locations;
  size_t n_locations;
  uint32_t *sample_locs;     /* samples' location lists */
  size_t n_sample_locs;
  struct hi_rsample *samples;
  size_t n_samples;
  int has_peak;              /* the samples carry the chains' figures at
                                the peak (the input has time data) */
  /* The timeline (hi_timeline_build), for the timeline table and the
     formats that draw it. */
  struct hi_rtimeline timeline;
  /* Text the report owns (cell texts, problem lines). */
  char **owned;
  size_t n_owned, cap_owned;
  int nomem;                 /* a builder call ran out of memory */
};

void hi_rmodel_init (struct hi_rmodel *r);
void hi_rmodel_free (struct hi_rmodel *r);

/* Builders.  On running out of memory they set R->nomem and return NULL
   (or UINT64_MAX); callers check R->nomem once at the end. */
struct hi_table *hi_rmodel_table (struct hi_rmodel *r, const char *name,
                                  const char *title,
                                  const struct hi_column *columns,
                                  size_t n_columns);
/* A new row of table T, its cells all EMPTY. */
struct hi_cell *hi_rmodel_row (struct hi_rmodel *r, struct hi_table *t,
                               enum hi_row_role role);
/* Append N frames to R's list; the index of the first. */
uint64_t hi_rmodel_frames (struct hi_rmodel *r, const struct hi_rframe *f,
                           size_t n);
/* A copy of S owned by R. */
const char *hi_rmodel_strdup (struct hi_rmodel *r, const char *s);

/* Cell constructors. */
static inline struct hi_cell
hi_cell_count (uint64_t v)
{
  return (struct hi_cell) { HI_CELL_COUNT, NULL, v, 0 };
}
static inline struct hi_cell
hi_cell_bytes (uint64_t v)
{
  return (struct hi_cell) { HI_CELL_BYTES, NULL, v, 0 };
}
static inline struct hi_cell
hi_cell_pct2 (uint64_t part, uint64_t whole)
{
  return (struct hi_cell) { HI_CELL_PCT2, NULL, part, whole };
}
static inline struct hi_cell
hi_cell_text (const char *s)
{
  return (struct hi_cell) { HI_CELL_TEXT, s, 0, 0 };
}
/* A signed change D (HI_CELL_DELTA or HI_CELL_DELTA_BYTES), its two's
   complement kept in v. */
static inline struct hi_cell
hi_cell_delta (int64_t d)
{
  return (struct hi_cell) { HI_CELL_DELTA, NULL, (uint64_t) d, 0 };
}
static inline struct hi_cell
hi_cell_delta_bytes (int64_t d)
{
  return (struct hi_cell) { HI_CELL_DELTA_BYTES, NULL, (uint64_t) d, 0 };
}
/* The signed value of a delta cell. */
static inline int64_t
hi_cell_signed (const struct hi_cell *c)
{
  return (int64_t) c->v;
}
static inline struct hi_cell
hi_cell_path (uint64_t first, uint64_t n)
{
  return (struct hi_cell) { HI_CELL_PATH, NULL, first, n };
}

/* How emitters write numbers and names. */
struct hi_emit_options
{
  int exact_bytes;           /* --bytes: 1234567, not 1.2M */
  int lines;                 /* show file:line (not --no-lines) */
  enum hi_weight weight;     /* folded, SVG: the figure shown (--weight) */
  FILE *notes;               /* where a format that writes nothing says
                                why (folded): stderr; NULL: nowhere */
  int gdb;                   /* for gdb's heap commands: notes start
                                "heap: ", not "heapinspect: " */
};

/* The emitters: write R to F.  The text formats return HI_OK (a write
   error shows in F's error flag); the others need R's samples and may
   fail: HI_OK, HI_E_NOMEM, or HI_E_WRITE (writing F or compressing
   failed). */
/* Count a row of BYTES left out of T by a suppression: the user's
   (USER) or the built-in list's. */
void hi_table_suppressed (struct hi_table *t, int user, uint64_t bytes);
hi_status hi_emit_text (const struct hi_rmodel *r,
                        const struct hi_emit_options *o, FILE *f);
hi_status hi_emit_json (const struct hi_rmodel *r,
                        const struct hi_emit_options *o, FILE *f);
/* pprof's profile.proto, gzip-compressed: sample types alloc_objects/
   count, alloc_space/bytes, inuse_objects/count, inuse_space/bytes, and
   with R's has_peak peak_objects/count, peak_space/bytes. */
hi_status hi_emit_pprof (const struct hi_rmodel *r,
                         const struct hi_emit_options *o, FILE *f);
/* gperftools' heap profile text: "heap profile: ... @ heapprofile", a
   line per sample of return addresses, then MAPPED_LIBRARIES:. */
hi_status hi_emit_pprof_text (const struct hi_rmodel *r,
                              const struct hi_emit_options *o, FILE *f);
/* Collapsed stacks: "main;f;g 1234", root first, O->weight; samples of
   weight 0 left out. */
hi_status hi_emit_folded (const struct hi_rmodel *r,
                          const struct hi_emit_options *o, FILE *f);
/* A self-contained interactive SVG flame graph of O->weight. */
hi_status hi_emit_svg (const struct hi_rmodel *r,
                       const struct hi_emit_options *o, FILE *f);

/* The timeline formats: they need R's timeline (timeline.has may be 0:
   an input without time data gives a file that says so where the format
   allows, massif's an empty run).  HI_OK, HI_E_NOMEM or HI_E_WRITE. */
/* valgrind massif's massif.out (time_unit: B, the bytes allocated and
   freed): a snapshot per point, detailed ones with their heap trees, the
   peak's from every chain's bytes at the peak; what ms_print and
   massif-visualizer read. */
hi_status hi_emit_massif (const struct hi_rmodel *r,
                          const struct hi_emit_options *o, FILE *f);
/* A self-contained SVG of the live bytes over the bytes allocated and
   freed, the chains of the detailed points stacked, with hover titles. */
hi_status hi_emit_svg_timeline (const struct hi_rmodel *r,
                                const struct hi_emit_options *o, FILE *f);

/* R as text, or as JSON when O asks for it (the reports that have no
   profile formats: block, diff, the leak check). */
void hi_emit_text_or_json (const struct hi_rmodel *r,
                           const struct hi_options *opt, FILE *out);
/* R in the format FORMAT (TIMELINE: an SVG of the timeline, not the
   flame graph).  HI_OK, HI_E_NOMEM or HI_E_WRITE. */
hi_status hi_emit (const struct hi_rmodel *r, const struct hi_options *opt,
                   int timeline, FILE *out);

/* A threshold THR in thousandths of a percent as "0.5%" into OUT (at
   least 16 bytes); a negative one as "0%". */
void hi_threshold_text (int32_t thr, char *out, size_t size);

#endif
