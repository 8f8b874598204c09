/* account.c - the rarer steps of counting (account.h has the counting
   of an allocation and a free): flushes once several threads allocate,
   the end of the first thread's time as the only writer, calls counted
   before a thread has its record, the time since the start. */
#include "account.h"

/* Add V to counter F of this thread's record. */
#define THREAD_ADD(f, v) \
  do \
    if (HI_UNLIKELY (hi_tls.shared_slot)) \
      HI_ADD (f, v); \
    else \
      HI_OWN_ADD (f, v); \
  while (0)

/* Raise *FIELD to LIVE if it is below; 1 if this call raised it. */
static int
raise_peak (uint64_t *field, uint64_t live)
{
  _Atomic uint64_t *peak = (_Atomic uint64_t *) field;
  uint64_t old = atomic_load_explicit (peak, memory_order_relaxed);
  while (old < live)
    if (atomic_compare_exchange_weak_explicit (peak, &old, live,
                                               memory_order_relaxed,
                                               memory_order_relaxed))
      return 1;
  return 0;
}


/* Any thread once several may flush: atomic additions. */
uint64_t
hi_account_flush_shared (int64_t pending, int64_t blocks, uint64_t clock_pending)
{
  struct hi_root *r = &heapinspect_root;
  struct hi_totals *t = &r->totals;
  /* A free does not move the clock: no atomic addition for it. */
  uint64_t clock = clock_pending
    ? HI_ADD (r->alloc_clock, clock_pending) + clock_pending
    : atomic_load_explicit ((_Atomic uint64_t *) &r->alloc_clock,
                            memory_order_relaxed);
  uint64_t live = HI_ADD (t->live_bytes, (uint64_t) pending) + (uint64_t) pending;
  uint64_t nblocks = HI_ADD (t->live_blocks, (uint64_t) blocks) + (uint64_t) blocks;
  if (blocks > 0)
    raise_peak (&t->peak_blocks, nblocks);
  if (pending > 0 && raise_peak (&t->peak_bytes, live))
    {
      atomic_store_explicit ((_Atomic uint64_t *) &r->peak_clock, clock,
                             memory_order_relaxed);
      HI_ADD (r->peak_gen, 1);
    }
  return clock;
}


/* Before this thread's first atomic flush: the first thread is the only
   writer no more.  An asymmetric Dekker handshake: it sets sole_busy and
   then reads sole with no fence of its own; here sole is cleared, every
   running thread is made to pass a full barrier, and then a busy first
   thread is in its plain update and is waited for, or it will see sole
   cleared.  Once per process. */
void
hi_account_end_sole (void)
{
  hi_lock_acquire (&hi_state.sole_lock);
  if (atomic_load (&hi_state.sole))
    {
      atomic_store (&hi_state.sole, 0);
      if (hi_prim_barrier_all () != 0)
        for (int i = 0; i < 1000; i++)   /* cannot happen once set up */
          hi_prim_yield ();
      while (atomic_load (&hi_state.sole_busy))
        hi_prim_yield ();
    }
  hi_lock_release (&hi_state.sole_lock);
}

void
hi_account_call_slow (int call)
{
  if (!hi_ensure_init ())
    return;
  struct hi_thread *t = hi_this_thread ();
  THREAD_ADD (t->calls[call], 1);
}
