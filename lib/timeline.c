/* timeline.c - the heap over time, massif's way (format.h): a point
   every `interval` bytes of the allocation clock, every allocation at
   first; when the points are all used, every other one goes and the
   interval doubles.  Every HI_TIMELINE_DETAIL_EVERY-th point also keeps
   the chains with the most live bytes.  Off the hot path: the allocating
   thread only compares the clock with next_clock; the point is taken
   under a trylock (a thread that finds it taken goes on: a point is a
   sample, the next one will do). */
#include "timeline.h"

#include <string.h>

/* Keep every other entry of ARRAY (N of SIZE bytes), the first among
   them; how many are left. */
static uint32_t
thin (void *array, uint32_t n, size_t size)
{
  char *a = array;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i += 2, k++)
    if (i != k)
      memcpy (a + k * size, a + i * size, size);
  return k;
}

/* Site S's live figures into the top list D if they are among the
   HI_TIMELINE_TOP largest, which D keeps largest first. */
static void
offer (struct hi_tdetail *d, uint32_t s, int64_t bytes, int64_t blocks)
{
  if (bytes <= 0)
    return;
  uint32_t n = d->n_chains;
  if (n == HI_TIMELINE_TOP
      && (uint64_t) bytes <= d->chains[n - 1].live_bytes)
    return;
  if (n < HI_TIMELINE_TOP)
    n++;
  uint32_t k = n - 1;
  while (k > 0 && d->chains[k - 1].live_bytes < (uint64_t) bytes)
    {
      d->chains[k] = d->chains[k - 1];
      k--;
    }
  d->chains[k] = (struct hi_tchain) { s, 0, (uint64_t) bytes,
                                      blocks > 0 ? (uint64_t) blocks : 0 };
  d->n_chains = n;
}

/* The chains with the most live bytes now into D: each site's shared
   share plus its threads' shares (the live figures of both sum right). */
static void
top_chains (struct hi_tdetail *d)
{
  uint64_t n_sites = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_SITES].count);
  if (n_sites > hi_state.scratch_cap)
    {
      /* Twice the sites there are, never in a core: the address space
         used grows with the program's chains. */
      uint64_t cap = n_sites * 2 < 4096 ? 4096 : n_sites * 2;
      if (cap > HI_CAP_SITES)
        cap = HI_CAP_SITES;
      void *p = hi_prim_alloc_nodump ((size_t) cap
                                      * sizeof hi_state.scratch[0]);
      if (!p)
        return;
      if (hi_state.scratch)
        hi_prim_release (hi_state.scratch, (size_t) hi_state.scratch_cap
                                           * sizeof hi_state.scratch[0]);
      hi_state.scratch = p;
      hi_state.scratch_cap = cap;
    }
  int64_t (*live)[2] = hi_state.scratch;
  for (uint64_t s = 0; s < n_sites; s++)
    {
      const struct hi_peak_share *sh = (const void *)
        (hi_state.site_time + s * hi_state.site_time_size);
      live[s][0] = (int64_t) sh->live_bytes;
      live[s][1] = (int64_t) sh->live_blocks;
    }
  uint64_t n_threads = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_THREADS].count);
  for (uint64_t i = 0; i < n_threads; i++)
    for (unsigned k = 0; k < HI_THREAD_SITES; k++)
      {
        uint32_t s = HI_LOAD_ACQ (hi_state.threads[i].sites[k].site);
        if (s == 0 || s >= n_sites)
          continue;
        const struct hi_peak_share *sh = &hi_state.thread_time[i].sites[k];
        live[s][0] += (int64_t) sh->live_bytes;
        live[s][1] += (int64_t) sh->live_blocks;
      }
  d->n_chains = 0;
  for (uint64_t s = 0; s < n_sites; s++)
    offer (d, (uint32_t) s, live[s][0], live[s][1]);
}

void
hi_timeline_point (uint64_t clock)
{
  struct hi_timeline *tl = hi_state.timeline;
  if (!hi_lock_try (&hi_state.timeline_lock))
    return;
  if (clock < tl->next_clock)
    {
      hi_lock_release (&hi_state.timeline_lock);
      return;
    }
  if (tl->n_points == HI_TIMELINE_POINTS)
    {
      /* Full: the interval becomes the mean distance of the points kept
         (doubled once it has one). */
      uint64_t span = tl->points[HI_TIMELINE_POINTS - 1].clock
                      - tl->points[0].clock;
      uint64_t mean = span / (HI_TIMELINE_POINTS / 2);
      tl->interval = tl->interval ? tl->interval * 2 : mean ? mean : 1;
      /* A reader of the live process never sees the points half thinned
         (out of order): none while they are. */
      HI_STORE_REL (tl->n_points, 0);
      atomic_thread_fence (memory_order_seq_cst);
      HI_STORE_REL (tl->n_points, thin (tl->points, HI_TIMELINE_POINTS,
                                        sizeof tl->points[0]));
    }
  const struct hi_totals *t = &heapinspect_root.totals;
  struct hi_tpoint p = {
    hi_time_now (), clock,
    atomic_load_explicit ((_Atomic uint64_t *) &t->live_bytes,
                          memory_order_relaxed),
    atomic_load_explicit ((_Atomic uint64_t *) &t->live_blocks,
                          memory_order_relaxed) };
  /* Threads flush out of order: time and clock never go back. */
  if (tl->n_points)
    {
      const struct hi_tpoint *last = &tl->points[tl->n_points - 1];
      if (p.time_ns < last->time_ns)
        p.time_ns = last->time_ns;
      if (p.clock < last->clock)
        p.clock = last->clock;
    }
  tl->points[tl->n_points] = p;
  HI_STORE_REL (tl->n_points, tl->n_points + 1);
  if (tl->points_taken % HI_TIMELINE_DETAIL_EVERY == 0)
    {
      if (tl->n_detailed == HI_TIMELINE_DETAILED)
        {
          HI_STORE_REL (tl->n_detailed, 0);
          atomic_thread_fence (memory_order_seq_cst);
          HI_STORE_REL (tl->n_detailed, thin (tl->detailed,
                                              HI_TIMELINE_DETAILED,
                                              sizeof tl->detailed[0]));
        }
      struct hi_tdetail *d = &tl->detailed[tl->n_detailed];
      d->at = p;
      top_chains (d);
      HI_STORE_REL (tl->n_detailed, tl->n_detailed + 1);
    }
  tl->points_taken++;
  HI_STORE_REL (tl->next_clock, p.clock + (tl->interval ? tl->interval : 1));
  hi_lock_release (&hi_state.timeline_lock);
}

void
hi_timeline_forked (void)
{
  /* The child's times start again (hi_process_forked): so do its
     points.  Its clock and peak go on from the parent's. */
  struct hi_timeline *tl = hi_state.timeline;
  hi_state.timeline_lock.word = 0;
  tl->n_points = 0;
  tl->n_detailed = 0;
  tl->points_taken = 0;
  tl->interval = 0;
  tl->next_clock = 0;
}
