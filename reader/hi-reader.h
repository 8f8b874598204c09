/* hi-reader.h - the reader library's one public header, for its hosts
   (heapinspect(1) and the gdb plugin): targets, the model as an opaque
   handle, the report options, the table and format registry, and the
   reports.  Everything else of the reader is internal, in its folders.

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
  X (HI_E_USAGE, "unknown table") /* hi_strerror names the tables */ \
  X (HI_E_NOT_BLOCK, "not in a block allocated through heapinspect") \
  X (HI_E_NO_MEMORY, "holds no memory to scan for leaks: a snapshot file has only the monitor's data; use a core file or the live process") \
  X (HI_E_INCONSISTENT, "the process allocated while it was read: the report may be inconsistent (run without --no-stop)") \
  X (HI_E_REGEX, "not a valid regular expression") \
  X (HI_E_SUPPRESSIONS, "cannot use the suppressions file") \
  X (HI_E_WRITE, "cannot write the output") \
  X (HI_E_NO_GLIBC, "glibc's heap cannot be read") \
  X (HI_E_INTERRUPTED, "interrupted")
#define HI_ERROR_ENUM(name, msg) name,
typedef enum { HI_ERRORS (HI_ERROR_ENUM) HI_NSTATUS } hi_status;
#undef HI_ERROR_ENUM

/* A one-line message for S.  When S is the status this thread's last
   failing reader call returned, the message carries that call's details:
   the system's reason ("cannot read it: No such file or directory",
   "...: Operation not permitted") or how much of a file is missing.  The
   string stays valid until the next call in this thread. */
const char *hi_strerror (hi_status s);

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
  /* 1: the reader may ask glibc's libthread_db for the threads (set by
     the reader's own core and process targets); 0 where the host gives
     them (gdb, whose own proc_service libthread_db would call). */
  int thread_db;
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

/* Why ptrace (or reading the memory) of process PID failed with errno
   ERR, as one line saying what to do, in WHY, to follow "process PID: ":
   no such process, traced by a debugger already, another user's, or
   Yama's ptrace_scope. */
void hi_ptrace_refusal (int pid, int err, char *why, size_t size);

/* In T, a live process: the address of the dynamic loader's pointer to
   its _dl_open (GLRO(dl_open) in _rtld_global_ro), which dlopen and
   glibc's internal dlopen (NSS modules, iconv's converters) both call
   through; found with the loader's debug symbols (libc6-dbg).  0 and
   *SLOT; 1 and *SLOT if it holds WRAPPER already (an earlier attach's,
   when not 0); -1 and *WHY (a static string) saying what is missing. */
int hi_loader_open_slot (const struct hi_target *t, uint64_t wrapper,
                         uint64_t *slot, const char **why);

/* Raw memory dumps: PATHS[i] holds the memory from address BASES[i] on
   (N of them, at most 64).  ELF, if not NULL, is the program whose
   symbols locate the root; without it the root is found by its magic. */
hi_status hi_target_open_raw (const char *const *paths, const uint64_t *bases,
                              size_t n, const char *elf,
                              struct hi_target *out);

/* The kernel's id of the thread whose thread pointer (fs_base) is
   FS_BASE in T, from its glibc thread descriptor (where a host numbers
   threads its own way: gdb).  0 with *TID set, or -1. */
int hi_target_thread_id (const struct hi_target *t, uint64_t fs_base,
                         uint64_t *tid);

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

/* What a file holds, from its first bytes (hi_target_open_file). */
#define HI_FILE_SNAPSHOT 1u    /* a heapinspect snapshot */
#define HI_FILE_ELF 2u         /* an ELF file: a core (or a program) */
/* Open the file PATH as a target, its kind told once from its first
   bytes: a snapshot (hi_target_open_snapshot) or an ELF core
   (hi_target_open_core, with EXE), each only if ACCEPT (HI_FILE_* bits)
   takes it.  *KIND, if not NULL, gets the kind found (0: neither).
   HI_E_IO if it cannot be read or is no regular file; HI_E_NOT_SNAPSHOT
   for a kind not accepted; else as the opener of its kind. */
