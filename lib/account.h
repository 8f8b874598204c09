/* account.h - counting an allocation and a free, inline in the entry
   points (malloc.c): no call between taking the chain and counting it.
   Everything a thread can keep to itself it keeps in its own record,
   with plain stores: calls, counts, size bins, and the counters of its
   busiest sites.  Shared atomics remain for sites beyond those, and for
   live bytes (the peak), flushed in batches once several threads
   allocate.  Readers sum.  The rarer steps are in account.c. */
#ifndef HI_ACCOUNT_H
#define HI_ACCOUNT_H

#include "monitor.h"
#include "timeline.h"

/* Count a call of entry point CALL (enum hi_call); account.c's for a
   thread without a record of its own. */
HI_HIDDEN void hi_account_call_slow (int call);
static inline void
hi_account_call (int call)
{
  /* A thread with a record has seen the monitor ready. */
  if (HI_LIKELY (hi_tls.thread_slot != 0 && !hi_tls.shared_slot))
    {
      struct hi_thread *t = &hi_state.threads[hi_tls.thread_slot - 1];
      HI_OWN_ADD (t->calls[call], 1);
    }
  else
    hi_account_call_slow (call);
}

/* account.c: the flush of a thread once several may flush (atomic
   additions; the clock after it), and the end of the first thread's
   time as the only writer (before another thread's first flush). */
HI_HIDDEN uint64_t hi_account_flush_shared (int64_t pending, int64_t blocks,
                                            uint64_t clock_pending);
HI_HIDDEN void hi_account_end_sole (void);


/* Store V into a field of the shared format that only this thread
   writes now: one store, so readers see whole values. */
#define SOLE_STORE(field, v) \
  atomic_store_explicit ((_Atomic uint64_t *) &(field), (v), \
                         memory_order_relaxed)

/* The first thread, while it is the only one that flushes: the totals
   without atomic instructions.  The clock after the flush. */
static inline __attribute__ ((always_inline)) uint64_t
flush_alone (int64_t pending, int64_t blocks, uint64_t clock_pending)
{
  struct hi_root *r = &heapinspect_root;
  struct hi_totals *t = &r->totals;
  uint64_t clock = r->alloc_clock + clock_pending;
  uint64_t live = t->live_bytes + (uint64_t) pending;
  uint64_t nblocks = t->live_blocks + (uint64_t) blocks;
  SOLE_STORE (r->alloc_clock, clock);
  SOLE_STORE (t->live_bytes, live);
  SOLE_STORE (t->live_blocks, nblocks);
  if (blocks > 0 && nblocks > t->peak_blocks)
    SOLE_STORE (t->peak_blocks, nblocks);
  if (pending > 0 && live > t->peak_bytes)
    {
      SOLE_STORE (t->peak_bytes, live);
      SOLE_STORE (r->peak_clock, clock);
      SOLE_STORE (r->peak_gen, r->peak_gen + 1);
    }
  return clock;
}


/* Live bytes changed by DELTA (one block more or less) in this thread,
   and the allocation clock by ALLOCATED.  While one thread allocates,
   every change reaches the shared counts (an exact peak, an exact
   clock), without atomic instructions while it is the first and only
   thread (ALONE: the caller is in its sole window, sole_enter); with
   more, changes are batched to keep threads off one cache line.  A new
   peak starts a new generation of the shares (format.h): every share
   changed from now on first saves its figures.  The clock as this
   thread knows it; *POINT: 1 if it is time for a point of the timeline
   (taken by the caller, out of its sole window: point_due). */
