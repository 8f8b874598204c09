/* time-unit.c - unit tests of the reader's time data (format 4,
   reader/model/model-time.c) on process images built by hand: the peak-share
   rule (a record changed since the peak gives its copy, one that did not
   its live figures), the sums over a chain's records, temporaries, the
   lifetimes of HI_TIME_LIFETIMES, the timeline kept while time and clock
   never go back, detailed chains out of range left out, when the peak
   was, and what is damage.  Prints "PASS: name" or "FAIL: name: why";
   exit status 1 if any failed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hi-reader.h"
#include "model/model.h"
#include "unit-check.h"

#define ROOT_AT     0x100000u
#define NODES_AT    0x200000u
#define SITES_AT    0x300000u
#define THREADS_AT  0x400000u
#define STIME_AT    0x500000u
#define TTIME_AT    0x600000u
#define TL_AT       0x700000u

/* Sites 1 and 2: chains main > f (node 2) and main > g (node 3). */
struct image
{
  struct hi_root root;
  uint32_t root_bytes;
  struct hi_node nodes[4];
  struct hi_site sites[3];
  struct hi_thread thread;
  struct hi_site_life stime[3];   /* as hi_site_time: the first 48 bytes */
  uint32_t stime_size;            /* entry size in memory */
  struct hi_thread_time ttime;
  struct hi_timeline tl;
};

static struct image im;

static int
image_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct image *m = ctx;
  static char stime[3 * sizeof (struct hi_site_life)];
  for (int i = 0; i < 3; i++)
    memcpy (stime + i * m->stime_size, &m->stime[i], m->stime_size);
  const struct { uint64_t at; const void *p; size_t n; } r[] = {
    { ROOT_AT, &m->root, m->root_bytes },
    { NODES_AT, m->nodes, sizeof m->nodes },
    { SITES_AT, m->sites, sizeof m->sites },
    { THREADS_AT, &m->thread, sizeof m->thread },
    { STIME_AT, stime, 3 * m->stime_size },
    { TTIME_AT, &m->ttime, sizeof m->ttime },
    { TL_AT, &m->tl, sizeof m->tl },
  };
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (addr >= r[i].at && addr - r[i].at <= r[i].n
        && len <= r[i].n - (addr - r[i].at))
      {
        memcpy (buf, (const char *) r[i].p + (addr - r[i].at), len);
        return 0;
      }
  return -1;
}

static int
image_symbol (void *ctx, const char *name, uint64_t *addr)
{
  (void) ctx;
  if (strcmp (name, "heapinspect_root") != 0)
    return -1;
  *addr = ROOT_AT;
  return 0;
}

static const struct hi_target_ops image_ops = {
  image_read, image_symbol, NULL, NULL, NULL, NULL, NULL
};

static struct hi_arena_desc *
desc (struct hi_root *r, uint32_t i)
{
  return i < HI_MAX_ARENAS ? &r->arenas[i] : &r->more_arenas[i - HI_MAX_ARENAS];
}

static void
arena (struct hi_root *r, uint64_t addr, uint64_t count, uint32_t kind,
       uint32_t size)
{
  *desc (r, r->n_arenas++) = (struct hi_arena_desc) { addr, count, count,
                                                      kind, size };
}

/* Site S: N blocks of SIZE bytes allocated, F of them freed (shared
   counters, size class of SIZE). */
static void
site (uint32_t s, uint32_t node, uint64_t n, uint64_t f, uint64_t size)
{
  unsigned c = hi_size_class (size);
  im.sites[s].node = node;
  im.sites[s].depth = 1;
  im.sites[s].allocs[c] = n;
  im.sites[s].frees[c] = f;
  im.sites[s].bytes[c] = n * size;
  im.sites[s].bytes_freed[c] = f * size;
  im.nodes[node].parent = HI_NODE_ROOT;
  im.nodes[node].ret = 0x1000 + node;
  im.nodes[node].site = s;
}

/* A whole image of format 4, the time arenas in more_arenas:
   - site 1: 10 blocks of 100 B, 4 freed (6 live, 600 B); its shared
     share changed since the peak (gen 7): at the peak it had 9 blocks;
   - site 2: 5 blocks of 40 B, none freed, counted by thread 0's record
     (site 2 in sites[3]); that share has not changed since the peak;
   - 3 timeline points, the peak at clock 1200. */
