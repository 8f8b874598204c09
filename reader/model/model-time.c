/* model-time.c - the time arenas of format 4 (see format.h): each
   chain's figures at the peak and its temporaries, summed over its
   records, its lifetimes, and the timeline, checked so that the tables
   can trust them.  What cannot be used is counted in damage.time; the
   rest of the model never depends on it. */
#include "model/model.h"
#include "hi-reader.h"

#include <stdlib.h>
#include <string.h>

static uint64_t
sat_add (uint64_t x, uint64_t y)
{
  return x + y < x ? UINT64_MAX : x + y;
}

static void
time_damage (struct hi_model *m)
{
  m->damage.time++;
  m->damaged++;
}

/* SH's figures at the latest peak (PEAK_GEN): its saved ones if it
   changed since, else its live ones. */
static void
share_at_peak (const struct hi_peak_share *sh, uint64_t peak_gen,
               uint64_t *bytes, uint64_t *blocks)
{
  int changed = sh->peak_gen == peak_gen;
  *bytes += changed ? sh->peak_bytes : sh->live_bytes;
  *blocks += changed ? sh->peak_blocks : sh->live_blocks;
}

/* A sum of shares is a signed figure modulo 2^64: below zero (a race
   between threads) is 0; above what the chain ever allocated (LIMIT) is
   damage, clamped. */
static uint64_t
settle (struct hi_model *m, uint64_t v, uint64_t limit, int *bad)
{
  if ((int64_t) v < 0)
    return 0;
  if (v > limit)
    {
      *bad = 1;
      return limit;
    }
  (void) m;
  return v;
}

/* The chains' figures from the site shares SITES (N of them, entries of
   ESIZE bytes: struct hi_site_time or hi_site_life) and the thread
   shares THREADS (NT of them). */
