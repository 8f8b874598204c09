/* monitor.h - the monitor's state: the root, the arenas, hi_state and the
   per-thread hi_tls (state.c), and the monitor's life in the process
   (init.c: initialization, the snapshots it writes by itself).  lib/'s
   headers form layers, each including only those below it:
     prim.h       the OS (prim-linux.c)
     monitor.h    the state (state.c, init.c)
     unwind.h     the CFI unwinder (unwind.c)
     chain-cache.h  chains a thread unwound lately (chain-cache.c)
     shadow.h, modules.h, timeline.h, client.h, tools.h
                  the shadow stack, the module list, the timeline, the
                  client API's types and pools, what tools see
     chain.h      an allocation's chain and site (chain.c)
     account.h    counting allocations and frees (account.c)
     guard.h      heap errors, redzones, the quarantine (guard.c,
                  quarantine.c)
   and the entry points (malloc.c) include what they use. */
#ifndef HI_MONITOR_H
#define HI_MONITOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "heapinspect/format.h"
#include "prim.h"

#define HI_HIDDEN __attribute__ ((visibility ("hidden")))
/* The model of the monitor's thread-local variables: initial-exec
   (no allocation, no call on access), but in libheapinspect-attach.so
   (HI_TLS_DYNAMIC), made to be dlopen'd into a running program
   (heapinspect_attach): they take over 20 KB, and glibc keeps only
   about 1.5 KB of static TLS for objects loaded later.  Its are
   dynamic (TLS descriptors, -mtls-dialect=gnu2 in local.mk): a
   thread's first access allocates its block in the loader (with
   glibc's malloc: the loader's calls never reach the monitor's entry
   points, malloc.c).  A descriptor's call on each access made the
   monitor's malloc and free take 1.55 times initial-exec's
   instructions (callgrind), so there the monitor reads each variable
   through HI_TLS, which finds its address in a slot of
   hi_attach_tls_slots: pointers, initial-exec (48 bytes of static
   TLS), in libheapinspect-attach-tls.so (attach-tls.c; a library's
   TLS is static or dynamic as a whole, so the slots cannot be the
   monitor's own).  A slot is NULL in a new thread (the loader clears
   static TLS for each thread, on a reused stack too, and in the
   threads running when it is loaded) and holds the variable's address
   from the thread's first access on; the dynamic block it points to
   lives as long as the thread.  Elsewhere HI_TLS (VAR, SLOT) is VAR
   itself. */
/* The slots of HI_TLS, one a thread-local variable. */
enum
{
  HI_TLS_SLOT_STATE,          /* hi_tls (state.c) */
  HI_TLS_SLOT_CHAIN_CACHE,    /* hi_cc_mine (chain-cache.c) */
  HI_TLS_SLOT_SHADOW,         /* shadow.c's */
  HI_TLS_SLOT_UNWIND,         /* unwind.c's */
  HI_TLS_SLOT_PAIRS,          /* chain.c's pair memo */
  HI_TLS_SLOT_GUARD,          /* guard.c's */
  HI_TLS_SLOTS
};
#ifdef HI_TLS_DYNAMIC
# define HI_TLS_MODEL __attribute__ ((tls_model ("global-dynamic")))
extern __thread void *hi_attach_tls_slots[HI_TLS_SLOTS]
  __attribute__ ((tls_model ("initial-exec")));
# define HI_TLS(var, slot) \
  (*({ void *hi_p_ = hi_attach_tls_slots[slot]; \
       if (HI_UNLIKELY (!hi_p_)) \
         hi_attach_tls_slots[slot] = hi_p_ = (void *) &(var); \
       (__typeof__ (&(var))) hi_p_; }))
#else
# define HI_TLS_MODEL __attribute__ ((tls_model ("initial-exec")))
# define HI_TLS(var, slot) (var)
#endif
extern struct hi_root heapinspect_root;
#define HI_LIKELY(x) __builtin_expect (!!(x), 1)
#define HI_UNLIKELY(x) __builtin_expect (!!(x), 0)

#define HI_DEFAULT_DEPTH 64
#define HI_MAX_DEPTH     256

/* Capacities (entries) of the arenas; memory is committed on first touch. */
#define HI_CAP_NODES   (UINT32_C(1) << 21)
#define HI_CAP_HASH    (UINT32_C(1) << 22)   /* most slots: 2 x nodes */
#define HI_HASH_FIRST  (UINT32_C(1) << 12)   /* slots at first; grows x4 */
#define HI_CAP_SITES   (UINT32_C(1) << 19)
#define HI_CAP_THREADS 1024u   /* later threads share the last slot */
#define HI_CAP_MODULES 1024u
#define HI_CAP_TYPE_RECS (UINT32_C(1) << 18)  /* types and (type, chain) pairs */

