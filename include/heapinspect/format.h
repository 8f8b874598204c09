/* format.h - the monitor's in-memory data format and the snapshot file format.
 *
 * This header is the single source of truth shared by the monitor
 * (libheapinspect) and every reader.  All fields have fixed widths;
 * addresses are uint64_t.  The monitor keeps its state in a few mmap'd
 * arenas listed by one exported root, `heapinspect_root`.  A reader finds
 * the root by symbol, or by scanning memory for HI_ROOT_MAGIC, then reads
 * the arenas it lists.  Readers must validate everything: a core may be
 * torn or hostile.
 *
 * Any change of layout increments HI_FORMAT_VERSION; the assertions at
 * the end of this file fail to compile until they are updated with it.
 * Version history: 1 first release; 2 counts, calls and bins per thread
 * (struct hi_thread), the bins arena unused; 3 the process's command
 * line and start time (struct hi_process, arena HI_ARENA_PROCESS) and,
 * in a snapshot's copy of the root, when the snapshot was taken; 4 time:
 * the allocation clock and the peak's generation in the root, each
 * chain's figures at the peak and its temporary allocations (arenas
 * HI_ARENA_SITE_TIME, HI_ARENA_THREAD_TIME), the timeline (arena
 * HI_ARENA_TIMELINE), lifetimes when the process asked for them
 * (HI_TIME_LIFETIMES: a birth stamp before every block header), and room
 * for 8 more arenas (root.more_arenas).
 * 5 heap errors and guards: reports of double and invalid frees and of
 * corruption (arena HI_ARENA_ERRORS), the quarantine of freed blocks
 * (arena HI_ARENA_QUARANTINE, HI_CHECK_QUARANTINED headers), redzones
 * after blocks, and the client API (types and pools).
 * 6 an attached monitor's periods: struct hi_process grows by the time
 * attached and the detach's time (HI_PROCESS_DETACHED); the root is
 * version 5's.
 * Readers of version 6 read versions 2 to 5 as well (HI_ROOT_SIZE_V2,
 * HI_ROOT_SIZE_V3, HI_ROOT_SIZE_V4, HI_ROOT_SIZE_V5): their roots are the
 * first bytes of this one, their arenas are these but for the ones they
 * lack, and their process record is the first HI_PROCESS_SIZE_V5 bytes of
 * this one.
 */
#ifndef HEAPINSPECT_FORMAT_H
#define HEAPINSPECT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define HI_ROOT_MAGIC      UINT64_C(0x31544f4f52504948) /* "HIPROOT1" */
#define HI_FORMAT_VERSION  6u
#define HI_FORMAT_OLDEST   2u     /* the oldest version readers still read */
#define HI_ORDER_LITTLE    1u
#define HI_ORDER_BIG       2u

/* Size classes of mprof: s <= 32 < m <= 256 < l <= 2048 < x. */
enum hi_size_class { HI_SC_S, HI_SC_M, HI_SC_L, HI_SC_X, HI_NSIZE_CLASSES };

static inline unsigned
hi_size_class (uint64_t size)
{
  return size <= 32 ? HI_SC_S : size <= 256 ? HI_SC_M
         : size <= 2048 ? HI_SC_L : HI_SC_X;
}

/* Size bins: one per requested size 0..HI_BIN_MAX, one for larger sizes. */
#define HI_BIN_MAX   1024u
#define HI_NBINS     (HI_BIN_MAX + 2u)

static inline unsigned
hi_bin_of (uint64_t size)
{
  return size <= HI_BIN_MAX ? (unsigned) size : HI_BIN_MAX + 1u;
}

/* Entry points whose calls are counted, in this order. */
#define HI_ENTRY_POINTS(X) \
  X (malloc) X (free) X (calloc) X (realloc) X (reallocarray) \
  X (memalign) X (posix_memalign) X (aligned_alloc) X (valloc) \
  X (pvalloc) X (malloc_usable_size)
#define HI_CALL_ENUM(name) HI_CALL_##name,
enum hi_call { HI_ENTRY_POINTS (HI_CALL_ENUM) HI_NCALLS };
#undef HI_CALL_ENUM

/* Arena kinds.  Each arena is an array of fixed-size entries. */
enum hi_arena_kind
{
  HI_ARENA_NODES = 1,   /* struct hi_node: the calling-context tree */
  HI_ARENA_SITES,       /* struct hi_site: counters per allocation chain */
  HI_ARENA_BINS_UNUSED, /* (bins are per thread now) */
  HI_ARENA_THREADS,     /* struct hi_thread: per-thread counters */
  HI_ARENA_MODULES,     /* struct hi_module: loaded objects */
  HI_ARENA_HASH,        /* uint32_t slots: the monitor's own index; readers skip it */
  HI_ARENA_PROCESS,     /* struct hi_process: one entry (version 3 on) */
  HI_ARENA_SITE_TIME,   /* struct hi_site_time or, with lifetimes, struct
                           hi_site_life: entry i goes with site i (version
                           4 on) */
  HI_ARENA_THREAD_TIME, /* struct hi_thread_time: entry i goes with thread
                           record i (version 4 on) */
  HI_ARENA_TIMELINE,    /* struct hi_timeline: one entry (version 4 on) */
  HI_ARENA_ERRORS,      /* struct hi_error: the first heap errors found
                           (version 5 on) */
  HI_ARENA_QUARANTINE,  /* struct hi_freed: the quarantine's ring (version
                           5 on, with HEAPINSPECT_QUARANTINE) */
  HI_ARENA_TYPES,       /* client API: types (version 5 on; see below) */
  HI_ARENA_POOLS,       /* client API: pools (version 5 on; see below) */
  HI_NARENA_KINDS
};

#define HI_MAX_ARENAS 8       /* in root.arenas */
#define HI_MAX_MORE_ARENAS 8  /* in root.more_arenas (version 4 on); the
                                 root's n_arenas counts both lists */

struct hi_arena_desc
{
  uint64_t addr;        /* address of entry 0 in the process */
  uint64_t capacity;    /* entries reserved */
  uint64_t count;       /* entries in use; entry i < count is complete */
  uint32_t kind;        /* enum hi_arena_kind */
  uint32_t entry_size;  /* bytes per entry */
};

/* Process-wide totals.  Allocation and free counts, calls and size bins
   are kept per thread (struct hi_thread) and summed by readers; here is
   what must be shared. */
