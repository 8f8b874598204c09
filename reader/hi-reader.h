/* hi-reader.h - the reader library: targets, the validated model of the
   monitor's data, and the tables computed from it.  Shared by
   heapinspect(1) and the gdb plugin; not installed.

   Functions return hi_status (HI_OK = 0 or a named error); they never
   print, exit or abort.  Nothing here is thread-safe unless said so. */
#ifndef HI_READER_H
#define HI_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "heapinspect/format.h"

/* Errors: one list makes both the enum and the messages. */
#define HI_ERRORS(X) \
  X (HI_OK, "success") \
  X (HI_E_IO, "cannot read it") \
  X (HI_E_NOT_SNAPSHOT, "not a heapinspect snapshot file") \
  X (HI_E_VERSION, "written by a heapinspect whose format this reader does not know") \
  X (HI_E_TRUNCATED, "the file is truncated") \
  X (HI_E_NO_DATA, "no heapinspect data: run the program with LD_PRELOAD=.../libheapinspect.so") \
  X (HI_E_NOT_READY, "the monitor is loaded but holds no data yet: nothing was allocated through it") \
  X (HI_E_CORRUPT, "the heapinspect data is damaged beyond use") \
  X (HI_E_UNREADABLE, "memory named by the heapinspect data cannot be read") \
  X (HI_E_NOMEM, "out of memory") \
  X (HI_E_NOT_CORE, "an ELF file, but not a core file") \
  X (HI_E_PROCESS, "cannot read the process (ptrace)") \
  X (HI_E_USAGE, "unknown table: use leaks, bins, direct, graph, stat, peak, temporary, lifetimes, timeline or errors") \
  X (HI_E_NOT_BLOCK, "not in a block allocated through heapinspect") \
  X (HI_E_NO_MEMORY, "holds no memory to scan for leaks: a snapshot file has only the monitor's data; use a core file or the live process") \
  X (HI_E_INCONSISTENT, "the process allocated while it was read: the report may be inconsistent (run without --no-stop)") \
  X (HI_E_REGEX, "not a valid regular expression") \
  X (HI_E_SUPPRESSIONS, "cannot use the suppressions file") \
  X (HI_E_WRITE, "cannot write the output")
#define HI_ERROR_ENUM(name, msg) name,
typedef enum { HI_ERRORS (HI_ERROR_ENUM) HI_NSTATUS } hi_status;
#undef HI_ERROR_ENUM

/* A one-line message for S.  When S is the status this thread's last
   failing reader call returned, the message carries that call's details:
   the system's reason ("cannot read it: No such file or directory",
   "...: Operation not permitted") or how much of a file is missing.  The
   string stays valid until the next call in this thread. */
const char *hi_strerror (hi_status s);

/* For the reader's own files: return S, recording ERR (an errno value,
   or 0) as its detail; hi_fail_missing records MISSING bytes instead;
   hi_error_reset forgets the detail (at the start of each public entry
   point, so no detail outlives its call). */
hi_status hi_fail (hi_status s, int err);
hi_status hi_fail_missing (hi_status s, uint64_t missing);
/* Return S, recording the text of FMT as its detail ("FILE:3: not a
   leak:PATTERN line"): hi_strerror gives "message: text". */