static inline __attribute__ ((always_inline)) uint64_t
live_changed (int64_t delta, int block, uint64_t allocated, int alone,
              int *point)
{
  int64_t pending = hi_tls.live_unflushed + delta;
  int64_t blocks = hi_tls.blocks_unflushed + block;
  uint64_t clock_pending = hi_tls.clock_unflushed + allocated;
  struct hi_root *r = &heapinspect_root;
  int one_thread = HI_LOAD_ACQ (r->arenas[HI_A_THREADS].count) <= 1;
  if (!one_thread && pending < (int64_t) HI_PEAK_BATCH
      && pending > -(int64_t) HI_PEAK_BATCH
      && blocks < (int64_t) HI_PEAK_BATCH_BLOCKS
      && blocks > -(int64_t) HI_PEAK_BATCH_BLOCKS)
    {
      hi_tls.live_unflushed = pending;
      hi_tls.blocks_unflushed = blocks;
      hi_tls.clock_unflushed = clock_pending;
      return atomic_load_explicit ((_Atomic uint64_t *) &r->alloc_clock,
                                   memory_order_relaxed) + clock_pending;
    }
  hi_tls.live_unflushed = 0;
  hi_tls.blocks_unflushed = 0;
  hi_tls.clock_unflushed = 0;
  uint64_t clock;
  if (alone)
    clock = flush_alone (pending, blocks, clock_pending);
  else
    {
      if (HI_UNLIKELY (hi_tls.thread_slot != 1
                       && atomic_load_explicit (&hi_state.sole,
                                                memory_order_relaxed)))
        hi_account_end_sole ();
      clock = hi_account_flush_shared (pending, blocks, clock_pending);
    }
  *point = clock_pending
           && clock >= atomic_load_explicit
                ((_Atomic uint64_t *) &hi_state.timeline->next_clock,
                 memory_order_relaxed);
  return clock;
}


/* The first thread, while it is the only writer of the shared counters
   (hi_state.sole): 1 and its busy flag set (sole_leave clears it), in
   which case it updates them with plain stores; else 0.  The other side
   of end_sole's handshake: the flag is set, then sole read with no fence
   of the processor's own. */
static inline int
sole_enter (void)
{
  if (HI_UNLIKELY (hi_tls.thread_slot != 1))
    return 0;
  atomic_store_explicit (&hi_state.sole_busy, 1, memory_order_relaxed);
  atomic_signal_fence (memory_order_seq_cst);
  if (HI_LIKELY (atomic_load_explicit (&hi_state.sole, memory_order_relaxed)))
    return 1;
  atomic_store_explicit (&hi_state.sole_busy, 0, memory_order_release);
  return 0;
}

static inline void
sole_leave (int alone)
{
  if (alone)
    atomic_store_explicit (&hi_state.sole_busy, 0, memory_order_release);
}

/* Another thread than the first is about to change a shared counter:
   the first is the only writer no more. */
static inline void
sole_end_here (void)
{
  if (HI_UNLIKELY (atomic_load_explicit (&hi_state.sole,
                                         memory_order_relaxed)))
    hi_account_end_sole ();
}


/* The clock as this thread knows it: the shared one and its batch. */
static inline uint64_t
clock_now (void)
{
  return atomic_load_explicit ((_Atomic uint64_t *)
                               &heapinspect_root.alloc_clock,
                               memory_order_relaxed)
         + hi_tls.clock_unflushed;
}


/* Change share SH, written by this thread only (OWN) or by any, by
   BYTES and BLOCKS; a TEMPORARY free counts too.  format.h's rule:
   first save the figures of the latest peak if they are not saved yet,
   then change the live ones. */
static inline void
share_change (struct hi_peak_share *sh, int own, int64_t bytes,
              int64_t blocks, int temporary)
{
  uint64_t gen = atomic_load_explicit ((_Atomic uint64_t *)
                                       &heapinspect_root.peak_gen,
                                       memory_order_relaxed);
  if (own)
    {
      if (sh->peak_gen != gen)
        {
          HI_OWN_ADD (sh->peak_bytes, sh->live_bytes - sh->peak_bytes);
          HI_OWN_ADD (sh->peak_blocks, sh->live_blocks - sh->peak_blocks);
          HI_STORE_REL (sh->peak_gen, gen);
        }
      HI_OWN_ADD (sh->live_bytes, (uint64_t) bytes);
      HI_OWN_ADD (sh->live_blocks, (uint64_t) blocks);
      if (temporary)
        HI_OWN_ADD (sh->temporaries, 1);
      return;
    }
  /* Shared by threads: the first to see the new generation saves.  A
     change another thread makes meanwhile may be saved with it: one
     block per thread, within the documented bound. */
  uint64_t seen = HI_LOAD_ACQ (sh->peak_gen);
  if (seen != gen
      && atomic_compare_exchange_strong ((_Atomic uint64_t *) &sh->peak_gen,
                                         &seen, gen))
    {
      atomic_store_explicit ((_Atomic uint64_t *) &sh->peak_bytes,
                             HI_LOAD_ACQ (sh->live_bytes),
                             memory_order_relaxed);
      atomic_store_explicit ((_Atomic uint64_t *) &sh->peak_blocks,
                             HI_LOAD_ACQ (sh->live_blocks),
                             memory_order_relaxed);
    }
  HI_ADD (sh->live_bytes, (uint64_t) bytes);
  HI_ADD (sh->live_blocks, (uint64_t) blocks);
  if (temporary)
    HI_ADD (sh->temporaries, 1);
}

