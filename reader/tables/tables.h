/* tables.h - the tables, each computed once into a report model, and
   the other views of a report (profile samples, timeline, summary). */
#ifndef HI_TABLES_H
#define HI_TABLES_H

#include "analysis/analysis.h"
#include "report/rmodel.h"

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

/* glibc's own heap (table-glibc.c): what a report builds from glibc's
   heap G of T into R (HI_OK, HI_E_NOT_BLOCK: nothing to write, or
   HI_E_NOMEM), and the skeleton that reads G, builds and emits it as
   OPT says (hi_glibc_report's statuses; *WRITTEN, if not NULL, 1 when
   something was written: a "not a block" may say where the address
   is). */
struct hi_glibc;
typedef hi_status hi_glibc_build_fn (const struct hi_target *t,
                                     const struct hi_glibc *g,
                                     struct hi_rmodel *r, void *arg);
hi_status hi_glibc_emit (const struct hi_target *t, const char *name,
                         const struct hi_options *opt, FILE *out,
                         const char **why, int *written,
                         hi_glibc_build_fn *build, void *arg);

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

/* A per-chain table (peak, temporary, lifetimes) as hi_chain_table
   builds it: rows of SIZE bytes, one per path (hi_path_rows_new), the
   row's path index a uint32_t at PATH_AT.  ROW and TOTAL are such rows;
   TOTAL sums the rows in the table. */
struct hi_chain_table
{
  size_t size, path_at;
  /* Site S's figures added into ROW. */
  void (*add_site) (const struct hi_analysis *a, uint64_t s, void *row);
  /* ROW added into SUM. */
  void (*add) (void *sum, const void *row);
  /* Whether ROW is in the table; NULL: every row is. */
  int (*in_table) (const void *row);
  /* The rows' order, as qsort takes it. */
  int (*order) (const void *x, const void *y);
  /* Whether ROW passes the threshold (hi_shown). */
  int (*above) (const struct hi_analysis *a, const void *row,
                const void *total);
  /* ROW's cells into C, a new row of R, with its PATH cell. */
  void (*cells) (struct hi_analysis *a, struct hi_rmodel *r, const void *row,
                 struct hi_cell *c, struct hi_cell path);
  /* Non-zero: a text-only <TOTAL> row of TOTAL before the rows. */
  int total_row;
  /* The table's facts from TOTAL and the <TOTAL> row's cells C (NULL:
     none); NULL: no facts. */
  void (*facts) (struct hi_table *t, const void *total,
                 const struct hi_cell *c);
};

/* The rows of per-chain table T of report R, as D says, ranked by D's
   order, those below the threshold or past the limit counted in T
   (T's threshold set from A's options).  HI_OK or HI_E_NOMEM. */
hi_status hi_chain_table (struct hi_analysis *a, struct hi_rmodel *r,
                          struct hi_table *t,
                          const struct hi_chain_table *d);

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
  HI_BLOCK_PAST_SMASHED,     /* past the end of block, whose glibc chunk
                                size word is overwritten (an error record
                                says so, or the word is not what glibc
                                gives such a block): where its chunk ends,
                                and what follows, cannot be told */
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
  uint64_t past;             /* PAST_END, PAST_SMASHED, BAD_HEADER,
                                FREE_MEMORY, FREED_CHUNK, and the header
                                states with a
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
  const char *thread_start;  /* STACK: its start function's name, from
                                libthread_db (hi_block_report sets it),
                                or NULL (the main thread has none) */
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
  const char *cxx_type;      /* LIVE: the C++ class whose vtable its first
                                word points into (hi_block_report sets
                                it), or NULL */
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

/* glibc's view of ADDR in target T (table-glibc.c): the chunk holding
   it, its state and neighbours, added to R as heapinspect block shows
   it with no monitor.  Nothing added (HI_OK) when glibc's heap cannot
   be read or holds no chunk there; HI_E_NOMEM. */
hi_status hi_glibc_block_table (const struct hi_target *t, uint64_t addr,
                                struct hi_rmodel *r);

#endif