hi_status hi_fail_text (hi_status s, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
void hi_error_reset (void);

/* IN with control characters (C0, DEL, and C1 in UTF-8) written as \xHH,
   into OUT of SIZE bytes (cut if too long): names and paths from an
   input, safe to print on a terminal. */
void hi_escape (const char *in, char *out, size_t size);

/* For the reader's own files: open PATH for reading only if it is a
   regular file, never blocking (a FIFO or a device named by an input
   would hang the reader, or gdb).  The descriptor, or -1 with errno set
   (EINVAL for a file of another type). */
int hi_open_regular (const char *path);

/* One mapping of a target's address space (a core's PT_LOAD segment
   with its NT_FILE name, a line of /proc/PID/maps). */
#define HI_MAP_READ  1u
#define HI_MAP_WRITE 2u
#define HI_MAP_EXEC  4u
#define HI_MAP_PATH_MAX 256u
struct hi_map_entry
{
  uint64_t start, end;          /* [start, end) */
  uint64_t file_offset;         /* of the mapped file; 0 if anonymous */
  uint32_t prot;                /* HI_MAP_* */
  uint32_t in_target;           /* 1: its bytes can be read (a core may
                                   leave a mapping out or cut it short) */
  char path[HI_MAP_PATH_MAX];   /* the file, "[heap]", "[stack]", ...;
                                   "" anonymous or not known */
};

/* One thread's registers (x86-64: the user_regs_struct of ptrace and of
   a core's NT_PRSTATUS, as 27 words in that order). */
#define HI_THREAD_REGS_MAX 32u
struct hi_thread_regs
{
  uint64_t tid;
  uint64_t sp;                  /* the stack pointer (also in regs[]) */
  uint64_t fs_base;             /* the thread pointer (TLS) */
  uint32_t n_regs;              /* words of regs in use */
  uint32_t unused;
  uint64_t regs[HI_THREAD_REGS_MAX];
};

/* A target: the memory of a process, as a core, a live process, a
   snapshot file or gdb's inferior.  The host supplies these callbacks. */
struct hi_target_ops
{
  /* Copy LEN bytes at ADDR into BUF; 0 on success, -1 if any is missing. */
  int (*read_memory) (void *ctx, uint64_t addr, void *buf, size_t len);
  /* Store the address of data symbol NAME in *ADDR; 0, or -1 if unknown. */
  int (*lookup_symbol) (void *ctx, const char *name, uint64_t *addr);
  /* Release CTX; may be NULL. */
  void (*close) (void *ctx);
  /* Memory region I (0, 1, ...): 0 and its bounds, -1 past the last.
     Used to scan for the root when no symbol names it.  May be NULL. */
  int (*region) (void *ctx, size_t i, uint64_t *addr, uint64_t *size);
  /* Called once the model is read (a live process resumes here); returns
     a status to report, or HI_OK.  May be NULL. */
  hi_status (*finish) (void *ctx);
  /* For the reachability scan (--leak-check); NULL where the target has
     no memory map or no threads (a snapshot file).  Mapping I (0, 1,
     ...) of the process's address space, in address order: 0 and *OUT
     filled, -1 past the last. */
  int (*mapping) (void *ctx, size_t i, struct hi_map_entry *out);
  /* Thread I (0, 1, ...): 0 and *OUT filled with its registers, -1 past
     the last. */
  int (*thread_regs) (void *ctx, size_t i, struct hi_thread_regs *out);
};

struct hi_target
{
  const struct hi_target_ops *ops;
  void *ctx;
};

/* Open the snapshot file PATH as a target in *OUT (owned by the caller,
   released with hi_target_close).  HI_E_NOT_SNAPSHOT, HI_E_VERSION,
   HI_E_TRUNCATED or HI_E_IO on failure. */
hi_status hi_target_open_snapshot (const char *path, struct hi_target *out);

/* Open the ELF core file PATH.  EXE, if not NULL, is the executable (used
   when it holds the monitor statically).  HI_E_NOT_CORE, HI_E_TRUNCATED. */
hi_status hi_target_open_core (const char *path, const char *exe,
                               struct hi_target *out);

/* Attach to process PID; with STOP, its threads are stopped (ptrace
   seize + interrupt) until hi_target_finish.  HI_E_PROCESS on failure. */
hi_status hi_target_open_process (int pid, int stop, struct hi_target *out);

/* Read process PID that the caller already holds stopped as its ptrace
   tracer (e.g. at its PTRACE_EVENT_EXIT stop): no attaching, stopping or
   resuming here; the caller resumes it after closing.  HI_E_PROCESS if
   its memory cannot be opened. */
hi_status hi_target_open_stopped (int pid, struct hi_target *out);

/* Process PID as another tracer holds it (gdb, whose plugin reads the
   memory map here): its memory and /proc/PID/maps only; no stopping or
   resuming, no consistency check, and no threads (thread_regs gives
   none: the tracer has the registers).  HI_E_PROCESS if it cannot be
   opened. */
hi_status hi_target_open_maps (int pid, struct hi_target *out);

/* Raw memory dumps: PATHS[i] holds the memory from address BASES[i] on
   (N of them, at most 64).  ELF, if not NULL, is the program whose
   symbols locate the root; without it the root is found by its magic. */
hi_status hi_target_open_raw (const char *const *paths, const uint64_t *bases,
                              size_t n, const char *elf,
                              struct hi_target *out);

/* For a core file opened by hi_target_open_core: the LEN bytes of
   memory at ADDR as they lie in the file (libelf's read-only mapping of
   it), if one segment holds them all; NULL otherwise, and for other
   targets.  Valid until T is closed.  For scans that read most of a
   core (the reachability scan): no copy.  The file must not shrink
   while it is read this way (a SIGBUS). */
const void *hi_target_core_view (const struct hi_target *t, uint64_t addr,
                                 size_t len);

/* Bytes a core file opened by hi_target_open_core claims but does not
   hold (it was cut short); 0 for whole files and other targets. */
uint64_t hi_target_missing (const struct hi_target *t);

/* Where the time of a model's data comes from (struct hi_model's
   read_source). */
enum hi_read_source
{
  HI_READ_NONE,       /* not recorded: raw dump, gdb, format-2 snapshot */
  HI_READ_SNAPSHOT,   /* when the snapshot was written (monitor's clocks) */
  HI_READ_LIVE,       /* when the live process was read (reader's clocks) */
  HI_READ_CORE_FILE   /* the core file's modification time */
};

/* When T's memory was captured, as far as the target knows: for a live
   process now (*REALTIME_NS and *MONOTONIC_NS, the latter 0 when the
   process has another time namespace), for a core file its modification
   time (*REALTIME_NS only).  An enum hi_read_source; the times are 0
   for HI_READ_NONE.  hi_target_process_time and hi_target_core_time do
   it for their kind of target: 0, or -1 if T is another kind. */
int hi_target_time (const struct hi_target *t, uint64_t *realtime_ns,
                    uint64_t *monotonic_ns);
int hi_target_process_time (const struct hi_target *t, uint64_t *realtime_ns,
                            uint64_t *monotonic_ns);
int hi_target_core_time (const struct hi_target *t, uint64_t *realtime_ns);

/* Finish reading T (resume a stopped process); a status to report. */
hi_status hi_target_finish (struct hi_target *t);
void hi_target_close (struct hi_target *t);

/* A file mapped into a process: where, from which offset, which file. */
struct hi_mapping
{
  uint64_t start, end, offset;
  const char *path;
};

/* Find data symbol NAME in the ELF files of MAPS (the executable EXE
   too, if given, at its link-time address) and compute its address in
   the process.  0 on success, -1 if no file defines it. */
int hi_find_symbol_in_mappings (const struct hi_mapping *maps, size_t n,
                                const char *exe, const char *name,
                                uint64_t *addr);

/* The monitor's data, copied out of a target and validated: every index
   is in range and every parent link points to an older node, so walks
   terminate.  Entries that fail validation are counted, not used. */
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
  struct
  {
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
  uint64_t start_realtime_ns; /* when the monitor started in the process
                                (its fork, for a child): CLOCK_REALTIME,
                                ns since 1970 */
  uint64_t read_ns;          /* when the data is from, CLOCK_REALTIME ns:
                                see read_source */
  int read_source;           /* enum hi_read_source */
  uint64_t run_ns;           /* how long the process had run then: the
                                monotonic clocks' difference where both
                                ends have one (snapshot, live process),
                                else read_ns - start_realtime_ns */
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

/* Read and validate the model from T into *OUT (free with hi_model_free). */
hi_status hi_model_load (const struct hi_target *t, struct hi_model **out);
void hi_model_free (struct hi_model *m);

/* For the model's loaders: copy the arena of KIND of root R (entries of
   ENTRY_SIZE bytes; 0: the kind's own size) out of T into a new array
   *OUT of *COUNT entries (none: NULL, 0).  HI_E_CORRUPT for an arena of
   another entry size or a count beyond its capacity; HI_E_UNREADABLE,
   HI_E_NOMEM.  hi_model_arena_entry_size: the entry size the arena of
   KIND states, 0 if R lists none. */
hi_status hi_model_read_arena (const struct hi_target *t,
                               const struct hi_root *r, uint32_t kind,
                               uint32_t entry_size, void **out,
                               uint64_t *count);
uint32_t hi_model_arena_entry_size (const struct hi_root *r, uint32_t kind);
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

/* What validation dropped or corrected in M, as one phrase for a message
   ("2 of 3400 sites unreadable, 1 impossible counter corrected"), into
   BUF of SIZE bytes; "" when M is whole. */
void hi_model_damage_text (const struct hi_model *m, char *buf, size_t size);

/* The `stat` table: totals and table sizes, as key: value lines. */
struct hi_stat
{
  uint64_t allocations, frees, bytes_allocated, bytes_freed;
  uint64_t live_blocks, live_bytes, peak_bytes, peak_blocks, foreign_frees;
  uint64_t sites, pairs, threads, modules;
  uint64_t chains, frames, frames_cached;
  uint64_t chains_truncated, chains_dropped, internal_allocations, damaged;
  uint64_t unwind_fallbacks, unwind_checked, unwind_mismatches;
  uint64_t calls[HI_NCALLS];
  /* The client API's pools, apart from malloc's figures above. */
  uint64_t pools, pool_allocations, pool_frees, pool_bytes_allocated,
           pool_bytes_freed, pool_resets;
  /* Heap errors (format 5): found, and recorded in the errors arena. */
  uint64_t errors_total, errors_recorded;
  /* 1: chains came from -finstrument-functions' shadow stack
     (root.client[HI_CLIENT_CHAINS]). */
  uint64_t chains_instrumented;
};
void hi_stat_compute (const struct hi_model *m, struct hi_stat *out);

#endif