hi_status hi_target_open_file (const char *path, const char *exe,
                               unsigned accept, struct hi_target *out,
                               unsigned *kind);

/* Finish reading T (resume a stopped process); a status to report. */
hi_status hi_target_finish (struct hi_target *t);
void hi_target_close (struct hi_target *t);

/* 1 if the monitor in T's memory (its root by symbol) was attached to
   the running program (heapinspect attach) and is detached now: its
   figures are those of the attached time, frozen.  0 if not (recording,
   preloaded, a format before 6), -1 if its root cannot be read.  Reads
   the root and the process record only, as a listing needs. */
int hi_target_monitor_detached (const struct hi_target *t);

/* The monitor's data, copied out of a target and validated: every index
   is in range and every parent link points to an older node, so walks
   terminate.  Entries that fail validation are counted, not used.
   Opaque to the hosts. */
struct hi_model;

/* Read and validate the model from T into *OUT (free with hi_model_free). */
hi_status hi_model_load (const struct hi_target *t, struct hi_model **out);
/* As hi_model_load, with the time the data is from (hi_target_time) told
   by CLOCK instead of T (NULL: T): for a host whose target reads through
   another, gdb's inferior while gdb holds the core file or the process,
   so that its report has the time heapinspect(1) gives. */
hi_status hi_model_load_clocked (const struct hi_target *t,
                                 const struct hi_target *clock,
                                 struct hi_model **out);
void hi_model_free (struct hi_model *m);
/* For model M of a process the monitor was attached to (heapinspect
   attach), read from T: count the chunks glibc holds in use that hold
   no block of the monitor's (made before the attach, or by the dynamic
   loader or glibc itself since), which the summary and `stat` then
   show.  Call it before hi_target_finish (a live process must still be
   stopped).  Where T cannot tell (a snapshot file, glibc's heap not
   readable), M says why instead.  Does nothing for a model not
   attached.  HI_OK, or HI_E_NOMEM. */
hi_status hi_model_count_foreign (const struct hi_target *t,
                                  struct hi_model *m);
/* For a host that attaches the monitor: the chunks glibc holds in use
   in T, read before the attach (no monitor yet), their number and
   usable bytes.  HI_OK; HI_E_NO_GLIBC with *WHY saying why not;
   HI_E_NOMEM. */
hi_status hi_glibc_in_use (const struct hi_target *t, uint64_t *blocks,
                           uint64_t *bytes, const char **why);
/* ... and those figures for model M of the same process read where
   glibc's heap is gone (the snapshot it wrote at its exit): the summary
   and `stat` show them as read at the attach.  Nothing for a model not
   attached, or whose count hi_model_count_foreign made. */
void hi_model_set_foreign_at_attach (struct hi_model *m, uint64_t blocks,
                                     uint64_t bytes);
/* How much validation dropped or corrected in M: 0 when M is whole. */
uint64_t hi_model_damaged (const struct hi_model *m);
/* What validation dropped or corrected in M, as one phrase for a message
   ("2 of 3400 sites unreadable, 1 impossible counter corrected"), into
   BUF of SIZE bytes; "" when M is whole. */
void hi_model_damage_text (const struct hi_model *m, char *buf, size_t size);
/* The modules the monitor recorded in M: *N of them (format.h's
   struct hi_module), owned by M. */
const struct hi_module *hi_model_modules (const struct hi_model *m,
                                          uint64_t *n);
/* LATER becomes what changed since EARLIER, two reads of one process
   (EARLIER first): each site's counters less EARLIER's (what its chain
   allocated and freed in between), without the figures at the peak; a
   profile format of hi_report then writes the delta (a chain's in-use
   figures as its allocations less its frees in between, 0 where more
   was freed), its run time the window between the reads (a profile's
   duration; its time stays LATER's).  HI_E_USAGE, LATER unchanged, if
   EARLIER is no earlier read of the same process. */
