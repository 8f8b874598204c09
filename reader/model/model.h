/* model.h - the validated model of the monitor's data, as the reader's
   own files see it. */
#ifndef HI_MODEL_H
#define HI_MODEL_H

#include "hi-reader.h"

/* The model's contents (hi-reader.h: the hosts see it opaque). */
struct hi_model
{
  struct hi_root root;
  struct hi_node *nodes;
  uint64_t n_nodes;
  struct hi_site *sites;
  uint64_t n_sites;
  struct hi_bin *bins;       /* HI_NBINS entries: the threads' sums */
  struct hi_thread *threads;
  uint64_t n_threads;
  struct hi_module *modules;
  uint64_t n_modules;
  uint64_t damaged;          /* the sum of damage's counts */
  uint64_t budget;           /* bytes the model may still copy out of its
                                target (budget.c) */
  uint32_t arenas_cut;       /* the arenas cut to what the input holds:
                                bit 1 << kind */
  struct
  {
    uint64_t arenas;         /* arenas claiming more entries than the
                                input holds (or the budget has left),
                                cut to those it holds */
    uint64_t root;           /* root fields out of range (ignored) */
    uint64_t nodes;          /* call pairs whose links were dropped */
    uint64_t sites;          /* sites dropped whole */
    uint64_t threads;        /* thread records (or their parts) left out */
    uint64_t counters;       /* impossible counters corrected */
    uint64_t process;        /* process record fields out of range */
    uint64_t time;           /* time arenas or timeline points unusable */
    uint64_t guards;         /* heap error records or quarantine entries
                                out of range (format 5) */
    uint64_t types;          /* client API type records left out */
  } damage;
  /* The process, as the monitor recorded it (format 3 on).  NULL or 0:
     not recorded (format 2, a raw dump, fields out of range: the last
     counted in damage.process). */
  const char *command;       /* the command line: arguments joined by
                                spaces, shell-quoted where needed, control
                                characters and bytes that are not UTF-8
                                as \xHH inside $'...': valid UTF-8, safe
                                to print; " ..." at the end when cut.
                                Owned by the model */
  int command_cut;           /* the command line was longer than the
                                monitor keeps (HI_CMDLINE_MAX) */
  int attached;              /* the monitor was attached to the running
                                process (heapinspect attach): its start
                                is the attach's, blocks from before are
                                not in it */
  int detached;              /* ... and detached since (format 6 on): its
                                figures are those of the attached time */
  uint64_t attached_ns;      /* with attached: how long it was attached
                                until the data was read, the periods
                                summed (format 6 on; before, run_ns);
                                0: not known */
  uint64_t detached_ns;      /* with detached: how long before the read
                                the detach was; 0: not known */
  /* For an attached monitor, the chunks glibc holds in use that hold no
     block of the monitor's (hi_model_count_foreign, glibc-monitor.c):
     counted (1) with their number and usable bytes, or not (0) and
     why (a static phrase; NULL: not asked, or not attached); 2: the
     chunks in use read just before the attach, for a snapshot written
     at the end (hi_model_set_foreign_at_attach). */
  int foreign_counted;
  uint64_t foreign_blocks, foreign_bytes;
  const char *foreign_why;
  uint64_t start_realtime_ns; /* when the monitor started in the process
                                (its fork, for a child): CLOCK_REALTIME,
                                ns since 1970 */
  uint64_t read_ns;          /* when the data is from, CLOCK_REALTIME ns:
                                see read_source */
  int read_source;           /* enum hi_read_source */
  uint64_t run_ns;           /* how long the process had run then: the
                                monotonic clocks' difference where both
                                ends have one (snapshot, live process),
                                else read_ns - start_realtime_ns; a
                                delta's (hi_model_subtract): the window */
  /* Time (format 4 on; see format.h).  has_time 0: the input has none
     (an older format, or its time arenas could not be used: damage), and
     chain_time, timeline are NULL. */
  int has_time;
  int lifetimes;             /* the process recorded lifetimes
                                (HEAPINSPECT_LIFETIMES=1) */
  struct hi_chain_time *chain_time; /* n_sites entries, or NULL */
  struct hi_tpoint *points;  /* the timeline's points, oldest first: time
                                and clock never go back (points after one
                                that does are left out, as damage) */
  uint64_t n_points;
  struct hi_tdetail *detailed; /* detailed points, oldest first, checked
                                like the points; chains naming a site out
                                of range are left out */
  uint64_t n_detailed;
  int peak_is_live;          /* the peak read was below the live figures
                                (the threads' batches lag): the live
                                figures stand for the peak's */
  uint64_t peak_chain_blocks; /* blocks live at the peak of bytes: the
                                chains' sum (root.totals.peak_blocks is
                                the most blocks ever live, which may be
                                another moment) */
  /* The client API's types (format 5 on; format.h): HI_ARENA_TYPES's
     records, those out of range (a pair of no type or site, a type
     beyond HI_TYPES_MAX) with kind HI_TREC_NONE, counted in damage.types;
     NULL, 0: none recorded. */
  struct hi_type_rec *type_recs;
  uint64_t n_type_recs;
  /* The client API's pools (format 5 on), names NUL-ended; NULL, 0:
     none. */
  struct hi_pool *pools;
  uint64_t n_pools;
  uint64_t peak_time_ns;     /* when the peak was reached, ns since the
                                monitor started: the time of the point at
                                or after the peak's clock (the points'
                                last, or run time, if none is) */
  /* Heap errors and guards (format 5 on; see format.h), read by
     model-guard.c.  Older formats: all 0 and NULL. */
  struct hi_error *errors;   /* the errors the monitor recorded, in the
                                order found: kind and when known (an
                                entry of another kind is left out), every
                                site in range (else HI_SITE_UNKNOWN) */
  uint64_t n_errors;
  uint64_t errors_total;     /* errors found, n_errors or more: the rest
                                were not recorded (the arena was full) */
  struct hi_freed *quarantine; /* the quarantine's entries held when read
                                (ring positions [head, tail)), oldest
                                first, none with user 0, sites in range;
                                whether each is current (its header still
                                quarantined) only the target can tell */
  uint64_t n_quarantine;
  uint64_t *quarantine_by_user; /* indexes into quarantine sorted by user
                                (equal users: the newest last) */
  uint32_t guard_flags;      /* root.guard_flags (HI_GUARD_*) */
  uint32_t redzone;          /* root.redzone: guard bytes after blocks */
  uint64_t quarantine_limit, quarantine_bytes;
};