static void
image_v4 (void)
{
  memset (&im, 0, sizeof im);
  struct hi_root *r = &im.root;
  r->magic = HI_ROOT_MAGIC;
  r->version = HI_FORMAT_VERSION;
  r->root_size = sizeof *r;
  r->pointer_size = sizeof (void *);
  r->byte_order = HI_ORDER_LITTLE;
  r->max_depth = 64;
  r->pid = 42;
  r->ready = 1;
  im.root_bytes = sizeof *r;
  for (int i = 0; i < 5; i++)   /* filler slots, then the time arenas */
    arena (r, 0, 0, HI_ARENA_MODULES, sizeof (struct hi_module));
  arena (r, NODES_AT, 4, HI_ARENA_NODES, sizeof (struct hi_node));
  arena (r, SITES_AT, 3, HI_ARENA_SITES, sizeof (struct hi_site));
  arena (r, THREADS_AT, 1, HI_ARENA_THREADS, sizeof (struct hi_thread));
  arena (r, STIME_AT, 3, HI_ARENA_SITE_TIME, sizeof (struct hi_site_time));
  arena (r, TTIME_AT, 1, HI_ARENA_THREAD_TIME, sizeof (struct hi_thread_time));
  arena (r, TL_AT, 1, HI_ARENA_TIMELINE, sizeof (struct hi_timeline));
  im.stime_size = sizeof (struct hi_site_time);
  im.nodes[HI_NODE_CUT].parent = HI_NODE_ROOT;
  site (1, 2, 10, 4, 100);
  site (2, 3, 0, 0, 40);
  /* Site 2's counters are all in thread 0's record, in sites[3]. */
  im.thread.allocations = 15;
  im.thread.frees = 4;
  im.thread.bytes_allocated = 1200;
  im.thread.bytes_freed = 400;
  im.thread.sites[3].site = 2;
  im.thread.sites[3].allocs[hi_size_class (40)] = 5;
  im.thread.sites[3].bytes[hi_size_class (40)] = 200;
  r->totals.peak_bytes = 1100;
  r->totals.peak_blocks = 14;
  r->totals.live_bytes = 800;
  r->totals.live_blocks = 11;
  r->peak_gen = 7;
  r->peak_clock = 1200;
  r->alloc_clock = 1200;
  /* Site 1's share changed after the peak: its copy is the peak's. */
  struct hi_peak_share *s1 = &im.stime[1].share;
  s1->live_bytes = 600, s1->live_blocks = 6;
  s1->peak_bytes = 900, s1->peak_blocks = 9, s1->peak_gen = 7;
  s1->temporaries = 3;
  /* Thread 0's share of site 2 did not: its live figures are the peak's
     (its copy is stale). */
  struct hi_peak_share *t2 = &im.ttime.sites[3];
  t2->live_bytes = 200, t2->live_blocks = 5;
  t2->peak_bytes = 80, t2->peak_blocks = 2, t2->peak_gen = 6;
  t2->temporaries = 0;
  im.tl.n_points = 3;
  const struct hi_tpoint pts[3] = {
    { 1000, 100, 100, 1 }, { 2000, 1200, 1100, 14 }, { 3000, 1200, 800, 11 },
  };
  memcpy (im.tl.points, pts, sizeof pts);
  im.tl.n_detailed = 1;
  im.tl.detailed[0].at = pts[1];
  im.tl.detailed[0].n_chains = 2;
  im.tl.detailed[0].chains[0] = (struct hi_tchain) { 1, 0, 900, 9 };
  im.tl.detailed[0].chains[1] = (struct hi_tchain) { 2, 0, 200, 5 };
}

static hi_status
load (struct hi_model **out)
{
  struct hi_target t = { &image_ops, &im, 0 };
  *out = NULL;
  return hi_model_load (&t, out);
}

static void
test_whole (void)
{
  struct hi_model *m;
  image_v4 ();
  hi_status s = load (&m);
  if (s != HI_OK)
    {
      check (0, "time: a whole format-4 image loads", "%s", hi_strerror (s));
      return;
    }
  check (m->has_time && !m->lifetimes && m->damaged == 0,
         "time: a whole format-4 image has time and no damage",
         "has_time %d lifetimes %d damaged %" PRIu64, m->has_time,
         m->lifetimes, m->damaged);
  check (m->chain_time[1].peak_bytes == 900
         && m->chain_time[1].peak_blocks == 9,
         "time: a record changed since the peak gives its copy",
         "%" PRIu64 " B %" PRIu64 " blocks", m->chain_time[1].peak_bytes,
         m->chain_time[1].peak_blocks);
  check (m->chain_time[2].peak_bytes == 200
         && m->chain_time[2].peak_blocks == 5,
         "time: a record unchanged since the peak gives its live figures",
         "%" PRIu64 " B %" PRIu64 " blocks", m->chain_time[2].peak_bytes,
         m->chain_time[2].peak_blocks);
  check (m->chain_time[1].peak_bytes + m->chain_time[2].peak_bytes
         == m->root.totals.peak_bytes,
         "time: the chains at the peak sum to the peak", "%" PRIu64,
         m->root.totals.peak_bytes);
  check (m->chain_time[1].temporaries == 3 && m->chain_time[2].temporaries == 0,
         "time: temporaries per chain", "%" PRIu64 " %" PRIu64,
         m->chain_time[1].temporaries, m->chain_time[2].temporaries);
  check (m->n_points == 3 && m->points[2].live_bytes == 800,
         "time: the timeline's points", "%" PRIu64, m->n_points);
  check (m->n_detailed == 1 && m->detailed[0].n_chains == 2
         && m->detailed[0].chains[0].site == 1,
         "time: the detailed point and its chains", "%" PRIu64,
         m->n_detailed);
  check (m->peak_time_ns == 2000, "time: the peak's time is its point's",
         "%" PRIu64, m->peak_time_ns);
  hi_model_free (m);
}