/* Add to a counter only this thread writes: no lock prefix, but a single
   store, so readers (another thread, a core) see whole values. */
#define HI_OWN_ADD(field, v) \
  atomic_store_explicit ((_Atomic uint64_t *) &(field), \
                         atomic_load_explicit ((_Atomic uint64_t *) &(field), \
                                               memory_order_relaxed) + (v), \
                         memory_order_relaxed)

/* Relaxed atomic add on a uint64_t counter of the shared format. */
#define HI_ADD(field, v) \
  atomic_fetch_add_explicit ((_Atomic uint64_t *) &(field), (v), \
                             memory_order_relaxed)
#define HI_LOAD_ACQ(field) \
  atomic_load_explicit ((_Atomic __typeof__ (field) *) &(field), \
                        memory_order_acquire)
#define HI_STORE_REL(field, v) \
  atomic_store_explicit ((_Atomic __typeof__ (field) *) &(field), (v), \
                         memory_order_release)

/* Indexes of the arenas in the root's list: the first HI_MAX_ARENAS in
   root.arenas, the rest in root.more_arenas (hi_arena_at). */
enum { HI_A_NODES, HI_A_SITES, HI_A_THREADS, HI_A_MODULES, HI_A_HASH,
       HI_A_PROCESS, HI_A_SITE_TIME, HI_A_THREAD_TIME, HI_A_TIMELINE,
       HI_A_TYPES, HI_A_POOLS,
       HI_A_COUNT };

static inline struct hi_arena_desc *
hi_arena_at (int index)
{
  return index < HI_MAX_ARENAS ? &heapinspect_root.arenas[index]
         : &heapinspect_root.more_arenas[index - HI_MAX_ARENAS];
}

/* A 32-bit hash of two words, for the monitor's open-addressing
   indexes (types, pools). */
static inline uint32_t
hi_mix (uint64_t a, uint64_t b)
{
  uint64_t x = a * UINT64_C(0x9e3779b97f4a7c15) ^ b;
  x ^= x >> 31;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 29;
  return (uint32_t) x;
}

struct hi_hash
{
  uint32_t mask;
  uint32_t used;
  uint32_t slots[];
};

/* The state of each concern, gathered in hi_state below (musl
   mallocng's ctx): a field of one global costs what a global of its own
   does.  Per-thread state is hi_tls's, or one thread-local object in
   the file that owns it. */

/* The CFI unwinder (unwind.c). */
struct hi_unwind_state
{
  struct hi_unwind_rule *rules;  /* per return address; made at the first
                                    unwind */
  _Atomic uint32_t generation;   /* bumped by hi_unwind_forget: a memo or
                                    cached chain of an older one is
                                    unused; starts at 1 */
};

/* The chain caches of exited threads (chain-cache.c), for the next
   threads.  No lock (a fork could leave one held): pushed one at a
   time, taken all at once. */
struct hi_chain_caches
{
  struct hi_cc *_Atomic free;
};

/* Chains from the shadow stack (shadow.c). */
struct hi_shadow_state
{
  _Atomic int mode;        /* 0 not asked yet, 1 off, 2 on
                              (HEAPINSPECT_CHAINS=instrument) */
  int on;                  /* mode 2: chains come from the shadow stack */
};

/* Heap errors and redzones (guard.c): what HEAPINSPECT_QUARANTINE,
   _REDZONE and _ON_ERROR set, fixed before the first block is handed
   out (the first fields, read by every free), the errors arena, and the
   report being written (under report_lock). */
