/* guard.h - heap errors and guards (format 5): the checks of bad
   pointers, the error reports and their arena, the quarantine of freed
   blocks, redzones.  Declarations shared by guard.c, quarantine.c and
   the entry points (malloc.c). */
#ifndef HI_GUARD_H
#define HI_GUARD_H

#include "monitor.h"

/* Bytes after every block: its redzone. */
#define HI_POST ((size_t) hi_state.guard.redzone)

/* init.c calls: read the variables (first thing at initialization, with
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
/* In a monitor started by heapinspect_attach: 1 if P, no block of ours,
   is a chunk glibc handed out and holds in use (a block from before the
   attach), with no sign of a free before (glibc's tcache key, a freed
   header of ours); the caller then hands it to glibc, uncounted as an
   error.  0: hi_guard_bad_pointer decides. */
HI_HIDDEN int hi_guard_foreign_chunk (void *p);

/* The block USER of SIZE bytes (allocating chain SITE) is freed or
   reallocated (WHEN) from CALLER: check its redzone; an overflow is
   recorded, reported and acted on.  Returns with the redzone intact. */
HI_HIDDEN void hi_guard_check_redzone (uint64_t user, uint64_t size,
                                       uint32_t site,
                                       const struct hi_frame *caller,
                                       int when);
/* glibc's chunk of a block of ours: its size word (at BASE - 8, the
   word before the memory glibc returned, next to our header) must be
   what the block's request makes of it.  A block that fills its chunk
   exactly (size + header 8 mod 16) ends right at the next chunk's size
   word, so a one-byte overflow smashes that word, not our header: glibc
   would then abort in free ("free(): invalid size") with no report.
   The request of USER's block of SIZE bytes was (USER - BASE) + SIZE +
   the redzone (pvalloc's more: ALIGNED blocks get a page's slack);
   glibc's chunk is that + 8 rounded up to 16 (32 at least): one compare
   on the hot path.  Else (out of line) it may be 16 more (a remainder
   too small to split: realloc, large bins; memalign 32, pvalloc a
   page), if the chunk after it says this one is in use; or mapped on
   its own (IS_MMAPPED).  1 if the word is right. */
HI_HIDDEN int hi_guard_mapped_chunk_ok (uint64_t base, uint64_t nb,
                                        uint64_t w, uint64_t before);
HI_HIDDEN int hi_guard_slack_chunk_ok (uint64_t base, uint64_t nb,
                                       uint64_t w, int aligned);
static inline int
hi_guard_chunk_ok (const void *base, const void *user, uint64_t size,
                   int aligned)
{
  uint64_t w = ((const uint64_t *) base)[-1];
  uint64_t req = (uint64_t) ((const char *) user - (const char *) base)
                 + size + HI_POST;
  uint64_t nb = (req + 8 + 15) & ~UINT64_C(15);
  nb = nb < 32 ? 32 : nb;
  if (HI_UNLIKELY (w & 2))
    return hi_guard_mapped_chunk_ok ((uint64_t) (uintptr_t) base, nb, w,
                                     aligned ? req - size - HI_POST : 0);
  if (HI_LIKELY ((w & ~UINT64_C(7)) == nb))
    return 1;
  return hi_guard_slack_chunk_ok ((uint64_t) (uintptr_t) base, nb, w,
                                  aligned);
}
/* The chunk size word of block USER (SIZE bytes, allocating chain SITE,
   freed from quarantine with FREE_SITE, or HI_SITE_UNKNOWN) is wrong
   (hi_guard_chunk_ok), found in call WHEN from CALLER (NULL: as it left
   the quarantine): a heap corruption naming the block before, recorded,
   reported and acted on.  The caller then leaks the block: glibc is
   never handed a chunk whose size is smashed. */
HI_HIDDEN void hi_guard_chunk_smashed (uint64_t user, uint64_t size,
                                       uint32_t site, uint32_t free_site,
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

/* The same for an error about a block freed (first) by thread FREE_TID
   (0: not known), which the report names. */
HI_HIDDEN void hi_guard_error_freed (struct hi_error *e, int may_abort,
                                     uint64_t free_tid);

/* The exit handler's part (init.c), before the leak stop of `run
   --leak-check`: the quarantine's blocks are checked, so the errors are
   recorded when heapinspect reads the process. */
HI_HIDDEN void hi_guard_exit_check (void);
/* After the exit snapshot: abort (a core) if errors were found with
   HEAPINSPECT_ON_ERROR=abort that did not abort when found (found while
   a snapshot was written, at exit too), as ASan ends such a run. */
HI_HIDDEN void hi_guard_exit_act (void);

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
/* The chain of the free of quarantined block USER, or HI_SITE_UNKNOWN;
   the thread that freed it in *TID (0 if not known). */
HI_HIDDEN uint32_t hi_quarantine_free_site (uint64_t user, uint64_t *tid);
/* Check every held block's fill and redzone (a snapshot is written):
   each change is an error found at HI_WHEN_SNAPSHOT, reported once (the
   fill is restored).  Safe in a signal handler. */
HI_HIDDEN void hi_quarantine_check (void);

#endif