hi_status hi_model_subtract (struct hi_model *later,
                             const struct hi_model *earlier);

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
  /* The monitor's own memory: its arenas' entries in use, in bytes (the
     summary's "monitor" line; not a row of the table). */
  uint64_t monitor_bytes;
};
void hi_stat_compute (const struct hi_model *m, struct hi_stat *out);

/* --weight: the figure of each chain the folded stacks and the SVG
   flame graph show (pprof's sample types). */
enum hi_weight
{
  HI_WEIGHT_INUSE_SPACE,     /* the default, as pprof's */
  HI_WEIGHT_INUSE_OBJECTS,
  HI_WEIGHT_ALLOC_SPACE,
  HI_WEIGHT_ALLOC_OBJECTS,
  HI_WEIGHT_PEAK_SPACE,      /* live at the peak (time data; else 0) */
  HI_WEIGHT_PEAK_OBJECTS,
};
#define HI_WEIGHT_LAST HI_WEIGHT_PEAK_OBJECTS

enum hi_verbosity { HI_TERSE, HI_NORMAL, HI_VERBOSE };
/* --format, one list: X (ID, NAME, EMIT), HI_ID, the name --format takes
   and the emitter (hi_emit_EMIT, internal).  The tables as text or JSON, or the chains as a profile
   (pprof's protobuf, gperftools' heap text, collapsed stacks, an SVG
   flame graph), which ignore -t; or the timeline as valgrind massif's
   massif.out, which ignores -t too.  An SVG of -t timeline alone is the
   stacked timeline, not the flame graph. */
#define HI_FORMATS(X) \
  X (TEXT, "text", text) X (JSON, "json", json) X (PPROF, "pprof", pprof) \
  X (PPROF_TEXT, "pprof-text", pprof_text) X (FOLDED, "folded", folded) \
  X (SVG, "svg", svg) X (MASSIF, "massif", massif)
enum hi_format
{
#define HI_X_ENUM(id, name, emit) HI_##id,
  HI_FORMATS (HI_X_ENUM)
#undef HI_X_ENUM
  HI_NFORMATS
};

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

/* The reports with tables of their own (the leak check, diff) take no
   -t (O->tables_given) and write text or JSON only: 0 if O asks for
   neither, else -1 with one line saying so in ERR (ERRSIZE bytes), for
   the command WHAT ("--leak-check", "lost").  heapinspect(1) and gdb
   refuse the same requests with it.  Thread-safe. */
int hi_own_report_check (const struct hi_options *o, const char *what,
                         char *err, size_t errsize);

/* Remove the shell's quoting from WORD, in place: 'x' keeps x as it is,
   "x" keeps x but for \ before one of \ " $ `, and outside quotes \c is
   c.  gdb hands a user command its words with their quotes, so `heap
   leaks --focus='a b'` gives the regular expression `a b`, as the shell
   gives it to heapinspect(1).  0; -1 if a quote is not closed, -2 if the
   word ends with a lone \ (WORD is then undefined).  Thread-safe. */
int hi_unquote (char *word);

/* The registry of tables and formats: the one list each, from which the
   report's dispatch, the option parser, the usage and error texts, the
   gdb protocol and `help heap` are made.  X (ID, NAME, BUILD, NAMES):
   HI_TABLE_ID, the name -t and `heap` take, the builder (hi_table_BUILD,
   internal), and whether it needs the chains' names (a symbolizer). */
#define HI_TABLES(X) \
  X (LEAKS, "leaks", leaks, 1) X (BINS, "bins", bins, 1) \
  X (DIRECT, "direct", direct, 1) X (GRAPH, "graph", graph, 1) \
  X (STAT, "stat", stat, 0) X (PEAK, "peak", peak, 1) \
  X (TEMPORARY, "temporary", temporary, 1) \
  X (LIFETIMES, "lifetimes", lifetimes, 1) \
  X (TIMELINE, "timeline", timeline, 1) X (ERRORS, "errors", errors, 1) \
  X (TYPES, "types", types, 1)