/* Load the image as changed by the caller; check has_time, the damage
   and one figure. */
static void
expect (const char *name, int has_time, uint64_t damage)
{
  struct hi_model *m;
  hi_status s = load (&m);
  if (s != HI_OK)
    {
      check (0, name, "load: %s", hi_strerror (s));
      return;
    }
  check (m->has_time == has_time && m->damage.time == damage
         && m->damaged == damage, name,
         "has_time %d damage.time %" PRIu64 " damaged %" PRIu64,
         m->has_time, m->damage.time, m->damaged);
  hi_model_free (m);
}

static void
test_damage (void)
{
  struct hi_model *m;

  image_v4 ();
  im.root.n_arenas = 8;          /* the time arenas not listed */
  expect ("time: no time arenas: no time, no damage", 0, 0);

  /* Threads' batches: the flushed peak lags the chains' moment. */
  image_v4 ();
  im.root.totals.peak_bytes = 1000;
  im.root.totals.peak_blocks = 12;
  expect ("time: a peak below its chains' sum is no damage", 1, 0);
  if (load (&m) == HI_OK)
    {
      check (m->root.totals.peak_bytes == 1100
             && m->root.totals.peak_blocks == 14
             && m->peak_chain_blocks == 14,
             "time: a peak below its chains' sum is raised to it",
             "%" PRIu64 " B %" PRIu64 " blocks, chains %" PRIu64,
             m->root.totals.peak_bytes, m->root.totals.peak_blocks,
             m->peak_chain_blocks);
      hi_model_free (m);
    }
  image_v4 ();
  im.root.totals.peak_blocks = 40;   /* most blocks: another moment */
  if (load (&m) == HI_OK)
    {
      check (m->root.totals.peak_blocks == 40 && m->peak_chain_blocks == 14,
             "time: blocks at the peak of bytes apart from the most blocks",
             "%" PRIu64 " / %" PRIu64, m->root.totals.peak_blocks,
             m->peak_chain_blocks);
      hi_model_free (m);
    }

  image_v4 ();
  im.tl.points[2].clock = 50;    /* the clock goes back */
  expect ("time: a point whose clock goes back is damage", 1, 1);
  if (load (&m) == HI_OK)
    {
      check (m->n_points == 2, "time: points up to the one going back kept",
             "%" PRIu64, m->n_points);
      hi_model_free (m);
    }

  image_v4 ();
  im.tl.points[1].time_ns = 5000;  /* time goes back at the third */
  expect ("time: a point whose time goes back is damage", 1, 1);

  image_v4 ();
  im.tl.n_points = HI_TIMELINE_POINTS + 1;
  expect ("time: more points than there is room for is damage", 1, 1);

  image_v4 ();
  im.tl.detailed[0].chains[1].site = 99;
  expect ("time: a detailed chain naming no site is damage", 1, 1);
  if (load (&m) == HI_OK)
    {
      check (m->detailed[0].n_chains == 1,
             "time: a detailed chain naming no site is left out", "%" PRIu32,
             m->detailed[0].n_chains);
      hi_model_free (m);
    }

  image_v4 ();
  im.stime[1].share.peak_bytes = 5000;  /* more than site 1 ever had */
  expect ("time: a chain at the peak above its allocations is damage", 1, 1);
  if (load (&m) == HI_OK)
    {
      check (m->chain_time[1].peak_bytes == 1000,
             "time: ... and clamped to its allocations", "%" PRIu64,
             m->chain_time[1].peak_bytes);
      hi_model_free (m);
    }

  image_v4 ();
  im.stime[1].share.peak_bytes = (uint64_t) -100;  /* a race: below 0 */
  expect ("time: a chain at the peak below zero is 0, not damage", 1, 0);

  image_v4 ();
  im.stime[1].share.temporaries = 5;    /* only 4 frees */
  expect ("time: more temporaries than frees is damage", 1, 1);

  image_v4 ();
  im.root.time_flags = HI_TIME_LIFETIMES;  /* entries too small for it */
  im.root.birth_size = sizeof (struct hi_block_birth);
  expect ("time: lifetimes with short entries: no time, damage", 0, 1);

  /* Readers step over birth_size bytes before every header: a hostile
     one is damage, and set to what the flags say. */
  image_v4 ();
  im.root.birth_size = UINT32_C(0xfffffff0);
  expect ("time: a birth size other than format.h's: damage", 1, 1);
  if (load (&m) == HI_OK)
    {
      check (m->root.birth_size == 0,
             "time: a hostile birth size is set to the flags' (0)",
             "%" PRIu32, m->root.birth_size);
      hi_model_free (m);
    }

  image_v4 ();
  desc (&im.root, 9)->entry_size = 8;     /* the thread-time arena */
  expect ("time: a thread-time arena of the wrong entry size: damage", 0, 1);

  image_v4 ();
  im.root.n_arenas = HI_MAX_ARENAS + HI_MAX_MORE_ARENAS + 1;
  check (load (&m) == HI_E_CORRUPT,
         "time: more arenas than both lists hold is a damaged root", "%s",
         "loaded");
  hi_model_free (m);

  /* Version 3: a root of HI_ROOT_SIZE_V3, no time, nothing wrong. */
  image_v4 ();
  im.root.version = 3;
  im.root.root_size = HI_ROOT_SIZE_V3;
  im.root_bytes = HI_ROOT_SIZE_V3;
  im.root.n_arenas = 8;
  expect ("time: version 3: read, no time, no damage", 0, 0);
}