static void
sum_shares (struct hi_model *m, const char *sites, uint64_t n, size_t esize,
            const struct hi_thread_time *threads, uint64_t nt)
{
  uint64_t gen = m->root.peak_gen;
  int life = esize == sizeof (struct hi_site_life);
  for (uint64_t s = 0; s < m->n_sites && s < n; s++)
    {
      const struct hi_site_life *e = (const void *) (sites + s * esize);
      struct hi_chain_time *c = &m->chain_time[s];
      if (s > 0 && m->sites[s].depth == 0)
        continue;                 /* a site dropped as damage */
      share_at_peak (&e->share, gen, &c->peak_bytes, &c->peak_blocks);
      c->temporaries += e->share.temporaries;
      if (!life)
        continue;
      memcpy (c->life, e->life, sizeof c->life);
      c->freed = e->freed;
      c->freed_ns = e->freed_ns;
      c->live = e->live;
      c->live_clock_sum = e->live_clock_sum;
      c->live_ns_sum = e->live_ns_sum;
    }
  for (uint64_t i = 0; i < m->n_threads && i < nt; i++)
    for (unsigned k = 0; k < HI_THREAD_SITES; k++)
      {
        uint32_t s = m->threads[i].sites[k].site;
        if (s == 0 || s >= m->n_sites || m->sites[s].depth == 0)
          continue;
        const struct hi_peak_share *sh = &threads[i].sites[k];
        struct hi_chain_time *c = &m->chain_time[s];
        share_at_peak (sh, gen, &c->peak_bytes, &c->peak_blocks);
        c->temporaries += sh->temporaries;
      }
  int bad = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      const struct hi_site *site = &m->sites[s];
      struct hi_chain_time *c = &m->chain_time[s];
      uint64_t allocs = 0, bytes = 0, frees = 0, freed = 0;
      for (int k = 0; k < HI_NSIZE_CLASSES; k++)
        {
          allocs += site->allocs[k];
          bytes += site->bytes[k];
          frees += site->frees[k];
          freed += site->bytes_freed[k];
        }
      if (m->peak_is_live)
        {
          /* The peak is the live figures: the shares lag behind them. */
          c->peak_bytes = bytes - freed;
          c->peak_blocks = allocs - frees;
        }
      c->peak_bytes = settle (m, c->peak_bytes, bytes, &bad);
      c->peak_blocks = settle (m, c->peak_blocks, allocs, &bad);
      /* The life records and the counters are read at different
         instants of a process whose threads may be running (a signal's
         snapshot, a read with --no-stop): they drift apart by what the
         threads did in between.  Drift is clamped; only what no drift
         explains is damage. */
      uint64_t drift = frees / 16
                       + HI_PEAK_BATCH_BLOCKS * (m->n_threads + 1);
      if (c->temporaries > frees)
        {
          c->temporaries = frees;
          bad = 1;
        }
      uint64_t in_buckets = 0;
      for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
        in_buckets = in_buckets + c->life[k] < in_buckets
                     ? UINT64_MAX : in_buckets + c->life[k];
      if (in_buckets == c->freed && c->freed <= frees + drift
          && c->live <= allocs - frees + drift)
        {
          if (c->live > allocs - frees)
            c->live = allocs - frees;
        }
      else
        {
          memset (c->life, 0, sizeof c->life);
          c->freed = c->freed_ns = c->live = 0;
          c->live_clock_sum = c->live_ns_sum = 0;
          bad = 1;
        }
    }
  if (bad)
    time_damage (m);
  /* The chains' figures at the peak are one moment's live figures; with
     several threads the flushed peak may lag them (HI_PEAK_BATCH per
     thread): the peak was at least their sum. */
  uint64_t sum_bytes = 0, sum_blocks = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      sum_bytes = sat_add (sum_bytes, m->chain_time[s].peak_bytes);
      sum_blocks = sat_add (sum_blocks, m->chain_time[s].peak_blocks);
    }
  struct hi_totals *t = &m->root.totals;
  if (sum_bytes > t->peak_bytes)
    t->peak_bytes = sum_bytes;
  if (sum_blocks > t->peak_blocks)
    t->peak_blocks = sum_blocks;
  m->peak_chain_blocks = sum_blocks;
}

/* Points whose time and clock never go back, from the first on; how
   many of the N at P. */
static uint64_t
monotone_prefix (const struct hi_tpoint *p, uint64_t n, size_t stride)
{
  uint64_t k = 0;
  const struct hi_tpoint *prev = NULL;
  for (; k < n; k++)
    {
      const struct hi_tpoint *q = (const void *) ((const char *) p + k * stride);
      if (prev && (q->time_ns < prev->time_ns || q->clock < prev->clock))
        break;
      prev = q;
    }
  return k;
}

/* The timeline TL, checked, into M's points and detailed points. */
static hi_status
take_timeline (struct hi_model *m, const struct hi_timeline *tl)
{
  uint64_t n = tl->n_points, nd = tl->n_detailed;
  int bad = 0;
  if (n > HI_TIMELINE_POINTS)
    n = HI_TIMELINE_POINTS, bad = 1;
  if (nd > HI_TIMELINE_DETAILED)
    nd = HI_TIMELINE_DETAILED, bad = 1;
  uint64_t keep = monotone_prefix (tl->points, n, sizeof tl->points[0]);
  bad |= keep != n;
  uint64_t keepd = monotone_prefix (&tl->detailed[0].at, nd,
                                    sizeof tl->detailed[0]);
  bad |= keepd != nd;
  m->points = keep ? malloc (keep * sizeof *m->points) : NULL;
  m->detailed = keepd ? malloc (keepd * sizeof *m->detailed) : NULL;
  if ((keep && !m->points) || (keepd && !m->detailed))
    return HI_E_NOMEM;
  if (keep)
    memcpy (m->points, tl->points, keep * sizeof *m->points);
  m->n_points = keep;
  for (uint64_t i = 0; i < keepd; i++)
    {
      const struct hi_tdetail *d = &tl->detailed[i];
      struct hi_tdetail *o = &m->detailed[i];
      memset (o, 0, sizeof *o);
      o->at = d->at;
      uint32_t nc = d->n_chains;
      if (nc > HI_TIMELINE_TOP)
        nc = HI_TIMELINE_TOP, bad = 1;
      for (uint32_t k = 0; k < nc; k++)
        {
          uint32_t s = d->chains[k].site;
          if (s >= m->n_sites || (s > 0 && m->sites[s].depth == 0))
            {
              bad = 1;
              continue;
            }
          o->chains[o->n_chains] = d->chains[k];
          o->chains[o->n_chains].unused = 0;
          o->n_chains++;
        }
    }
  m->n_detailed = keepd;
  if (bad)
    time_damage (m);
  return HI_OK;
}