struct hi_totals
{
  uint64_t live_bytes;        /* live bytes as flushed by the threads, for
                                 peak_bytes: exact while one thread allocates,
                                 else within HI_PEAK_BATCH per thread */
  uint64_t peak_bytes;
  uint64_t live_blocks;       /* likewise for live blocks and peak_blocks */
  uint64_t peak_blocks;
  uint64_t foreign_frees;     /* pointers not ours passed to free/realloc */
  uint64_t chains_truncated;  /* chains cut at the depth cap */
  uint64_t chains_dropped;    /* chains not recorded: a table was full */
  uint64_t internal_allocs;   /* the monitor's own nested allocations */
  uint64_t snapshots;         /* snapshot files written */
  uint64_t unwind_fallbacks;  /* chains the fast unwinder left to libgcc */
  uint64_t unwind_checked;    /* chains compared with libgcc's (CHECK_UNWIND) */
  uint64_t unwind_mismatches; /* ... that differed */
};

struct hi_root
{
  uint64_t magic;             /* HI_ROOT_MAGIC */
  uint32_t version;           /* HI_FORMAT_VERSION: never moves */
  uint32_t root_size;         /* sizeof (struct hi_root) */
  uint8_t  pointer_size;      /* 8 or 4 */
  uint8_t  byte_order;        /* HI_ORDER_LITTLE or HI_ORDER_BIG */
  uint16_t max_depth;         /* chain depth cap in effect */
  uint32_t header_salt;       /* mixed into every block header check */
  uint64_t pid;               /* the process that owns this data */
  uint32_t ready;             /* 1 once the arenas below are set up */
  uint32_t n_arenas;
  struct hi_arena_desc arenas[HI_MAX_ARENAS];
  struct hi_totals totals;
  /* Version 3 on.  0 in the process; a snapshot file's copy of the root
     says when it was written (CLOCK_REALTIME and CLOCK_MONOTONIC, ns),
     less the time `heapinspect run --leak-check` held the process at its
     exit stop before (leak-stop.h), when the program did nothing. */
  uint64_t snapshot_realtime_ns;
  uint64_t snapshot_monotonic_ns;
  /* Version 4 on: time. */
  uint64_t alloc_clock;       /* the allocation clock: bytes allocated by
                                 the process so far, flushed with
                                 totals.live_bytes (exact while one thread
                                 allocates, else within HI_PEAK_BATCH per
                                 thread) */
  uint64_t peak_gen;          /* how many times totals.peak_bytes rose: the
                                 generation of the latest peak (struct
                                 hi_peak_share) */
  uint64_t peak_clock;        /* alloc_clock when the latest peak was
                                 reached */
  uint32_t time_flags;        /* HI_TIME_* */
  uint32_t birth_size;        /* bytes of struct hi_block_birth before every
                                 block header: sizeof (struct
                                 hi_block_birth) with HI_TIME_LIFETIMES, 0
                                 without */
  struct hi_arena_desc more_arenas[HI_MAX_MORE_ARENAS];
  /* Version 5 on: heap errors and guards, set before the first block is
     handed out and never changed, but for the counters. */
  uint32_t guard_flags;       /* HI_GUARD_* */
  uint32_t redzone;           /* guard bytes after every block's user
                                 bytes, HI_REDZONE_BYTE each
                                 (HEAPINSPECT_REDZONE); 0: none */
  uint64_t quarantine_limit;  /* bytes of freed blocks the quarantine
                                 holds at most (HEAPINSPECT_QUARANTINE);
                                 0: off */
  uint64_t quarantine_bytes;  /* user bytes of the blocks it holds now */
  uint64_t quarantine_head;   /* ring position of the oldest held entry of
                                 HI_ARENA_QUARANTINE (modulo its capacity;
                                 counts up for ever) */
  uint64_t quarantine_tail;   /* ring position of the next entry to fill */
  uint64_t errors_total;      /* heap errors found; the first ones (the
                                 arena's capacity) are in HI_ARENA_ERRORS */
  uint64_t client[6];         /* the client API's (types, pools): 0 until
                                 it defines them */
};

/* The root of version 2: the fields up to `totals`; of version 3: up to
   snapshot_monotonic_ns; of version 4: up to more_arenas; of version 5:
   all of it (version 6 changed the process record alone). */
#define HI_ROOT_SIZE_V2 392u
#define HI_ROOT_SIZE_V3 408u
#define HI_ROOT_SIZE_V4 696u
#define HI_ROOT_SIZE_V5 792u

/* root.time_flags */
#define HI_TIME_LIFETIMES 1u  /* HEAPINSPECT_LIFETIMES=1: birth stamps and
                                 struct hi_site_life */

/* What the monitor records about its process when it starts (version 3
   on): the command line and the time.  A child of fork() keeps the
   command line and restarts the clock: its times are its own. */
#define HI_CMDLINE_MAX        4096u
#define HI_PROCESS_CMDLINE_CUT 1u   /* the command line was longer: cut */
#define HI_PROCESS_ATTACHED   2u    /* the monitor was started in a running
                                       program (heapinspect_attach): the
                                       start times are the attach's, and
                                       blocks from before have no header */
#define HI_PROCESS_DETACHED   4u    /* with HI_PROCESS_ATTACHED (version 6
                                       on): heapinspect_detach gave the
                                       malloc family back to glibc at
                                       detached_*_ns; the figures are those
                                       of the attached time, frozen since */

/* The process record of versions 3 to 5: up to cmdline. */
#define HI_PROCESS_SIZE_V5 4120u

struct hi_process
{
  uint64_t start_realtime_ns;   /* CLOCK_REALTIME at start, ns since 1970 */
  uint64_t start_monotonic_ns;  /* CLOCK_MONOTONIC at the same moment */
  uint32_t flags;               /* HI_PROCESS_* */
  uint32_t cmdline_len;         /* bytes of cmdline in use; 0: unknown */
  /* /proc/self/cmdline as it was at start: each argument followed by a
     NUL (the last one's NUL is missing when cut). */
  char     cmdline[HI_CMDLINE_MAX];
  /* Version 6 on, with HI_PROCESS_ATTACHED: the attach periods (an
     attach, its detach, another attach...).  start_*_ns are the first
     attach's. */
  uint64_t attached_ns;         /* time attached in the periods that
                                   ended (all of them while detached) */
  uint64_t period_monotonic_ns; /* CLOCK_MONOTONIC when the latest period
                                   began */
  uint64_t detached_realtime_ns;  /* with HI_PROCESS_DETACHED: when the */
  uint64_t detached_monotonic_ns; /* latest period ended; else 0 */
};

