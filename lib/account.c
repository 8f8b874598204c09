/* account.c - counting allocations and frees.  Everything a thread can
   keep to itself it keeps in its own record, with plain stores: calls,
   counts, size bins, and the counters of its busiest sites.  Shared
   atomics remain for sites beyond those, and for live bytes (the peak),
   flushed in batches once several threads allocate.  Readers sum. */
#include "monitor.h"

/* Add V to counter F of this thread's record. */
#define THREAD_ADD(f, v) \
  do \
    if (HI_UNLIKELY (hi_tls.shared_slot)) \
      HI_ADD (f, v); \
    else \
      HI_OWN_ADD (f, v); \
  while (0)

static void
raise_peak (uint64_t *field, uint64_t live)
{
  _Atomic uint64_t *peak = (_Atomic uint64_t *) field;
  uint64_t old = atomic_load_explicit (peak, memory_order_relaxed);
  while (old < live
         && !atomic_compare_exchange_weak_explicit (peak, &old, live,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed))
    ;
}

/* Live bytes changed by DELTA (one block more or less) in this thread.
   While one thread allocates, every change reaches the shared counts (an
   exact peak); with more, changes are batched to keep threads off one
   cache line. */
static void
live_changed (int64_t delta, int block)
{
  int64_t pending = hi_tls.live_unflushed + delta;
  int64_t blocks = hi_tls.blocks_unflushed + block;
  int one_thread = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_THREADS].count) <= 1;
  if (!one_thread && pending < (int64_t) HI_PEAK_BATCH
      && pending > -(int64_t) HI_PEAK_BATCH
      && blocks < (int64_t) HI_PEAK_BATCH_BLOCKS
      && blocks > -(int64_t) HI_PEAK_BATCH_BLOCKS)
    {
      hi_tls.live_unflushed = pending;
      hi_tls.blocks_unflushed = blocks;
      return;
    }
  struct hi_totals *t = &heapinspect_root.totals;
  hi_tls.live_unflushed = 0;
  hi_tls.blocks_unflushed = 0;
  uint64_t live = HI_ADD (t->live_bytes, (uint64_t) pending) + (uint64_t) pending;
  uint64_t nblocks = HI_ADD (t->live_blocks, (uint64_t) blocks) + (uint64_t) blocks;
  if (pending > 0)
    raise_peak (&t->peak_bytes, live);
  if (blocks > 0)
    raise_peak (&t->peak_blocks, nblocks);
}

/* This thread's counters for SITE, or NULL if it has no room for it. */
static struct hi_thread_site *
thread_site (struct hi_thread *t, uint32_t site)
{
  if (HI_UNLIKELY (hi_tls.shared_slot))
    return NULL;
  uint32_t h = (site * 2654435761u) >> 26;       /* 0..63 */
  for (uint32_t k = 0; k < 4; k++)
    {
      struct hi_thread_site *e = &t->sites[(h + k) % HI_THREAD_SITES];
      if (e->site == site)
        return e;
      if (e->site == 0)
        {
          atomic_store_explicit ((_Atomic uint32_t *) &e->site, site,
                                 memory_order_release);
          return e;
        }
    }
  return NULL;
}

void
hi_account_call (int call)
{
  if (!hi_ensure_init ())
    return;
  struct hi_thread *t = hi_this_thread ();
  THREAD_ADD (t->calls[call], 1);
}

void
hi_account_alloc (uint32_t site, uint64_t size)
{
  if (site == HI_SITE_INTERNAL)
    {
      HI_ADD (heapinspect_root.totals.internal_allocs, 1);
      return;
    }
  unsigned sc = hi_size_class (size);
  struct hi_thread *t = hi_this_thread ();
  struct hi_thread_site *ts = site ? thread_site (t, site) : NULL;
  if (ts)
    {
      HI_OWN_ADD (ts->allocs[sc], 1);
      HI_OWN_ADD (ts->bytes[sc], size);
    }
  else
    {
      HI_ADD (hi_state.sites[site].allocs[sc], 1);
      HI_ADD (hi_state.sites[site].bytes[sc], size);
    }
  struct hi_bin *b = &t->bins[hi_bin_of (size)];
  THREAD_ADD (b->allocs, 1);
  THREAD_ADD (b->bytes, size);
  THREAD_ADD (t->allocations, 1);
  THREAD_ADD (t->bytes_allocated, size);
  live_changed ((int64_t) size, 1);
  if (HI_UNLIKELY (hi_tls.exit_writer))
    hi_exit_changed ();
}

void
hi_account_free (uint32_t site, uint64_t size)
{
  if (site == HI_SITE_INTERNAL)
    return;
  unsigned sc = hi_size_class (size);
  struct hi_thread *t = hi_this_thread ();
  struct hi_thread_site *ts = site ? thread_site (t, site) : NULL;
  if (ts)
    {
      HI_OWN_ADD (ts->frees[sc], 1);
      HI_OWN_ADD (ts->bytes_freed[sc], size);
    }
  else
    {
      HI_ADD (hi_state.sites[site].frees[sc], 1);
      HI_ADD (hi_state.sites[site].bytes_freed[sc], size);
    }
  struct hi_bin *b = &t->bins[hi_bin_of (size)];
  THREAD_ADD (b->frees, 1);
  THREAD_ADD (b->bytes_freed, size);
  THREAD_ADD (t->frees, 1);
  THREAD_ADD (t->bytes_freed, size);
  live_changed (-(int64_t) size, -1);
  if (HI_UNLIKELY (hi_tls.exit_writer))
    hi_exit_changed ();
}
