/* account.c - counting allocations and frees: per thread (no lock
   prefix), per site (shared atomics), and live bytes for the peak. */
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
  struct hi_totals *tot = &heapinspect_root.totals;
  if (site == HI_SITE_INTERNAL)
    {
      HI_ADD (tot->internal_allocs, 1);
      return;
    }
  unsigned sc = hi_size_class (size);
  struct hi_site *s = &hi_state.sites[site];
  HI_ADD (s->allocs[sc], 1);
  HI_ADD (s->bytes[sc], size);
  struct hi_thread *t = hi_this_thread ();
  struct hi_bin *b = &t->bins[hi_bin_of (size)];
  THREAD_ADD (b->allocs, 1);
  THREAD_ADD (b->bytes, size);
  THREAD_ADD (t->allocations, 1);
  THREAD_ADD (t->bytes_allocated, size);
  raise_peak (HI_ADD (tot->live_bytes, size) + size);
}

void
hi_account_free (uint32_t site, uint64_t size)
{
  if (site == HI_SITE_INTERNAL)
    return;
  unsigned sc = hi_size_class (size);
  struct hi_site *s = &hi_state.sites[site];
  HI_ADD (s->frees[sc], 1);
  HI_ADD (s->bytes_freed[sc], size);
  struct hi_thread *t = hi_this_thread ();
  struct hi_bin *b = &t->bins[hi_bin_of (size)];
  THREAD_ADD (b->frees, 1);
  THREAD_ADD (b->bytes_freed, size);
  THREAD_ADD (t->frees, 1);
  THREAD_ADD (t->bytes_freed, size);
  HI_ADD (heapinspect_root.totals.live_bytes, -size);
}