/* Calling-context tree.  Node 0 is the root (the outermost caller);
   node HI_NODE_CUT is the parent of chains cut at the depth cap.  Each
   other node is one caller/callee pair: `ret` is a return address in the
   caller, `parent` the node of the caller's own caller. */
#define HI_NODE_ROOT 0u
#define HI_NODE_CUT  1u

struct hi_node
{
  uint64_t ret;
  uint32_t parent;
  uint32_t site;      /* site id if an allocation chain ends here, else 0 */
};

/* Sites: one per distinct allocation chain (a leaf node).  Site 0 collects
   allocations whose chain could not be recorded.  Counters per size class. */
#define HI_SITE_UNKNOWN  0u
#define HI_SITE_INTERNAL UINT32_C(0xffffffff) /* monitor's own blocks */

struct hi_site
{
  uint32_t node;
  uint32_t depth;
  uint64_t allocs[HI_NSIZE_CLASSES];
  uint64_t frees[HI_NSIZE_CLASSES];
  uint64_t bytes[HI_NSIZE_CLASSES];
  uint64_t bytes_freed[HI_NSIZE_CLASSES];
};

struct hi_bin
{
  uint64_t allocs;
  uint64_t frees;
  uint64_t bytes;
  uint64_t bytes_freed;
};

/* Counters of a site kept by one thread (its busiest sites); readers add
   them to the site's shared counters. */
#define HI_THREAD_SITES 64u
#define HI_PEAK_BATCH   65536u    /* bytes */
#define HI_PEAK_BATCH_BLOCKS 256u

struct hi_thread_site
{
  uint32_t site;            /* 0: entry unused */
  uint32_t unused;
  uint64_t allocs[HI_NSIZE_CLASSES];
  uint64_t frees[HI_NSIZE_CLASSES];
  uint64_t bytes[HI_NSIZE_CLASSES];
  uint64_t bytes_freed[HI_NSIZE_CLASSES];
};

/* Per-thread counters, written only by their own thread (except the
   last slot, shared by threads beyond the capacity); readers sum them.
   `allocations` counts every block handed out; a successful realloc of a
   non-NULL pointer counts one free and one allocation (valgrind
   memcheck's convention).  A free counts in the freeing thread. */
struct hi_thread
{
  uint64_t tid;
  uint64_t chains;          /* chains captured */
  uint64_t frames;          /* frames in those chains */
  uint64_t frames_cached;   /* frames resolved without a pair lookup
                               (the chain cache or the prefix cache) */
  uint64_t allocations;
  uint64_t frees;
  uint64_t bytes_allocated;
  uint64_t bytes_freed;
  uint64_t calls[HI_NCALLS];
  struct hi_bin bins[HI_NBINS];
  struct hi_thread_site sites[HI_THREAD_SITES];
};

#define HI_MODULE_LOADED   1u
#define HI_MODULE_PATH_CUT 2u
#define HI_BUILD_ID_MAX    32u
#define HI_PATH_MAX        440u

struct hi_module
{
  uint64_t bias;            /* load bias (l_addr) */
  uint64_t start, end;      /* lowest and highest address of PT_LOAD segments */
  uint32_t flags;
  uint32_t build_id_len;
  uint8_t  build_id[HI_BUILD_ID_MAX];
  char     path[HI_PATH_MAX]; /* NUL-terminated */
};

/* Time (version 4 on).

   The peak and who made it.  Every record of a chain's counters (the
   chain's shared counters, struct hi_site, and each thread's, struct
   hi_thread_site) has a share beside it: the record's own live bytes and
   blocks, and what they were at the latest peak.  When a record changes
   and its peak_gen is older than root.peak_gen, the monitor first copies
   live_* to peak_* and sets peak_gen to root.peak_gen; then it changes
   live_*.  So a reader finds the record's figures at the latest peak in
   peak_* if peak_gen == root.peak_gen (it changed since), else in live_*
   (it has not).  The chain's figures at the peak are the sum over its
   records.  A record's live figures are modulo 2^64: a thread that frees
   blocks another allocated goes below zero; the sums are right. */
struct hi_peak_share
{
  uint64_t live_bytes;
  uint64_t live_blocks;
  uint64_t peak_bytes;
  uint64_t peak_blocks;
  uint64_t peak_gen;
  uint64_t temporaries;     /* blocks freed by the thread that allocated
                               them with no other allocation or free by
                               that thread in between (heaptrack's
                               temporary allocations) */
};

/* HI_ARENA_SITE_TIME without lifetimes: entry i is site i's share. */
struct hi_site_time
{
  struct hi_peak_share share;
};

/* Lifetimes on the allocation clock: a freed block's lifetime is the
   bytes the process allocated after it and before its free.  Bucket 0
   holds lifetime 0; bucket k > 0 lifetimes in [2^(k-1), 2^k); the last
   bucket everything from 2^(HI_LIFE_BUCKETS-2) on. */
#define HI_LIFE_BUCKETS 48u

static inline unsigned
hi_life_bucket (uint64_t lifetime)
{
  unsigned k = lifetime ? 64u - (unsigned) __builtin_clzll (lifetime) : 0u;
  return k < HI_LIFE_BUCKETS ? k : HI_LIFE_BUCKETS - 1u;
}

/* HI_ARENA_SITE_TIME with HI_TIME_LIFETIMES: entry i is site i's share
   and its blocks' lifetimes (shared by all threads). */
struct hi_site_life
{
  struct hi_peak_share share;
  uint64_t life[HI_LIFE_BUCKETS]; /* freed blocks per lifetime bucket */
  uint64_t freed;           /* freed blocks with a birth stamp */
  uint64_t freed_ns;        /* the sum of their lifetimes in ns */
  uint64_t live;            /* live blocks with a birth stamp */
  uint64_t live_clock_sum;  /* the sum of their birth clocks (alloc_clock
                               after their own allocation) */
  uint64_t live_ns_sum;     /* the sum of their birth times (ns since the
                               monitor started) */
};

/* HI_ARENA_THREAD_TIME: entry i goes with thread record i; share k with
   that record's sites[k]. */
struct hi_thread_time
{
  struct hi_peak_share sites[HI_THREAD_SITES];
};

/* With HI_TIME_LIFETIMES, right before every block header (and, for an
   aligned block, right after the offset word): when the block was
   allocated. */
