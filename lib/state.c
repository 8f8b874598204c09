/* state.c - the monitor's state: the root, hi_state and hi_tls, the
   arenas (reserved, then committed as they fill), this thread's record
   and the time since the start. */
#include "monitor.h"

__attribute__ ((visibility ("default"))) struct hi_root heapinspect_root;
/* Zero but for these. */
HI_HIDDEN struct hi_state hi_state = {
  .exit_rewrites = 64,
  .unwind.generation = 1,
  .guard.fork_gen = 1,
  .quarantine.look_base = UINT64_MAX,
  .quarantine.look_last = UINT64_MAX,
  .pools.n_recs = 1,
  .leak_stop.fd = -1,
};
__thread struct hi_thread_tls hi_tls_data HI_TLS_MODEL;

#ifdef HI_WRAP
HI_HIDDEN _Atomic int hi_unwind_ready;
__attribute__ ((constructor)) static void
allow_unwinding (void)
{
  atomic_store (&hi_unwind_ready, 1);
}
#else
HI_HIDDEN _Atomic int hi_unwind_ready = 1;
#endif

_Atomic int hi_init_state;

/* Arenas are reserved inaccessible and committed as they fill, so a core
   file or gcore holds what is in use, not the whole reservation.  The
   root lists the committed part: `capacity` counts readable entries. */
#define COMMIT_STEP (UINT64_C(64) << 10)

static uint64_t
round_up (uint64_t n, uint64_t step)
{
  return (n + step - 1) / step * step;
}

void *
hi_arena_add (int index, uint32_t kind, uint64_t capacity, uint32_t entry_size)
{
  uint64_t bytes = round_up (capacity * entry_size, hi_prim_page_size ());
  void *p = hi_prim_reserve ((size_t) bytes);
  struct hi_arena_desc *a = hi_arena_at (index);
  a->addr = (uint64_t) (uintptr_t) p;
  a->capacity = 0;
  a->count = 0;
  a->kind = kind;
  a->entry_size = entry_size;
  hi_state.reserved[index] = p ? bytes : 0;
  hi_state.committed[index] = 0;
  return p;
}

int
hi_arena_commit (int index, uint64_t n)
{
  struct hi_arena_desc *a = hi_arena_at (index);
  if (HI_LIKELY (n <= HI_LOAD_ACQ (a->capacity)))
    return 0;
  hi_lock_acquire (&hi_state.commit_lock);
  uint64_t have = hi_state.committed[index];
  uint64_t need = n * a->entry_size;
  if (need > have)
    {
      /* Grow by a quarter at least, in whole steps: few system calls,
         little committed beyond use. */
      uint64_t want = round_up (need > have + have / 4 ? need
                                : have + have / 4, COMMIT_STEP);
      if (want > hi_state.reserved[index])
        want = hi_state.reserved[index];
      if (want >= need
          && hi_prim_commit ((char *) (uintptr_t) a->addr + have,
                             (size_t) (want - have)) == 0)
        {
          /* Write to it once: the kernel leaves out of a core dump an
             anonymous mapping never written to, and a reader would find
             an arena of zeros (a time arena nobody changed yet)
             unreadable. */
          *(volatile char *) (uintptr_t) (a->addr + have) = 0;
          hi_state.committed[index] = want;
          HI_STORE_REL (a->capacity, want / a->entry_size);
        }
    }
  int ok = n <= a->capacity;
  hi_lock_release (&hi_state.commit_lock);
  return ok ? 0 : -1;
}

void
hi_arenas_release (void)
{
  struct hi_root *r = &heapinspect_root;
  for (int i = 0; i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    if (hi_state.reserved[i])
      {
        struct hi_arena_desc *a = hi_arena_at (i);
        hi_prim_release ((void *) (uintptr_t) a->addr,
                         (size_t) hi_state.reserved[i]);
        *a = (struct hi_arena_desc) { 0 };
        hi_state.reserved[i] = hi_state.committed[i] = 0;
      }
  r->n_arenas = 0;
}

/* Raise arena INDEX's count to N if it is below. */
static void
raise_count (int index, uint64_t n)
{
  _Atomic uint64_t *count = (_Atomic uint64_t *) &hi_arena_at (index)->count;
  uint64_t c = atomic_load (count);
  while (c < n && !atomic_compare_exchange_weak (count, &c, n))
    ;
}

struct hi_thread *
hi_thread_claim (void)
{
  /* Claim a slot without ever letting count pass the capacity, which
     a reader would take for damage.  When none is left, later threads
     share the last one (counters stay exact, only not per thread). */
  _Atomic uint64_t *count = (_Atomic uint64_t *)
    &heapinspect_root.arenas[HI_A_THREADS].count;
  uint64_t i = atomic_load (count);
  do
    {
      if (i >= HI_CAP_THREADS)
        break;
      /* The record and its time entry are readable before count
         covers them; the time arena's count never lags behind. */
      if (hi_arena_commit (HI_A_THREADS, i + 1) != 0
          || hi_arena_commit (HI_A_THREAD_TIME, i + 1) != 0)
        {
          /* No memory for it: counted nowhere, but never a crash. */
          static struct hi_thread lost;
          hi_tls.shared_slot = 1;
          return &lost;
        }
    }
  while ((raise_count (HI_A_THREAD_TIME, i + 1),
          !atomic_compare_exchange_weak (count, &i, i + 1)));
  if (i >= HI_CAP_THREADS)
    {
      i = HI_CAP_THREADS - 1;
      hi_tls.shared_slot = 1;
    }
  else
    hi_state.threads[i].tid = hi_prim_tid ();
  hi_tls.thread_slot = (uint32_t) i + 1;
  return &hi_state.threads[hi_tls.thread_slot - 1];
}

uint64_t
hi_time_now (void)
{
  uint64_t now = hi_prim_monotonic_ns ();
  return now > hi_state.start_ns ? now - hi_state.start_ns : 0;
}