static inline struct hi_peak_share *
site_share (uint32_t site)
{
  return (struct hi_peak_share *) (hi_state.site_time
                                   + site * hi_state.site_time_size);
}

/* Share K of this thread's record (its sites[K]'s). */
static inline struct hi_peak_share *
thread_share (uint32_t k)
{
  return &hi_state.thread_time[hi_tls.thread_slot - 1].sites[k];
}


/* The index of this thread's counters for SITE in record T, or -1 if it
   has no room for it. */
static inline int
thread_site (struct hi_thread *t, uint32_t site)
{
  if (HI_UNLIKELY (hi_tls.shared_slot))
    return -1;
  uint32_t h = (site * 2654435761u) >> 26;       /* 0..63 */
  for (uint32_t k = 0; k < 4; k++)
    {
      uint32_t i = (h + k) % HI_THREAD_SITES;
      struct hi_thread_site *e = &t->sites[i];
      if (e->site == site)
        return (int) i;
      if (e->site == 0)
        {
          atomic_store_explicit ((_Atomic uint32_t *) &e->site, site,
                                 memory_order_release);
          return (int) i;
        }
    }
  return -1;
}


/* The counter of an allocation (A) or of a free (F), as FREED says. */
#define PICK(freed, a, f) (*((freed) ? &(f) : &(a)))

/* Count a block of SIZE bytes from SITE allocated, or FREED (a
   TEMPORARY free counts too): its chain's counters and share, its size's
   bin, the thread's totals.  Alone, the site's shared record takes plain
   stores as well as the thread's own would (readers sum both): no search
   for the latter; the first thread's slot is never the shared one: no
   atomics.  What sole_enter said (sole_leave takes it). */
static inline __attribute__ ((always_inline)) int
count_block (uint32_t site, uint64_t size, int freed, int temporary)
{
  unsigned sc = hi_size_class (size);
  int64_t bytes = freed ? -(int64_t) size : (int64_t) size;
  int64_t blocks = freed ? -1 : 1;
  int alone = sole_enter ();
  if (HI_LIKELY (alone))
    {
      struct hi_thread *t = &hi_state.threads[0];
      struct hi_site *s = &hi_state.sites[site];
      HI_OWN_ADD (PICK (freed, s->allocs[sc], s->frees[sc]), 1);
      HI_OWN_ADD (PICK (freed, s->bytes[sc], s->bytes_freed[sc]), size);
      share_change (site_share (site), 1, bytes, blocks, temporary);
      struct hi_bin *b = &t->bins[hi_bin_of (size)];
      HI_OWN_ADD (PICK (freed, b->allocs, b->frees), 1);
      HI_OWN_ADD (PICK (freed, b->bytes, b->bytes_freed), size);
      HI_OWN_ADD (PICK (freed, t->allocations, t->frees), 1);
      HI_OWN_ADD (PICK (freed, t->bytes_allocated, t->bytes_freed), size);
      return alone;
    }
  struct hi_thread *t = hi_this_thread ();
  int k = site ? thread_site (t, site) : -1;
  if (k >= 0)
    {
      struct hi_thread_site *ts = &t->sites[k];
      HI_OWN_ADD (PICK (freed, ts->allocs[sc], ts->frees[sc]), 1);
      HI_OWN_ADD (PICK (freed, ts->bytes[sc], ts->bytes_freed[sc]), size);
      share_change (thread_share ((uint32_t) k), 1, bytes, blocks, temporary);
    }
  else
    {
      struct hi_site *s = &hi_state.sites[site];
      if (hi_tls.thread_slot != 1)
        sole_end_here ();
      HI_ADD (PICK (freed, s->allocs[sc], s->frees[sc]), 1);
      HI_ADD (PICK (freed, s->bytes[sc], s->bytes_freed[sc]), size);
      share_change (site_share (site), 0, bytes, blocks, temporary);
    }
  struct hi_bin *b = &t->bins[hi_bin_of (size)];
  uint64_t *calls = &PICK (freed, b->allocs, b->frees);
  uint64_t *sum = &PICK (freed, b->bytes, b->bytes_freed);
  uint64_t *total = &PICK (freed, t->allocations, t->frees);
  uint64_t *total_bytes = &PICK (freed, t->bytes_allocated, t->bytes_freed);
  if (HI_LIKELY (!hi_tls.shared_slot))
    {
      HI_OWN_ADD (*calls, 1);
      HI_OWN_ADD (*sum, size);
      HI_OWN_ADD (*total, 1);
      HI_OWN_ADD (*total_bytes, size);
    }
  else
    {
      HI_ADD (*calls, 1);
      HI_ADD (*sum, size);
      HI_ADD (*total, 1);
      HI_ADD (*total_bytes, size);
    }
  return alone;
}