struct hi_block_birth
{
  uint64_t clock;           /* alloc_clock after this block's allocation */
  uint64_t time_ns;         /* CLOCK_MONOTONIC ns since the monitor started */
};

/* The timeline: points of (time, clock, live bytes, live blocks) spread
   over the whole run, massif's way: a point every `interval` bytes of the
   allocation clock (every allocation at first); when the points are all
   used, every other one is dropped and the interval doubles.  Every
   HI_TIMELINE_DETAIL_EVERY-th point is also a detailed one, holding the
   chains with the most live bytes then; the detailed points are thinned
   the same way.  The peak's own figures are in the root and the shares. */
#define HI_TIMELINE_POINTS       1024u
#define HI_TIMELINE_DETAILED     64u
#define HI_TIMELINE_TOP          32u
#define HI_TIMELINE_DETAIL_EVERY 10u

struct hi_tpoint
{
  uint64_t time_ns;         /* CLOCK_MONOTONIC ns since the monitor started */
  uint64_t clock;           /* alloc_clock */
  uint64_t live_bytes;
  uint64_t live_blocks;
};

struct hi_tchain
{
  uint32_t site;
  uint32_t unused;
  uint64_t live_bytes;
  uint64_t live_blocks;
};

struct hi_tdetail
{
  struct hi_tpoint at;
  uint32_t n_chains;        /* entries of chains in use, largest first */
  uint32_t unused;
  struct hi_tchain chains[HI_TIMELINE_TOP];
};

struct hi_timeline
{
  uint64_t interval;        /* clock bytes between points */
  uint64_t next_clock;      /* the clock of the next point */
  uint32_t n_points;        /* points in use, oldest first */
  uint32_t n_detailed;      /* detailed points in use, oldest first */
  uint64_t points_taken;    /* points ever taken (for DETAIL_EVERY) */
  struct hi_tpoint points[HI_TIMELINE_POINTS];
  struct hi_tdetail detailed[HI_TIMELINE_DETAILED];
};

/* Block header, 16 bytes right before every user pointer.  For blocks
   aligned beyond 16 bytes HI_BLOCK_ALIGNED is set in size_flags and the
   8 bytes before the header hold the distance from the underlying
   block's start to the header. */
#define HI_BLOCK_ALIGNED   (UINT64_C(1) << 63)
/* Version 5 on: bits 48 to 62 of size_flags hold the block's type (the
   client API's, below; 0: none).  No block is that large: a process of
   x86-64 Linux has at most 2^47 bytes of address space unless it asks
   mmap for more, which malloc never does. */
#define HI_BLOCK_TYPE_SHIFT 48
#define HI_BLOCK_TYPE_MASK (UINT64_C(0x7fff) << HI_BLOCK_TYPE_SHIFT)
#define HI_BLOCK_SIZE_MASK ((UINT64_C(1) << HI_BLOCK_TYPE_SHIFT) - 1)

struct hi_block_header
{
  uint32_t check;
  uint32_t site;
  uint64_t size_flags;
};

#define HI_HEADER_MAGIC UINT64_C(0x9e3779b97f4a7c15)

/* The check word: a magic mixed with the header's own address, the salt
   of the process, and the rest of the header, so neither random data nor
   a stale copy at another address passes. */
