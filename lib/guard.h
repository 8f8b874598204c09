/* guard.h - heap errors and guards (format 5): the checks of bad
   pointers, the error reports and their arena, the quarantine of freed
   blocks, redzones.  Declarations shared by guard.c, quarantine.c and
   the entry points (malloc.c). */
#ifndef HI_GUARD_H
#define HI_GUARD_H

#include "monitor.h"

/* What HEAPINSPECT_QUARANTINE, _REDZONE and _ON_ERROR set, fixed before
   the first block is handed out (hi_guard_configure), and the state of
   the errors arena and the quarantine's ring. */
struct hi_guard
{
  int on_error;            /* HI_GUARD_ON_ERROR_* */
  int quarantine;          /* 1: freed blocks go to the quarantine */
  uint64_t redzone;        /* guard bytes after every block */
  uint64_t limit;          /* the quarantine's limit in bytes */
  uint64_t cost;           /* bytes held against the limit: each block's
                              memory (its chunk, header, redzone) and its
                              ring entry */
  uint64_t shrink;         /* bytes the quarantine holds fewer than
                              limit: glibc's free memory grown since the
                              quarantine began (quarantine.c) */
  uint64_t freed;          /* bytes of blocks put in the quarantine */
  uint64_t next_look;      /* at this many, glibc's free memory is read */
  uint64_t next_look_ns;   /* ... if the monotonic clock is past this */
  int errors_index;        /* the arenas' indexes in the root's lists */
  int ring_index;
  struct hi_error *errors;
  struct hi_freed *ring;
  uint64_t tcache_key;     /* glibc's tcache key (what it writes 8 bytes
                              into a chunk it holds), 0 if not known */
  hi_lock ring_lock;       /* the ring and the root's quarantine_* */
  hi_lock report_lock;     /* one error examined and reported at a time */
};
extern HI_HIDDEN struct hi_guard hi_guard;

/* Bytes after every block: its redzone. */
#define HI_POST ((size_t) hi_guard.redzone)

/* state.c calls: read the variables (first thing at initialization, with
   HEAPINSPECT_LIFETIMES); make the errors arena and, with a quarantine,
   the ring (0, or -1); the fork hooks. */
HI_HIDDEN void hi_guard_configure (void);
HI_HIDDEN int hi_guard_arenas (void);
HI_HIDDEN void hi_guard_fork_prepare (void);
HI_HIDDEN void hi_guard_fork_parent (void);
HI_HIDDEN void hi_guard_fork_child (void);

/* P was passed to free, realloc or malloc_usable_size (WHEN: enum
   hi_error_when) from frame CALLER, and its header is not a live block's.
   Finds what P is; a heap error is recorded, reported and acted on
   (HEAPINSPECT_ON_ERROR: may abort).  1 if P is a chunk of glibc's that
   the monitor did not make (the caller hands it to glibc), 0 if it is an
   error (the caller does nothing more with P). */
HI_HIDDEN int hi_guard_bad_pointer (void *p, const struct hi_frame *caller,
                                    int when);

/* The block USER of SIZE bytes (allocating chain SITE) is freed or
   reallocated (WHEN) from CALLER: check its redzone; an overflow is
   recorded, reported and acted on.  Returns with the redzone intact. */
HI_HIDDEN void hi_guard_check_redzone (uint64_t user, uint64_t size,
                                       uint32_t site,
                                       const struct hi_frame *caller,
                                       int when);
/* Fill the redzone of block USER of SIZE bytes. */
HI_HIDDEN void hi_guard_fill_redzone (void *user, uint64_t size);

/* Record error E (its kind, when, addresses, chains: the rest is filled
   here), report it on stderr unless HEAPINSPECT_ON_ERROR=ignore, then
   abort if so configured and MAY_ABORT.  Safe in a signal handler when
   MAY_ABORT is 0 (the report is then skipped if another is being
   written). */
HI_HIDDEN void hi_guard_error (struct hi_error *e, int may_abort);

/* The site of the chain of a call from CALLER (a free's chain), interned
   like an allocation's; its counters stay 0. */
HI_HIDDEN uint32_t hi_guard_call_site (const struct hi_frame *caller);

/* This thread's id, without a system call after the first. */
HI_HIDDEN uint64_t hi_guard_tid (void);

/* quarantine.c: hold the block whose live header is H (user bytes SIZE,
   allocating chain SITE; its memory starts at BASE), freed from CALLER,
   already counted as freed.  Blocks that leave to make room are checked
   and given back to glibc. */
HI_HIDDEN void hi_quarantine_put (struct hi_block_header *h, void *base,
                                  uint64_t size, uint32_t site,
                                  const struct hi_frame *caller);
/* The chain of the free of quarantined block USER, or HI_SITE_UNKNOWN. */
HI_HIDDEN uint32_t hi_quarantine_free_site (uint64_t user);
/* Check every held block's fill and redzone (a snapshot is written):
   each change is an error found at HI_WHEN_SNAPSHOT, reported once (the
   fill is restored).  Safe in a signal handler. */
HI_HIDDEN void hi_quarantine_check (void);

#endif