struct hi_guard
{
  int on_error;            /* HI_GUARD_ON_ERROR_* */
  long run_pid;            /* HEAPINSPECT_RUN_REPORTS: in this process
                              heapinspect run reports the errors in full
                              (leak-stop.h); 0: none */
  int quarantine;          /* 1: freed blocks go to the quarantine */
  uint64_t redzone;        /* guard bytes after every block */
  int errors_index;        /* the errors arena's index in the root's lists */
  struct hi_error *errors;
  uint64_t tcache_key;     /* glibc's tcache key (what it writes 8 bytes
                              into a chunk it holds), 0 if not known */
  int tcache_key_learned;  /* at the first bad pointer */
  _Atomic int unacted;     /* errors found while a snapshot was written
                              (never an abort then) with ON_ERROR=abort:
                              the process aborts at exit instead */
  _Atomic uint64_t fork_gen; /* changes in a forked child, whose thread
                              has a new id (hi_guard_tid); starts at 1 */
  hi_lock report_lock;     /* one error examined and reported at a time */
  int reports;             /* full reports written */
  int report_chunk;        /* the error is a smashed chunk size word */
  uint64_t report_free_tid; /* the thread that freed its block first (the
                              quarantine's entry), 0 if not known */
  size_t report_len;
  char report[16384];      /* the report, written at once */
  char title[96];          /* a chain's title (titled) */
  unsigned char page[4096]; /* a page of memory near a bad pointer */
};

/* The quarantine (quarantine.c), on if hi_state.guard.quarantine:
   HEAPINSPECT_QUARANTINE's limit, the ring of held blocks, and the looks
   at glibc's free memory. */
struct hi_quarantine
{
  uint64_t limit;          /* its limit in bytes */
  uint64_t cost;           /* bytes held against the limit: each block's
                              memory (its chunk, header, redzone) and its
                              ring entry */
  uint64_t shrink;         /* bytes it holds fewer than limit: glibc's
                              free memory grown since it began */
  uint64_t freed;          /* bytes of blocks put in it */
  uint64_t next_look;      /* at this many, glibc's free memory is read */
  uint64_t next_look_ns;   /* ... if the monotonic clock is past this */
  int ring_index;          /* the ring's index in the root's lists */
  struct hi_freed *ring;
  hi_lock ring_lock;       /* the ring, the root's quarantine_* and the
                              fields above */
  uint64_t fetched;        /* ring position up to which the blocks were
                              fetched ahead (under ring_lock) */
  /* Of the looks at glibc's free memory (one at a time: busy). */
  _Atomic int look_busy;
  uint64_t look_base;      /* the least free memory seen; starts at
                              UINT64_MAX */
  uint64_t look_last;      /* free memory at the last look; starts at
                              UINT64_MAX */
  uint64_t look_last_heap; /* glibc's heap size then */
  uint64_t look_last_live; /* live bytes and the heap's top at the last */
  uint64_t look_last_top;  /* look or skipped look */
  uint64_t look_took;      /* ns the last look took */
  int look_calm;           /* looks in a row that found little change */
};

/* The client API's block types (types.c). */
struct hi_types
{
  struct hi_type_rec *recs; /* the types arena; NULL: off */
  uint32_t *_Atomic index; /* record ids, open addressing; made at the
                              first type: none in the monitor's image or
                              cores */
  hi_lock lock;            /* insertions */
};

/* The client API's pools (pools.c).  All but the arena under `lock`:
   one lock for all pools, taken for every call. */
struct hi_pools
{
  struct hi_pool *arena;   /* the pools arena; NULL: off */
  hi_lock lock;
  struct hi_pool_rec *recs; /* live blocks, committed as touched */
  uint32_t n_recs;         /* records used; record 0 is not: starts at 1 */
  uint32_t free_recs;      /* the free records' list */
  uint32_t *index_slots;   /* record ids by (pool, block), 0 = empty */
  uint32_t index_mask;     /* slots - 1 */
  uint32_t index_used;
  struct hi_pool_index *index; /* live pools by key, and their blocks;
                              made at the first pool */
};

/* The stop for `heapinspect run --leak-check` (leakstop.c). */
struct hi_leak_stop
{
  int fd;                  /* the pipe; -1: no stop */
  long pid;                /* the tracer's */
  uint64_t identity;       /* the pipe's, seen at start */
  uint64_t held_ns;        /* how long the stop held the process (the
                              tracer's scan): the snapshots written after
                              it leave that out of their times */
};