static void
test_lifetimes (void)
{
  struct hi_model *m;
  image_v4 ();
  im.root.time_flags = HI_TIME_LIFETIMES;
  im.root.birth_size = sizeof (struct hi_block_birth);
  im.stime_size = sizeof (struct hi_site_life);
  desc (&im.root, 8)->entry_size = sizeof (struct hi_site_life);
  struct hi_site_life *l = &im.stime[1];
  l->life[0] = 1;
  l->life[hi_life_bucket (1000)] = 3;
  l->freed = 4;
  l->freed_ns = 4000;
  l->live = 6;
  l->live_clock_sum = 6 * 500;
  l->live_ns_sum = 6 * 100;
  if (load (&m) != HI_OK)
    {
      check (0, "time: lifetimes load", "no");
      return;
    }
  const struct hi_chain_time *c = &m->chain_time[1];
  check (m->lifetimes && m->damaged == 0 && c->life[0] == 1
         && c->life[10] == 3 && c->freed == 4 && c->freed_ns == 4000
         && c->live == 6 && c->live_clock_sum == 3000,
         "time: lifetimes per chain", "lifetimes %d damaged %" PRIu64
         " buckets %" PRIu64 " %" PRIu64, m->lifetimes, m->damaged,
         c->life[0], c->life[10]);
  hi_model_free (m);

  check (hi_life_bucket (0) == 0 && hi_life_bucket (1) == 1
         && hi_life_bucket (2) == 2 && hi_life_bucket (3) == 2
         && hi_life_bucket (1000) == 10 && hi_life_bucket (1024) == 11
         && hi_life_bucket (UINT64_MAX) == HI_LIFE_BUCKETS - 1,
         "time: lifetime buckets are log2", "%u %u", hi_life_bucket (1000),
         hi_life_bucket (1024));

  l->freed = 5;                   /* the buckets hold 4 */
  expect ("time: lifetime buckets that do not sum to the frees: damage",
          1, 1);

  /* A running process's records drift from its counters (site 1: 10
     allocations, 4 frees): within the drift, no damage, live clamped. */
  l->life[0] = 3;
  l->freed = 6;
  l->live = 8;
  if (load (&m) == HI_OK)
    {
      c = &m->chain_time[1];
      check (m->damaged == 0 && c->freed == 6 && c->live == 6,
             "time: lifetimes drifting from the counters: no damage",
             "damaged %" PRIu64 " freed %" PRIu64 " live %" PRIu64,
             m->damaged, c->freed, c->live);
      hi_model_free (m);
    }
  l->live = 6 + 10000;            /* far beyond any drift */
  expect ("time: lifetimes far beyond the counters: damage", 1, 1);
}

int
main (void)
{
  test_whole ();
  test_damage ();
  test_lifetimes ();
  return failed;
}