enum hi_table_id
{
#define HI_X_ENUM(id, name, build, names) HI_TABLE_##id,
  HI_TABLES (HI_X_ENUM)
#undef HI_X_ENUM
  HI_NTABLES
};

/* glibc's own heap of target T, read with no monitor needed
   (reader/glibc/): its totals under mallinfo2()'s names and one row per
   arena with malloc_info()'s figures, in text or JSON, to OUT; NAME
   names the source.  HI_E_NO_GLIBC with *WHY saying why in a few words;
   HI_E_USAGE for another format, nothing written; HI_E_NOMEM,
   HI_E_WRITE. */
hi_status hi_glibc_report (const struct hi_target *t, const char *name,
                           const struct hi_options *opt, FILE *out,
                           const char **why);

/* Whether a thread of T holds one of glibc's arena locks (it is inside
   malloc or free): 1, 0 if none, -1 if glibc's heap cannot be read.
   For a caller that would make the process call malloc. */
int hi_glibc_locked (const struct hi_target *t);

/* `-t bins` for glibc's own heap of T (no monitor needed): every chunk
   by its usable size, in use and free, counts and bytes, to OUT.
   Statuses as hi_glibc_report's. */
hi_status hi_glibc_bins_report (const struct hi_target *t, const char *name,
                                const struct hi_options *opt, FILE *out,
                                const char **why);

/* What glibc's heap of T says of ADDR (no monitor needed): its chunk,
   size, state (in use, in a thread's tcache, a fastbin, a bin, the top,
   mmapped), arena, neighbours and C++ type (by its vtable), in text or
   JSON, to OUT.  HI_E_NOT_BLOCK if no heap of glibc's holds it: an
   address on a thread's stack gets a report naming the thread (its
   LWP and start function), anything else nothing.  *WRITTEN (may be
   NULL): 1 if a report was written.  Else as hi_glibc_report. */
hi_status hi_glibc_block_report (const struct hi_target *t, const char *name,
                                 uint64_t addr, const struct hi_options *opt,
                                 FILE *out, const char **why, int *written);

/* A consistency walk of glibc's heap of T, as glibc's own checks would
   find it at its next call (size words, prev_size, bin links, fastbin
   and tcache entries, a chunk in two lists), without aborting anything:
   the first damaged chunk in glibc's words and the in-use chunk before
   it, to OUT.  *PROBLEMS: how many problems (0: consistent).  Errors as
   hi_glibc_report's. */
hi_status hi_glibc_verify_report (const struct hi_target *t, const char *name,
                                  const struct hi_options *opt, FILE *out,
                                  const char **why, uint64_t *problems);

/* The --leak-check of T without the monitor: memcheck's classes over
   glibc's in-use chunks (their usable sizes), grouped by size, to OUT.
   *TOTALS, if not NULL, gets the classes' figures.  Errors as
   hi_glibc_report's, and HI_E_NO_MEMORY for a target without a memory
   map. */
struct hi_reach_totals;
hi_status hi_glibc_leak_report (const struct hi_target *t, const char *name,
                                const struct hi_options *opt, FILE *out,
                                const char **why,
                                struct hi_reach_totals *totals);

/* The names of HI_TABLES, ", " between them, for messages: a static
   string.  Thread-safe. */
const char *hi_table_names (void);
/* 1 if LIST (comma-separated) names only known tables (HI_TABLES). */
int hi_tables_valid (const char *list);
/* Print the tables of LIST (comma-separated) of M to OUT, or its chains
   or timeline in a profile format; NAME names the source in JSON; EXE
   overrides the main executable's path.  *MISSING, if not NULL, gets how
   many modules could not be used. */
hi_status hi_report (const struct hi_model *m, const char *exe,
                     const char *name, const char *list,
                     const struct hi_options *opt, FILE *out,
                     unsigned *missing);