struct hi_state
{
  struct hi_node *nodes;
  struct hi_site *sites;
  struct hi_thread *threads;
  struct hi_module *modules;
  struct hi_process *process;   /* NULL if its arena could not be made */
  /* Time (format 4): the shares of the sites (entries of site_time_size
     bytes: struct hi_site_time, or hi_site_life with lifetimes) and of
     the threads' sites, and the timeline. */
  char *site_time;
  struct hi_thread_time *thread_time;
  struct hi_timeline *timeline;
  uint64_t site_time_size;
  uint64_t birth;          /* sizeof (struct hi_block_birth) with
                              lifetimes, else 0: set before the first
                              block is handed out, never changed */
  uint64_t start_ns;       /* CLOCK_MONOTONIC at the start (the process
                              record's), for times since the start */
  hi_lock timeline_lock;   /* taken with trylock: one point at a time */
  /* 1 while the first thread is the totals' only writer and may update
     them without atomic instructions (account.c); sole_busy is 1 while
     it does.  Another thread ends it for good before its first flush
     (a membarrier(2) makes the first thread's busy flag visible). */
  _Atomic int sole;
  _Atomic int sole_busy;
  hi_lock sole_lock;
  /* The detailed points' scratch: live bytes and blocks per site. */
  int64_t (*scratch)[2];
  uint64_t scratch_cap;         /* its entries */
  /* The pair index: open addressing over node ids (0 = empty).  It grows
     under table_lock into a new table; lock-free readers of an older one
     stay correct (a miss falls through to the locked path). */
  struct hi_hash *_Atomic hash;
  hi_lock table_lock;      /* serializes insertions into nodes/sites */
  hi_lock module_lock;     /* serializes module-list refreshes */
  hi_lock commit_lock;     /* serializes arena commits; taken last */
  /* Bytes reserved and bytes readable per arena, by index in the root's
     lists (arenas past HI_A_COUNT are added by guard.c). */
  uint64_t reserved[HI_MAX_ARENAS + HI_MAX_MORE_ARENAS];
  uint64_t committed[HI_MAX_ARENAS + HI_MAX_MORE_ARENAS];
  int depth;               /* HEAPINSPECT_DEPTH */
  int check_unwind;        /* HEAPINSPECT_CHECK_UNWIND */
  int snapshot_signal;     /* HEAPINSPECT_SIGNAL, 0 = none */
  int on_signal;           /* HEAPINSPECT_ON_SIGNAL=snapshot */
  long root_pid;           /* HEAPINSPECT_ROOT_PID, 0 = any process */
  char output[512];        /* HEAPINSPECT_OUTPUT template; "" = none */
  _Atomic int snapshot_warned; /* a failed snapshot was reported */
  int exit_rewrites;       /* rewrites of the exit snapshot left; starts
                              at 64 */
  int wrote_in_place;      /* the last snapshot went to a pipe or device:
                              one at exit, never rewritten after it */
  size_t (*_Atomic libc_usable_size) (void *); /* the next
                              malloc_usable_size, found at its first use */
  /* Each concern's.  What the entry points read (the generation, the
     shadow flag, the guard's first fields) lies in few cache lines;
     the guard's buffers come last. */
  struct hi_unwind_state unwind;
  struct hi_shadow_state shadow;
  struct hi_chain_caches chain_caches;
  struct hi_quarantine quarantine;
  struct hi_types types;
  struct hi_pools pools;
  struct hi_leak_stop leak_stop;
  struct hi_guard guard;
  /* heapinspect_attach (attach.c): HI_ATTACH_NONE when preloaded (or
     never attached), HI_ATTACH_ON while the GOTs lead here,
     HI_ATTACH_DETACHED after heapinspect_detach. */
  _Atomic int attach;
};

extern HI_HIDDEN struct hi_state hi_state;

/* state.c: give back every arena, committed or reserved (the monitor
   could not start: the program gets the memory). */
HI_HIDDEN void hi_arenas_release (void);
/* state.c: reserve arena INDEX of KIND for CAPACITY entries of
   ENTRY_SIZE bytes, nothing committed yet; its address or NULL. */
HI_HIDDEN void *hi_arena_add (int index, uint32_t kind, uint64_t capacity,
                              uint32_t entry_size);
/* state.c: make entries [0, N) of arena INDEX readable (its capacity in
   the root says how many are), before its count may cover them.  0, or
   -1 when N is beyond the reservation or the system refuses. */
HI_HIDDEN int hi_arena_commit (int index, uint64_t n);
/* state.c: nanoseconds since the monitor started (CLOCK_MONOTONIC). */
HI_HIDDEN uint64_t hi_time_now (void);

/* The monitor's initialization (init.c), in hi_init_state: done on
   first use (hi_ensure_init: 1 once the monitor is ready). */
/* site_for's answer when the monitor could not start: the block is
   glibc's alone, with no header (never a site id: sites stay far below). */
#define HI_SITE_OFF UINT32_C(0xfffffffe)
/* HI_INIT_DORMANT: dlopen'd, not preloaded; only heapinspect_attach
   starts it (init.c). */