static inline uint32_t
hi_block_check (uint32_t salt, uint64_t header_addr, uint32_t site,
                uint64_t size_flags)
{
  uint64_t x = HI_HEADER_MAGIC ^ header_addr ^ ((uint64_t) salt << 32)
               ^ size_flags ^ ((uint64_t) site << 17);
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C(0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (uint32_t) x;
}

/* Heap errors and guards (version 5 on).

   The states of a block header at user pointer P - 16, with WANT =
   hi_block_check (salt, P - 16, site, size_flags):
     check == WANT                         live
     check == WANT ^ HI_CHECK_QUARANTINED  freed, held in the quarantine:
                                           its user bytes are all
                                           HI_FREED_BYTE unless written
                                           after the free; its entry in
                                           HI_ARENA_QUARANTINE has the
                                           free's chain
     check == ~WANT                        freed, given back to malloc
                                           (which may since have reused
                                           or overwritten the header)
   With root.redzone = N > 0, the N bytes right after every block's user
   bytes are HI_REDZONE_BYTE while it is live or quarantined. */
#define HI_CHECK_QUARANTINED UINT32_C(0x0fee0fee)
#define HI_FREED_BYTE   0xfdu
#define HI_REDZONE_BYTE 0xfbu

/* root.guard_flags: what happens when the monitor finds a heap error
   (HEAPINSPECT_ON_ERROR), one of: */
#define HI_GUARD_ON_ERROR_MASK   3u
#define HI_GUARD_ON_ERROR_ABORT  0u  /* report, record, abort() (a core) */
#define HI_GUARD_ON_ERROR_REPORT 1u  /* report, record, go on */
#define HI_GUARD_ON_ERROR_IGNORE 2u  /* record only */
#define HI_GUARD_QUARANTINE      4u  /* the quarantine is on */

/* What was wrong (struct hi_error's kind): X (NAME, VALUE, KEY), KEY
   its name in data (the errors table's kind column).
   DOUBLE_FREE      free or realloc of a block already freed
   INTERIOR_FREE    a pointer inside one of our blocks, not its start
   NOT_HEAP         a pointer to no heap block (where_kind says what it
                    points to)
   HEADER_CORRUPT   our header's check fails where a block of ours
                    starts: overwritten (other: the block before, the
                    likely overflow)
   WRITE_AFTER_FREE a quarantined block's fill changed
   REDZONE          a block's redzone changed: it overflowed */
#define HI_ERROR_KINDS(X) \
  X (DOUBLE_FREE,      1, "double_free") \
  X (INTERIOR_FREE,    2, "interior_free") \
  X (NOT_HEAP,         3, "not_heap") \
  X (HEADER_CORRUPT,   4, "header_corrupt") \
  X (WRITE_AFTER_FREE, 5, "write_after_free") \
  X (REDZONE,          6, "redzone")
#define HI_ERR_ENUM_(name, value, key) HI_ERR_##name = value,
enum hi_error_kind { HI_ERROR_KINDS (HI_ERR_ENUM_) HI_NERROR_KINDS };
#undef HI_ERR_ENUM_

/* When it was found (struct hi_error's when): X (NAME, VALUE, KEY, CALL),
   KEY its name in data, CALL the allocator call it was found in (0: in
   none).  REALLOC is realloc() or reallocarray(); EVICT as the block
   left the quarantine; SNAPSHOT while a snapshot was written. */
#define HI_ERROR_WHENS(X) \
  X (FREE,        1, "free",               "free") \
  X (REALLOC,     2, "realloc",            "realloc") \
  X (USABLE_SIZE, 3, "malloc_usable_size", "malloc_usable_size") \
  X (EVICT,       4, "evict",              0) \
  X (SNAPSHOT,    5, "snapshot",           0)
#define HI_WHEN_ENUM_(name, value, key, call) HI_WHEN_##name = value,
enum hi_error_when { HI_ERROR_WHENS (HI_WHEN_ENUM_) };
#undef HI_WHEN_ENUM_

/* The allocator call an error found WHEN is reported in: its CALL, or
   "free" when it has none. */
static inline const char *
hi_error_call (uint32_t when)
{
#define HI_WHEN_CALL_(name, value, key, call) \
  if (when == (value) && (call)) \
    return (call);
  HI_ERROR_WHENS (HI_WHEN_CALL_)
#undef HI_WHEN_CALL_
  return "free";
}

/* For HI_ERR_NOT_HEAP: what the pointer points to. */
enum hi_where_kind
{
  HI_WHERE_UNKNOWN = 0,    /* not known (not checked, or none of these) */
  HI_WHERE_STACK,          /* the calling thread's stack */
  HI_WHERE_MODULE,         /* a loaded object's image (.data, .bss, ...) */
  HI_WHERE_UNMAPPED        /* no memory at all */
};

/* HI_ARENA_ERRORS: one entry per error found, in order; entry i < count
   is complete.  The chains are site ids: the chain of a free (first_free,
   call_site) is interned as a site like an allocation's, whose counters
   stay 0, so tables of allocations never list it. */
#define HI_ERRORS_MAX 256u

/* struct hi_error's flags. */
#define HI_ERROR_FLAG_CHUNK_SIZE 1u  /* HEADER_CORRUPT: our header is whole,
                                        glibc's chunk size word before it
                                        is overwritten */
#define HI_ERROR_FLAG_AT_EXIT    2u  /* SNAPSHOT: found by the check of
                                        the quarantine at exit, not while
                                        a snapshot was written */

struct hi_error
{
  uint32_t kind;           /* enum hi_error_kind */
  uint32_t when;           /* enum hi_error_when */
  uint64_t addr;           /* the pointer passed to the call, or (evict,
                              snapshot) the block's user pointer */
  uint64_t block;          /* user pointer of the block concerned; 0 none */
  uint64_t block_size;     /* its size as allocated */
  uint32_t alloc_site;     /* its allocating chain; HI_SITE_UNKNOWN: none */
  uint32_t free_site;      /* the chain of its first free (quarantine);
                              HI_SITE_UNKNOWN: not known */
  uint32_t call_site;      /* the chain of the bad call (free, realloc);
                              HI_SITE_UNKNOWN: none (evict, snapshot) */
  uint32_t where_kind;     /* enum hi_where_kind, for HI_ERR_NOT_HEAP */
  uint64_t offset;         /* bytes from `block` to the first changed byte
                              (write after free, redzone) or to `addr`
                              (interior free) */
  uint64_t other;          /* HEADER_CORRUPT: user pointer of the nearest
                              valid block before the bad header; 0 none */
  uint64_t other_size;
  uint32_t other_site;
  uint32_t flags;          /* HI_ERROR_FLAG_*: what kind and when do not
                              say (0 from a monitor before them) */
  uint64_t tid;            /* the thread that made the bad call or found
                              the error */
  uint64_t time_ns;        /* CLOCK_MONOTONIC ns since the monitor started */
};

/* HI_ARENA_QUARANTINE: a ring of HI_QUARANTINE_SLOTS entries (its
   capacity); positions [root.quarantine_head, root.quarantine_tail) modulo
   the capacity are held.  A block leaves when the held bytes would pass
   root.quarantine_limit or the ring is full, oldest first.  An entry is
   current if `user` is not 0 and the header at user - 16 is quarantined
   (a reader checks both: the ring may be torn). */
#define HI_QUARANTINE_SLOTS (UINT32_C(1) << 20)

struct hi_freed
{
  uint64_t user;           /* the block's user pointer; 0: empty */
  uint64_t size;           /* its size as allocated */
  uint32_t alloc_site;
  uint32_t free_site;      /* the chain of the free */
  uint64_t tid;            /* the thread that freed it */
  uint64_t time_ns;        /* when, ns since the monitor started */
};

/* The client API (version 5 on): types, pools.

   Types.  A program that includes <heapinspect/typed.h> (C++'s typed
   new-expressions, C's HI_MALLOC, heapinspect_set_type) names the type
   of a block after it is allocated.  The type is kept per block: its
   record's index in HI_ARENA_TYPES in the header's size_flags
   (HI_BLOCK_TYPE_MASK; types beyond HI_TYPES_MAX are not recorded,
   counted in root.client[HI_CLIENT_TYPES_DROPPED]).  A block has one
   type, the latest named: naming another moves it from one pair to the
   other.

   HI_ARENA_TYPES holds struct hi_type_rec entries of two kinds (entry 0
   is unused): a TYPE (a key, once per type) and a PAIR (a type, a chain
   and a size bin: the counters of the blocks of that type that chain
   allocated in that bin).  A type's figures are the sum of its pairs'
   and its own (what no pair could take: the arena was full). */
#define HI_TYPES_MAX 32767u       /* type records the header can name */

enum hi_type_rec_kind
{
  HI_TREC_NONE = 0,        /* not (yet) complete: skip */
  HI_TREC_TYPE,
  HI_TREC_PAIR
};

/* A TYPE's flags: how its name is found. */
#define HI_TYPE_TAG      1u  /* key is the address of a per-type static
                                of typed.h (C++): the reader names it by
                                the symbol there, demangled */
#define HI_TYPE_NAMED    2u  /* name holds it (heapinspect_set_type,
                                HI_MALLOC); key is the address of the
                                program's string */
#define HI_TYPE_NAME_CUT 4u  /* the name was longer than HI_TYPE_NAME_MAX - 1 */
#define HI_TYPE_NAME_MAX 40u