/* Check OPT's filters and suppressions file without reading any target:
   for a host to refuse bad options at once.  HI_OK, or the status and
   detail hi_filters_new gives.  *IGNORED, if not NULL, gets the lines of
   other sanitizers' kinds the file holds. */
hi_status hi_filters_check (const struct hi_options *opt, uint32_t *ignored);

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

/* The `block ADDR` report, the one path heapinspect(1) and gdb share:
   what ADDR is in model M (read from T), symbolized with EXE (may be
   NULL), in OPT's format (JSON, else text) to OUT.  HI_OK if ADDR is in
   a block's bytes (live, quarantined or freed), HI_E_NOT_BLOCK if not
   (both printed), else an error (nothing printed). */
hi_status hi_block_report (const struct hi_target *t, const struct hi_model *m,
                           const char *exe, uint64_t addr,
                           const struct hi_options *opt, FILE *out);

/* Why a recorded module cannot be symbolized. */
enum hi_module_problem
{
  HI_MOD_OK,
  HI_MOD_NO_FILE,     /* no file to read (the vdso): not a problem */
  HI_MOD_PATH_CUT,    /* its path was too long to record */
  HI_MOD_UNREADABLE,  /* cannot be opened (errno), or not a regular file */
  HI_MOD_BUILD_ID,    /* the file's build-id differs from the run's */
  HI_MOD_NOT_PROGRAM, /* not an ELF executable or shared library (a
                         text file, a core given as the executable) */
};

/* Call SAY (CTX, PATH, PROBLEM, ERRNO) for each loaded module of M that
   hi_symbolizer_new (M, EXE) could not use, with the path it tried. */
void hi_modules_check (const struct hi_model *m, const char *exe,
                       void (*say) (void *ctx, const char *path,
                                    enum hi_module_problem p, int err),
                       void *ctx);

/* The classes, in the order the summary and the table show them. */
enum hi_reach_class
{
  HI_REACH_DEFINITE,   /* no pointer reaches it: definitely lost (a
                          clique leader, or a block in a cycle's leader's
                          clique that nothing else points to) */
  HI_REACH_INDIRECT,   /* reached only from definitely lost blocks */
  HI_REACH_POSSIBLE,   /* reached only by interior pointers, or from
                          possibly lost blocks */
  HI_REACH_REACHABLE,  /* reached by a start pointer from a root or from
                          a reachable block */
  HI_REACH_NCLASSES
};

/* "definitely lost", "indirectly lost", "possibly lost", "still
   reachable": memcheck's words; NULL for a value out of range. */
const char *hi_reach_class_name (int cls);
/* "definite", "indirect", "possible", "reachable": memcheck's
   --show-leak-kinds words (JSON keys). */
const char *hi_reach_class_key (int cls);

struct hi_reach_figure
{
  uint64_t bytes;            /* requested bytes of the blocks */
  uint64_t blocks;
};

/* The totals per class, what `run --leak-check --error-exitcode` and
   the summary lines use. */
struct hi_reach_totals
{
  struct hi_reach_figure cls[HI_REACH_NCLASSES];
};

/* For a host that lets its user interrupt the reachability scan (gdb's
   Ctrl-C): while CHECK is set, the scan calls it now and then, and once
   it returns nonzero stops, and hi_reach_report returns
   HI_E_INTERRUPTED, nothing written.  NULL (the default): never.  Not
   thread-safe: set it while no scan runs. */
void hi_reach_set_interrupt (int (*check) (void));