/* When the peak was reached: the first point at or after its clock, or
   the run's time if none is (the peak is after the last point). */
static void
find_peak_time (struct hi_model *m)
{
  m->peak_time_ns = m->run_ns;
  for (uint64_t i = 0; i < m->n_points; i++)
    if (m->points[i].clock >= m->root.peak_clock)
      {
        m->peak_time_ns = m->points[i].time_ns;
        return;
      }
  if (m->n_points && m->peak_time_ns < m->points[m->n_points - 1].time_ns)
    m->peak_time_ns = m->points[m->n_points - 1].time_ns;
}

hi_status
hi_model_time_load (const struct hi_target *t, struct hi_model *m)
{
  if (m->root.version < 4)
    return HI_OK;
  const struct hi_root *r = &m->root;
  uint32_t esize = hi_model_arena_entry_size (r, HI_ARENA_SITE_TIME);
  int life = (r->time_flags & HI_TIME_LIFETIMES) != 0;
  /* Readers step over the birth stamp before every header: it is the
     size format.h gives or none; a hostile value must not make them
     walk gigabytes. */
  uint32_t birth = life ? (uint32_t) sizeof (struct hi_block_birth) : 0;
  if (r->birth_size != birth)
    {
      m->root.birth_size = birth;
      time_damage (m);
    }
  if (esize == 0)
    return HI_OK;             /* the monitor could not make its time arenas */
  if (hi_model_arena_entry_size (r, HI_ARENA_THREAD_TIME) == 0
      || esize != (life ? sizeof (struct hi_site_life)
                        : sizeof (struct hi_site_time)))
    {
      time_damage (m);
      return HI_OK;
    }
  void *sites = NULL, *threads = NULL, *tl = NULL;
  uint64_t ns = 0, nt = 0, ntl = 0;
  hi_status s = hi_model_read_arena (t, m, HI_ARENA_SITE_TIME, esize, &sites,
                                     &ns);
  if (s == HI_OK)
    s = hi_model_read_arena (t, m, HI_ARENA_THREAD_TIME, 0, &threads, &nt);
  if (s == HI_OK)
    s = hi_model_read_arena (t, m, HI_ARENA_TIMELINE, 0, &tl, &ntl);
  if (s == HI_OK)
    {
      m->chain_time = calloc (m->n_sites, sizeof *m->chain_time);
      if (!m->chain_time)
        s = HI_E_NOMEM;
    }
  if (s == HI_OK)
    {
      m->has_time = 1;
      m->lifetimes = life;
      sum_shares (m, sites, ns, esize, threads, nt);
      if (ntl == 1)
        s = take_timeline (m, tl);
      else if (ntl > 1)
        time_damage (m);
      find_peak_time (m);
    }
  else if (s != HI_E_NOMEM)
    {
      /* Unreadable or inconsistent time arenas: the tables go on without
         time. */
      free (m->chain_time);
      m->chain_time = NULL;
      m->has_time = 0;
      time_damage (m);
      s = HI_OK;
    }
  free (sites);
  free (threads);
  free (tl);
  return s;
}
