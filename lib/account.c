/* account.c - counting allocations and frees into totals, sites and bins. */
#include "monitor.h"

static void
raise_peak (uint64_t live)
{
  _Atomic uint64_t *peak = (_Atomic uint64_t *) &heapinspect_root.totals.peak_bytes;
  uint64_t old = atomic_load_explicit (peak, memory_order_relaxed);
  while (old < live
         && !atomic_compare_exchange_weak_explicit (peak, &old, live,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed))
    ;
}

void
hi_account_alloc (uint32_t site, uint64_t size)
{
  struct hi_totals *t = &heapinspect_root.totals;
  if (site == HI_SITE_INTERNAL)
    {
      HI_ADD (t->internal_allocs, 1);
      return;
    }
  unsigned sc = hi_size_class (size);
  struct hi_site *s = &hi_state.sites[site];
  HI_ADD (s->allocs[sc], 1);
  HI_ADD (s->bytes[sc], size);
  struct hi_bin *b = &hi_state.bins[hi_bin_of (size)];
  HI_ADD (b->allocs, 1);
  HI_ADD (b->bytes, size);
  HI_ADD (t->allocations, 1);
  HI_ADD (t->bytes_allocated, size);
  HI_ADD (t->live_blocks, 1);
  raise_peak (HI_ADD (t->live_bytes, size) + size);
}

void
hi_account_free (uint32_t site, uint64_t size)
{
  struct hi_totals *t = &heapinspect_root.totals;
  if (site == HI_SITE_INTERNAL)
    return;
  unsigned sc = hi_size_class (size);
  struct hi_site *s = &hi_state.sites[site];
  HI_ADD (s->frees[sc], 1);
  HI_ADD (s->bytes_freed[sc], size);
  struct hi_bin *b = &hi_state.bins[hi_bin_of (size)];
  HI_ADD (b->frees, 1);
  HI_ADD (b->bytes_freed, size);
  HI_ADD (t->frees, 1);
  HI_ADD (t->bytes_freed, size);
  HI_ADD (t->live_blocks, (uint64_t) -1);
  HI_ADD (t->live_bytes, -size);
}