struct hi_type_rec
{
  uint32_t kind;           /* enum hi_type_rec_kind */
  uint32_t type;           /* PAIR: its TYPE's entry index */
  uint32_t site;           /* PAIR: the chain that allocated its blocks */
  uint32_t bin;            /* PAIR: their size bin (hi_bin_of) */
  uint64_t key;            /* TYPE: the tag or string address */
  uint64_t elem_size;      /* TYPE: sizeof the type, 0 if not known */
  uint64_t allocs;         /* blocks given this type */
  uint64_t bytes;          /* their bytes */
  uint64_t frees;          /* of those, freed */
  uint64_t bytes_freed;
  uint32_t flags;          /* TYPE: HI_TYPE_* */
  uint32_t unused;
  char     name[HI_TYPE_NAME_MAX]; /* TYPE with HI_TYPE_NAMED: NUL-ended */
};

/* Pools (custom allocators: heapinspect.h's heapinspect_alloc ...).  A
   pool's blocks have no header (the pool owns its memory): the monitor
   keeps a record per live block in its own memory, which readers do not
   need.  Their chains are the allocating call's with one more innermost
   node whose `ret` is HI_POOL_FRAME + the pool's entry index in
   HI_ARENA_POOLS: readers show it as the pool's name.  Their sites'
   counters count them (so every table of chains has them); the threads'
   counts, bins and live totals, and the sites' time shares, are
   malloc's alone.  HI_ARENA_POOLS: one struct hi_pool per pool ever
   created, in order. */
#define HI_POOL_FRAME    UINT64_C(0xfffffffffff00000)
#define HI_POOLS_MAX     4096u
#define HI_POOL_NAME_MAX 48u

#define HI_POOL_LIVE     1u  /* created and not destroyed */
#define HI_POOL_NAME_CUT 2u

struct hi_pool
{
  uint64_t key;            /* the program's pool handle (an address) */
  uint32_t flags;          /* HI_POOL_* */
  uint32_t unused;
  uint64_t allocs;         /* blocks allocated from it */
  uint64_t bytes;
  uint64_t frees;          /* blocks freed, one by one or by a reset or
                              the pool's destruction */
  uint64_t bytes_freed;
  uint64_t resets;         /* heapinspect_pool_reset calls */
  char     name[HI_POOL_NAME_MAX]; /* NUL-ended */
};

/* The monitor's private region: HI_PRIVATE_BYTES of address space from
   root.client[HI_CLIENT_PRIVATE] on, claimed once (its pages mapped as
   they are used, or reserved whole where they cannot be) and kept out
   of core dumps, where the monitor keeps what no reader needs (its caches, its
   indexes, scratch).  It holds no pointer to a block a reader should
   count (a reachability scan leaves it out of its roots), and a core
   lacks its bytes by design, not by damage. */
#define HI_PRIVATE_BYTES (UINT64_C(1) << 30)

/* root.client[] */
#define HI_CLIENT_TYPES_DROPPED 0  /* blocks whose type could not be kept
                                      (no room for another type) */