/* Count an allocation of SIZE bytes from SITE.  BIRTH: the block's
   birth stamp with lifetimes (hi_state.birth), else NULL; filled here. */
static inline __attribute__ ((always_inline)) void
hi_account_alloc (uint32_t site, uint64_t size, struct hi_block_birth *birth)
{
  if (site == HI_SITE_INTERNAL)
    {
      HI_ADD (heapinspect_root.totals.internal_allocs, 1);
      return;
    }
  int alone = count_block (site, size, 0, 0);
  int point = 0;
  uint64_t clock = live_changed ((int64_t) size, 1, size, alone, &point);
  sole_leave (alone);
  if (HI_UNLIKELY (point))
    hi_timeline_point (clock);
  if (birth)
    {
      struct hi_site_life *l = (struct hi_site_life *) site_share (site);
      birth->clock = clock;
      birth->time_ns = hi_time_now ();
      HI_ADD (l->live, 1);
      HI_ADD (l->live_clock_sum, birth->clock);
      HI_ADD (l->live_ns_sum, birth->time_ns);
    }
  if (HI_UNLIKELY (hi_tls.exit_writer))
    hi_exit_changed ();
}

/* Count the free of a SIZE-byte block from SITE (BIRTH as above).
   TEMPORARY: it is freed by the thread that allocated it, with no
   allocation in between. */
static inline __attribute__ ((always_inline)) void
hi_account_free (uint32_t site, uint64_t size,
                 const struct hi_block_birth *birth, int temporary)
{
  if (site == HI_SITE_INTERNAL)
    return;
  int alone = count_block (site, size, 1, temporary);
  if (birth)
    {
      /* Frees do not move the clock: the bytes allocated since. */
      struct hi_site_life *l = (struct hi_site_life *) site_share (site);
      uint64_t now = clock_now (), ns = hi_time_now ();
      HI_ADD (l->life[hi_life_bucket (now > birth->clock
                                      ? now - birth->clock : 0)], 1);
      HI_ADD (l->freed, 1);
      HI_ADD (l->freed_ns, ns > birth->time_ns ? ns - birth->time_ns : 0);
      HI_ADD (l->live, (uint64_t) -1);
      HI_ADD (l->live_clock_sum, -birth->clock);
      HI_ADD (l->live_ns_sum, -birth->time_ns);
    }
  int point = 0;
  uint64_t clock = live_changed (-(int64_t) size, -1, 0, alone, &point);
  sole_leave (alone);
  if (HI_UNLIKELY (point))
    hi_timeline_point (clock);
  if (HI_UNLIKELY (hi_tls.exit_writer))
    hi_exit_changed ();
}

#endif