enum { HI_INIT_NONE, HI_INIT_BUSY, HI_INIT_READY, HI_INIT_FAILED,
       HI_INIT_DORMANT };
extern HI_HIDDEN _Atomic int hi_init_state;
HI_HIDDEN int hi_ensure_init_slow (void);
static inline int
hi_ensure_init (void)
{
  if (HI_LIKELY (atomic_load_explicit (&hi_init_state, memory_order_acquire)
                 == HI_INIT_READY))
    return 1;
  return hi_ensure_init_slow ();
}
/* 0 until the unwinder may run.  In static binaries libc allocates
   before the unwinder can find its tables (it would abort); their
   chains wait for the monitor's constructor (state.c). */
extern HI_HIDDEN _Atomic int hi_unwind_ready;
/* init.c: the snapshot a fatal error writes before abort(): the exit
   snapshot's file, if this process writes one (HEAPINSPECT_OUTPUT,
   HEAPINSPECT_ROOT_PID). */
HI_HIDDEN void hi_error_snapshot (void);
/* init.c: the exiting thread allocated or freed after writing the exit
   snapshot (exit() frees stdio's buffers after every handler): write it
   again, so it holds the last word. */
HI_HIDDEN void hi_exit_changed (void);
/* init.c: the file the automatic snapshots of this process go to
   (HEAPINSPECT_OUTPUT expanded) into BUF of CAP bytes; 0, or -1 if
   there is none. */
HI_HIDDEN int hi_auto_snapshot_path (char *buf, size_t cap);

/* Frames of the monitor's own that may precede the allocating caller in
   libgcc's backtrace. */
#define HI_OWN_FRAMES_MAX 12

/* Per-thread state (HI_TLS_MODEL: no allocation on access but in
   libheapinspect-attach.so), named hi_tls (HI_TLS). */
struct hi_thread_tls
{
  int busy;                /* inside the monitor: nested calls are internal */
  uint32_t thread_slot;    /* 1 + index in the threads arena, 0 = none yet */
  int shared_slot;         /* the slot is the shared last one: atomics */
  int exit_writer;         /* this thread wrote the exit snapshot */
  int64_t live_unflushed;  /* live bytes not yet added to totals */
  int64_t blocks_unflushed; /* live blocks likewise */
  uint64_t clock_unflushed; /* allocated bytes not yet added to alloc_clock */
  uintptr_t last_block;    /* ~ the last block this thread allocated, for
                              temporaries (0 after it is freed): stored
                              inverted, so the monitor's memory holds no
                              pointer to a live block that a reachability
                              scan would take for a root */
  int prev_n;              /* previous chain, root first, and its nodes */
  int prev_cut;
  uint64_t prev_ret[HI_MAX_DEPTH];
  uint32_t prev_node[HI_MAX_DEPTH];
  /* Buffers for capturing a chain: here rather than on the stack inside
     malloc, which may be a small one (a coroutine's, a signal stack).
     Never in use twice at once: the capture runs with `busy` set. */
  uint64_t chain[HI_MAX_DEPTH + 1];
  uint64_t check[HI_MAX_DEPTH + 1];
  uint64_t raw[HI_MAX_DEPTH + HI_OWN_FRAMES_MAX + 1];
};
extern __thread struct hi_thread_tls hi_tls_data
  HI_TLS_MODEL HI_HIDDEN;
#define hi_tls HI_TLS (hi_tls_data, HI_TLS_SLOT_STATE)

/* The frame that called an entry point: its pc (the return address), its
   stack pointer after the return (the entry's CFA) and its rbp. */
struct hi_frame
{
  uint64_t ip, sp, bp;
};

/* In an entry point compiled with frame pointers: the caller's frame. */
#define HI_CALLER_FRAME(f) \
  struct hi_frame f = { \
    (uint64_t) (uintptr_t) __builtin_return_address (0), \
    (uint64_t) (uintptr_t) __builtin_frame_address (0) + 16, \
    *(const uint64_t *) __builtin_frame_address (0) }

/* state.c: claim this thread's record in the threads arena (its first
   call).  hi_this_thread: this thread's record. */
HI_HIDDEN struct hi_thread *hi_thread_claim (void);
static inline struct hi_thread *
hi_this_thread (void)
{
  if (HI_LIKELY (hi_tls.thread_slot != 0))
    return &hi_state.threads[hi_tls.thread_slot - 1];
  return hi_thread_claim ();
}

#endif