#define HI_CLIENT_TYPES_MISSED  1  /* types named for a pointer that is no
                                      block of ours (a placement new
                                      outside the heap, a pool's memory) */
#define HI_CLIENT_POOL_MISSES   2  /* pool calls naming no pool or block
                                      the monitor knows */
#define HI_CLIENT_POOL_DROPPED  3  /* pool blocks not recorded (no room) */
#define HI_CLIENT_PRIVATE       4  /* not the client API's: the start of
                                      the monitor's private region, 0 if
                                      none (see HI_PRIVATE_BYTES) */
#define HI_CLIENT_CHAINS        5  /* where chains came from: 0 unwinding
                                      only; HI_CHAINS_INSTRUMENT: the
                                      shadow stack of -finstrument-
                                      functions (HEAPINSPECT_CHAINS=
                                      instrument), unwinding where it had
                                      none */
#define HI_CHAINS_INSTRUMENT    1u

/* The blob the monitor registers as its one JIT code entry in its own
   __jit_debug_descriptor, so that a gdb JIT reader (the heapinspect gdb
   plugin) is handed the root's address on every target gdb can read. */
#define HI_JIT_MAGIC UINT64_C(0x0154494a50494820) /* " HIPJIT\1" */

struct hi_jit_blob
{
  uint64_t magic;           /* HI_JIT_MAGIC */
  uint64_t root_addr;       /* address of heapinspect_root */
};

/* Snapshot file: a header, a region table, then the regions' bytes.  It
   holds copies of the process's memory (root and arenas) at their
   original addresses, so it is read exactly like a live process. */
#define HI_SNAP_MAGIC   UINT64_C(0x0150414e53504948) /* "HIPSNAP\1" */
#define HI_SNAP_MAX_REGIONS 64u

struct hi_snap_header
{
  uint64_t magic;           /* HI_SNAP_MAGIC */
  uint32_t version;         /* HI_FORMAT_VERSION */
  uint32_t n_regions;
  uint64_t root_addr;       /* address of heapinspect_root */
  uint64_t pid;
};

struct hi_snap_region
{
  uint64_t addr;            /* address in the process */
  uint64_t size;            /* bytes */
  uint64_t offset;          /* file offset of the bytes */
};

/* The layout of version 6, locked: a change here without a new
   HI_FORMAT_VERSION (and new values below) does not compile. */
#ifdef __cplusplus
# define HI_LAYOUT(cond) static_assert (cond, #cond)
#else
# define HI_LAYOUT(cond) _Static_assert (cond, #cond)
#endif
#define HI_AT(type, field, off) HI_LAYOUT (offsetof (struct type, field) == (off))
HI_LAYOUT (HI_FORMAT_VERSION == 6u && HI_FORMAT_OLDEST == 2u);
HI_LAYOUT (HI_NCALLS == 11 && HI_NBINS == 1026 && HI_THREAD_SITES == 64
           && HI_MAX_ARENAS == 8 && HI_NSIZE_CLASSES == 4
           && HI_PATH_MAX == 440 && HI_BUILD_ID_MAX == 32
           && HI_CMDLINE_MAX == 4096);
HI_LAYOUT (HI_ARENA_NODES == 1 && HI_ARENA_HASH == 6
           && HI_ARENA_PROCESS == 7 && HI_ARENA_SITE_TIME == 8
           && HI_ARENA_THREAD_TIME == 9 && HI_ARENA_TIMELINE == 10
           && HI_ARENA_ERRORS == 11 && HI_ARENA_QUARANTINE == 12
           && HI_ARENA_TYPES == 13 && HI_ARENA_POOLS == 14);
HI_LAYOUT (HI_ERRORS_MAX == 256 && HI_QUARANTINE_SLOTS == 1048576
           && HI_CHECK_QUARANTINED == 0x0fee0fee && HI_FREED_BYTE == 0xfd
           && HI_REDZONE_BYTE == 0xfb);
HI_LAYOUT (HI_MAX_MORE_ARENAS == 8 && HI_LIFE_BUCKETS == 48
           && HI_TIMELINE_POINTS == 1024 && HI_TIMELINE_DETAILED == 64
           && HI_TIMELINE_TOP == 32);

HI_LAYOUT (sizeof (struct hi_arena_desc) == 32);
HI_AT (hi_arena_desc, addr, 0);
HI_AT (hi_arena_desc, capacity, 8);
HI_AT (hi_arena_desc, count, 16);
HI_AT (hi_arena_desc, kind, 24);
HI_AT (hi_arena_desc, entry_size, 28);

HI_LAYOUT (sizeof (struct hi_totals) == 96);
HI_AT (hi_totals, live_bytes, 0);
HI_AT (hi_totals, peak_bytes, 8);
HI_AT (hi_totals, live_blocks, 16);
HI_AT (hi_totals, peak_blocks, 24);
HI_AT (hi_totals, foreign_frees, 32);
HI_AT (hi_totals, chains_truncated, 40);
HI_AT (hi_totals, chains_dropped, 48);
HI_AT (hi_totals, internal_allocs, 56);
HI_AT (hi_totals, snapshots, 64);
HI_AT (hi_totals, unwind_fallbacks, 72);
HI_AT (hi_totals, unwind_checked, 80);
HI_AT (hi_totals, unwind_mismatches, 88);

HI_LAYOUT (sizeof (struct hi_root) == 792);
HI_AT (hi_root, magic, 0);
HI_AT (hi_root, version, 8);
HI_AT (hi_root, root_size, 12);
HI_AT (hi_root, pointer_size, 16);
HI_AT (hi_root, byte_order, 17);
HI_AT (hi_root, max_depth, 18);
HI_AT (hi_root, header_salt, 20);
HI_AT (hi_root, pid, 24);
HI_AT (hi_root, ready, 32);
HI_AT (hi_root, n_arenas, 36);
HI_AT (hi_root, arenas, 40);
HI_AT (hi_root, totals, 296);
HI_AT (hi_root, snapshot_realtime_ns, 392);
HI_AT (hi_root, snapshot_monotonic_ns, 400);
HI_AT (hi_root, alloc_clock, 408);
HI_AT (hi_root, peak_gen, 416);
HI_AT (hi_root, peak_clock, 424);
HI_AT (hi_root, time_flags, 432);
HI_AT (hi_root, birth_size, 436);
HI_AT (hi_root, more_arenas, 440);
HI_LAYOUT (offsetof (struct hi_root, snapshot_realtime_ns) == HI_ROOT_SIZE_V2);
HI_LAYOUT (offsetof (struct hi_root, alloc_clock) == HI_ROOT_SIZE_V3);
HI_LAYOUT (offsetof (struct hi_root, guard_flags) == HI_ROOT_SIZE_V4);
HI_AT (hi_root, guard_flags, 696);
HI_AT (hi_root, redzone, 700);
HI_AT (hi_root, quarantine_limit, 704);
HI_AT (hi_root, quarantine_bytes, 712);
HI_AT (hi_root, quarantine_head, 720);
HI_AT (hi_root, quarantine_tail, 728);
HI_AT (hi_root, errors_total, 736);
HI_AT (hi_root, client, 744);

HI_LAYOUT (sizeof (struct hi_error) == 96);
HI_AT (hi_error, kind, 0);
HI_AT (hi_error, when, 4);
HI_AT (hi_error, addr, 8);
HI_AT (hi_error, block, 16);
HI_AT (hi_error, block_size, 24);
HI_AT (hi_error, alloc_site, 32);
HI_AT (hi_error, free_site, 36);
HI_AT (hi_error, call_site, 40);
HI_AT (hi_error, where_kind, 44);
HI_AT (hi_error, offset, 48);
HI_AT (hi_error, other, 56);
HI_AT (hi_error, other_size, 64);
HI_AT (hi_error, other_site, 72);
HI_AT (hi_error, tid, 80);
HI_AT (hi_error, time_ns, 88);
HI_LAYOUT (sizeof (struct hi_freed) == 40);
HI_AT (hi_freed, user, 0);
HI_AT (hi_freed, size, 8);
HI_AT (hi_freed, alloc_site, 16);
HI_AT (hi_freed, free_site, 20);
HI_AT (hi_freed, tid, 24);
HI_AT (hi_freed, time_ns, 32);

HI_LAYOUT (sizeof (struct hi_peak_share) == 48);
HI_AT (hi_peak_share, live_bytes, 0);
HI_AT (hi_peak_share, live_blocks, 8);
HI_AT (hi_peak_share, peak_bytes, 16);
HI_AT (hi_peak_share, peak_blocks, 24);
HI_AT (hi_peak_share, peak_gen, 32);
HI_AT (hi_peak_share, temporaries, 40);
HI_LAYOUT (sizeof (struct hi_site_time) == 48);
HI_LAYOUT (sizeof (struct hi_site_life) == 48 + 48 * 8 + 40);
HI_AT (hi_site_life, life, 48);
HI_AT (hi_site_life, freed, 432);
HI_AT (hi_site_life, freed_ns, 440);
HI_AT (hi_site_life, live, 448);
HI_AT (hi_site_life, live_clock_sum, 456);
HI_AT (hi_site_life, live_ns_sum, 464);
HI_LAYOUT (sizeof (struct hi_thread_time) == 64 * 48);
HI_LAYOUT (sizeof (struct hi_block_birth) == 16);
HI_AT (hi_block_birth, clock, 0);
HI_AT (hi_block_birth, time_ns, 8);
HI_LAYOUT (sizeof (struct hi_tpoint) == 32);
HI_AT (hi_tpoint, time_ns, 0);
HI_AT (hi_tpoint, clock, 8);
HI_AT (hi_tpoint, live_bytes, 16);
HI_AT (hi_tpoint, live_blocks, 24);
HI_LAYOUT (sizeof (struct hi_tchain) == 24);
HI_AT (hi_tchain, site, 0);
HI_AT (hi_tchain, live_bytes, 8);
HI_AT (hi_tchain, live_blocks, 16);
HI_LAYOUT (sizeof (struct hi_tdetail) == 40 + 32 * 24);
HI_AT (hi_tdetail, at, 0);
HI_AT (hi_tdetail, n_chains, 32);
HI_AT (hi_tdetail, chains, 40);
HI_LAYOUT (sizeof (struct hi_timeline) == 32 + 1024 * 32 + 64 * 808);
HI_AT (hi_timeline, interval, 0);
HI_AT (hi_timeline, next_clock, 8);
HI_AT (hi_timeline, n_points, 16);
HI_AT (hi_timeline, n_detailed, 20);
HI_AT (hi_timeline, points_taken, 24);
HI_AT (hi_timeline, points, 32);
HI_AT (hi_timeline, detailed, 32 + 1024 * 32);

HI_LAYOUT (sizeof (struct hi_process) == 24 + 4096 + 32);
HI_LAYOUT (HI_PROCESS_SIZE_V5 == 24 + 4096
           && HI_ROOT_SIZE_V5 == sizeof (struct hi_root));
HI_AT (hi_process, start_realtime_ns, 0);
HI_AT (hi_process, start_monotonic_ns, 8);
HI_AT (hi_process, flags, 16);
HI_AT (hi_process, cmdline_len, 20);
HI_AT (hi_process, cmdline, 24);
HI_AT (hi_process, attached_ns, 4120);
HI_AT (hi_process, period_monotonic_ns, 4128);
HI_AT (hi_process, detached_realtime_ns, 4136);
HI_AT (hi_process, detached_monotonic_ns, 4144);

HI_LAYOUT (sizeof (struct hi_node) == 16);
HI_AT (hi_node, ret, 0);
HI_AT (hi_node, parent, 8);
HI_AT (hi_node, site, 12);

HI_LAYOUT (sizeof (struct hi_site) == 136);
HI_AT (hi_site, node, 0);
HI_AT (hi_site, depth, 4);
HI_AT (hi_site, allocs, 8);
HI_AT (hi_site, frees, 40);
HI_AT (hi_site, bytes, 72);
HI_AT (hi_site, bytes_freed, 104);

HI_LAYOUT (sizeof (struct hi_bin) == 32);
HI_AT (hi_bin, allocs, 0);
HI_AT (hi_bin, frees, 8);
HI_AT (hi_bin, bytes, 16);
HI_AT (hi_bin, bytes_freed, 24);

HI_LAYOUT (sizeof (struct hi_thread_site) == 136);
HI_AT (hi_thread_site, site, 0);
HI_AT (hi_thread_site, unused, 4);
HI_AT (hi_thread_site, allocs, 8);
HI_AT (hi_thread_site, frees, 40);
HI_AT (hi_thread_site, bytes, 72);
HI_AT (hi_thread_site, bytes_freed, 104);

HI_LAYOUT (sizeof (struct hi_thread) == 64 + 88 + 1026 * 32 + 64 * 136);
HI_AT (hi_thread, tid, 0);
HI_AT (hi_thread, chains, 8);
HI_AT (hi_thread, frames, 16);
HI_AT (hi_thread, frames_cached, 24);
HI_AT (hi_thread, allocations, 32);
HI_AT (hi_thread, frees, 40);
HI_AT (hi_thread, bytes_allocated, 48);
HI_AT (hi_thread, bytes_freed, 56);
HI_AT (hi_thread, calls, 64);
HI_AT (hi_thread, bins, 152);
HI_AT (hi_thread, sites, 152 + 1026 * 32);

HI_LAYOUT (sizeof (struct hi_module) == 504);
HI_AT (hi_module, bias, 0);
HI_AT (hi_module, start, 8);
HI_AT (hi_module, end, 16);
HI_AT (hi_module, flags, 24);
HI_AT (hi_module, build_id_len, 28);
HI_AT (hi_module, build_id, 32);
HI_AT (hi_module, path, 64);

HI_LAYOUT (HI_BLOCK_TYPE_SHIFT == 48 && HI_TYPES_MAX == 32767
           && HI_TYPE_NAME_MAX == 40);
HI_LAYOUT (sizeof (struct hi_type_rec) == 112);
HI_AT (hi_type_rec, kind, 0);
HI_AT (hi_type_rec, type, 4);
HI_AT (hi_type_rec, site, 8);
HI_AT (hi_type_rec, bin, 12);
HI_AT (hi_type_rec, key, 16);
HI_AT (hi_type_rec, elem_size, 24);
HI_AT (hi_type_rec, allocs, 32);
HI_AT (hi_type_rec, bytes, 40);
HI_AT (hi_type_rec, frees, 48);
HI_AT (hi_type_rec, bytes_freed, 56);
HI_AT (hi_type_rec, flags, 64);
HI_AT (hi_type_rec, name, 72);

HI_LAYOUT (HI_POOL_FRAME == UINT64_C(0xfffffffffff00000)
           && HI_POOLS_MAX == 4096 && HI_POOL_NAME_MAX == 48);
HI_LAYOUT (sizeof (struct hi_pool) == 104);
HI_AT (hi_pool, key, 0);
HI_AT (hi_pool, flags, 8);
HI_AT (hi_pool, allocs, 16);
HI_AT (hi_pool, bytes, 24);
HI_AT (hi_pool, frees, 32);
HI_AT (hi_pool, bytes_freed, 40);
HI_AT (hi_pool, resets, 48);
HI_AT (hi_pool, name, 56);

HI_LAYOUT (sizeof (struct hi_block_header) == 16);
HI_AT (hi_block_header, check, 0);
HI_AT (hi_block_header, site, 4);
HI_AT (hi_block_header, size_flags, 8);

HI_LAYOUT (sizeof (struct hi_jit_blob) == 16);
HI_AT (hi_jit_blob, magic, 0);
HI_AT (hi_jit_blob, root_addr, 8);

HI_LAYOUT (sizeof (struct hi_snap_header) == 32);
HI_AT (hi_snap_header, magic, 0);
HI_AT (hi_snap_header, version, 8);
HI_AT (hi_snap_header, n_regions, 12);
HI_AT (hi_snap_header, root_addr, 16);
HI_AT (hi_snap_header, pid, 24);

HI_LAYOUT (sizeof (struct hi_snap_region) == 24);
HI_AT (hi_snap_region, addr, 0);
HI_AT (hi_snap_region, size, 8);
HI_AT (hi_snap_region, offset, 16);
#undef HI_AT
#undef HI_LAYOUT

#endif /* HEAPINSPECT_FORMAT_H */