/* The newest entry of M's quarantine for the block whose user pointer is
   USER, or NULL. */
const struct hi_freed *hi_model_quarantined (const struct hi_model *m,
                                             uint64_t user);
/* model-guard.c: read M's error and quarantine arenas and the root's
   guard fields (format 5) into M, after the rest is validated; what
   cannot be used is damage.guards.  HI_E_NOMEM, else HI_OK. */
hi_status hi_model_guard_load (const struct hi_target *t, struct hi_model *m);

/* Each chain's time figures (format 4 on), summed over its records. */
struct hi_chain_time
{
  uint64_t peak_bytes;       /* live at the process's peak (the latest
                                time live bytes were highest) */
  uint64_t peak_blocks;
  uint64_t temporaries;      /* heaptrack's temporary allocations */
  /* With lifetimes (m->lifetimes), else 0: */
  uint64_t life[HI_LIFE_BUCKETS]; /* freed blocks per lifetime bucket */
  uint64_t freed;            /* freed blocks with a birth stamp */
  uint64_t freed_ns;         /* the sum of their lifetimes, ns */
  uint64_t live;             /* live blocks with a birth stamp */
  uint64_t live_clock_sum;   /* the sum of their birth clocks */
  uint64_t live_ns_sum;      /* the sum of their birth times */
};

/* For the model's loaders: copy the arena of KIND of M's root (entries
   of ENTRY_SIZE bytes; 0: the kind's own size) out of T into a new
   array *OUT of *COUNT entries (none: NULL, 0): the entries the arena
   claims, or fewer where T holds fewer or M's budget has no room for
   them (the arena is then cut: budget.c).  HI_E_CORRUPT for an arena of
   another entry size or a count beyond its capacity; HI_E_UNREADABLE if
   T holds not one of its entries; HI_E_NOMEM.
   hi_model_arena_entry_size: the entry size the arena of KIND states, 0
   if R lists none.  hi_model_arena_name: what the arena of KIND holds,
   as the damage note names it ("call pair"). */
hi_status hi_model_read_arena (const struct hi_target *t, struct hi_model *m,
                               uint32_t kind, uint32_t entry_size, void **out,
                               uint64_t *count);
uint32_t hi_model_arena_entry_size (const struct hi_root *r, uint32_t kind);
const char *hi_model_arena_name (uint32_t kind);

/* budget.c: the model's one memory budget (its rule is there).
   hi_budget_init: M's budget from T, before anything is copied.
   hi_budget_grant: how many of WANT entries of ENTRY_SIZE (> 0) bytes
   of the arena of KIND M may copy: WANT, or fewer, and the arena is then
   cut.  hi_budget_spend: BYTES were copied.  hi_budget_cut: the arena of
   KIND was cut (fewer entries copied than it claims), damage once per
   arena. */
void hi_budget_init (struct hi_model *m, const struct hi_target *t);
uint64_t hi_budget_grant (struct hi_model *m, uint32_t kind, uint64_t want,
                          uint32_t entry_size);
void hi_budget_spend (struct hi_model *m, uint64_t bytes);
void hi_budget_cut (struct hi_model *m, uint32_t kind);
/* Arena descriptor I of root R (I < r->n_arenas): the first
   HI_MAX_ARENAS in arenas, the rest (format 4) in more_arenas. */
const struct hi_arena_desc *hi_model_arena_desc (const struct hi_root *r,
                                                 uint32_t i);
/* model-time.c: read M's time arenas (format 4) into its time fields,
   after the rest is validated; what cannot be used is damage.time.
   HI_E_NOMEM, else HI_OK. */
hi_status hi_model_time_load (const struct hi_target *t, struct hi_model *m);

/* For the model's loader (procinfo.c): set M's command and times from
   the process record P (NULL: none) and target T.  HI_E_NOMEM, or HI_OK
   (fields out of range are damage). */
hi_status hi_procinfo_set (struct hi_model *m, const struct hi_process *p,
                           const struct hi_target *t);

/* The command line CMDLINE of LEN bytes (NUL-separated arguments, the
   last one's NUL left out) as struct hi_model's command shows it; CUT
   adds " ...".  A new string (free it), or NULL for LEN 0, LEN over
   HI_CMDLINE_MAX, or no memory. */
char *hi_command_text (const char *cmdline, size_t len, int cut);

#endif