/* The --leak-check report, the one path heapinspect(1), `run
   --leak-check` and gdb's `heap lost` share: scan T (model M, read from
   T; symbolized with EXE, may be NULL; NAME names the source), then
   write OPT's format, text or JSON, to OUT: memcheck's summary lines
   (definitely lost: B bytes in N blocks, ...), what was searched and
   skipped, then the chains of each class (definitely lost first, most
   bytes first; OPT's depth, offsets, threshold (of the class's bytes),
   limit (per class) and filters apply to the rows, never to the
   summary; blocks the suppressions hide are in no class of the summary
   but in its "suppressed" line, as memcheck's).  *TOTALS, if not NULL,
   gets the four classes' totals without the suppressed blocks (for an
   exit status).  *MISSING as hi_report's.  HI_E_USAGE for
   another format, HI_E_NO_MEMORY (both with nothing written: the host
   says it in one line), HI_E_NOMEM, HI_E_REGEX, HI_E_SUPPRESSIONS,
   HI_E_WRITE. */
hi_status hi_reach_report (const struct hi_target *t,
                           const struct hi_model *m, const char *exe,
                           const char *name, const struct hi_options *opt,
                           FILE *out, struct hi_reach_totals *totals,
                           unsigned *missing);

/* `heapinspect ref ADDR` and gdb's `heap ref`, one path for both: the
   live block of T holding ADDR (the monitor's block with model M, read
   from T, symbolized with EXE, may be NULL; without the monitor, M
   NULL, glibc's in-use chunk), and what holds it alive: every root (a
   thread's register, a stack slot, TLS, a module's data or bss with its
   variable when the file names it, other memory) and every block that
   holds a pointer to its start or into it, and one shortest path of
   pointers from a root to it (breadth-first over the edges the
   --leak-check scan follows, start and interior pointers), or that no
   root reaches it and its leak class.  OPT's format (text or JSON),
   its limit (rows of roots and of blocks; 20 by default) and depth
   apply; NAME names the source.  To OUT.  HI_OK; HI_E_NOT_BLOCK when
   no live block holds ADDR (one line written); HI_E_USAGE for another
   format, HI_E_NO_MEMORY for a target without a memory map,
   HI_E_NO_GLIBC (without M) with *WHY saying why (nothing written);
   HI_E_NOMEM, HI_E_INTERRUPTED (hi_reach_set_interrupt), HI_E_WRITE. */
hi_status hi_ref_report (const struct hi_target *t, const struct hi_model *m,
                         const char *exe, const char *name, uint64_t addr,
                         const struct hi_options *opt, FILE *out,
                         const char **why);

/* One file being written.  F is where the output goes; the rest is the
   helper's own.  F's stream refers to O: O must stay where it is (not
   be copied) until it is committed or aborted.  Not thread-safe: one
   thread writes one hi_outfile. */
struct hi_outfile
{
  FILE *f;                   /* write the output here */
  char *path;                /* what the output becomes (malloc'd) */
  char *tmp;                 /* the temporary file, or NULL when PATH is
                                written in place (malloc'd) */
  int fd;                    /* F's descriptor */
  int err;                   /* errno of F's first failed write, or 0 */
};

/* Start writing PATH.  A regular file (new, or replacing one; through a
   symbolic link, the file it names) is written to a new temporary file
   ".NAME.XXXXXX" beside it (O_EXCL, O_NOFOLLOW; mode 0666 less the umask,
   or the mode of the file it replaces), PATH itself untouched until
   hi_outfile_commit.  Something
   that is not a regular file (a terminal, a pipe, /dev/null) is written
   in place: there is nothing to replace.  Returns HI_OK with O->F open,
   or HI_E_WRITE with errno's detail (hi_strerror says why: "Is a
   directory", "Permission denied", ...) and O cleared. */
hi_status hi_outfile_open (struct hi_outfile *o, const char *path);

/* Finish: flush, check that every write succeeded, sync, close and
   rename the temporary file over PATH.  On any failure the temporary
   file is removed and PATH left as it was; returns HI_E_WRITE with
   errno's detail.  O is finished either way. */
hi_status hi_outfile_commit (struct hi_outfile *o);

/* Give up: close and remove the temporary file; PATH is left as it was.
   Does nothing to a cleared O (after a failed open, or twice). */
void hi_outfile_abort (struct hi_outfile *o);

#endif
