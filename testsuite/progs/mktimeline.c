/* mktimeline.c - writes a synthetic format-4 snapshot with time data, as
   the monitor would record a program of three phases, for the timeline's
   tests (timeline.exp) before and besides a real run: phase A allocates
   and frees A_N blocks of A_SIZE bytes one by one, phase B allocates B_N
   of B_SIZE (the peak), then frees half of them, phase C allocates C_N of
   C_SIZE.  Points are taken as format.h says (every INTERVAL bytes of the
   clock, every allocation at first; when full, every other one goes and
   the interval doubles; every 10th point also detailed).

   usage: mktimeline OUT [A_N A_SIZE B_N B_SIZE C_N C_SIZE]
   Prints what it recorded as "key: value" lines for the test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapinspect/format.h"

#define ROOT_ADDR     UINT64_C(0x10000)
#define NODES_ADDR    UINT64_C(0x100000)
#define SITES_ADDR    UINT64_C(0x200000)
#define THREAD_ADDR   UINT64_C(0x300000)
#define SITETIME_ADDR UINT64_C(0x400000)
#define THRTIME_ADDR  UINT64_C(0x500000)
#define TL_ADDR       UINT64_C(0x600000)

#define N_NODES 6
#define N_SITES 4

static struct hi_root root;
static struct hi_node nodes[N_NODES];
static struct hi_site sites[N_SITES];
static struct hi_thread thread;
static struct hi_site_time site_time[N_SITES];
static struct hi_thread_time thread_time;
static struct hi_timeline tl;

static uint64_t clock_, now_ns, live_bytes, live_blocks;
static uint64_t site_bytes[N_SITES], site_blocks[N_SITES];

static void
take_point (void)
{
  if (clock_ < tl.next_clock)
    return;
  struct hi_tpoint p = { now_ns, clock_, live_bytes, live_blocks };
  if (tl.n_points == HI_TIMELINE_POINTS)
    {
      for (uint32_t i = 0; i < HI_TIMELINE_POINTS / 2; i++)
        tl.points[i] = tl.points[2 * i];
      tl.n_points = HI_TIMELINE_POINTS / 2;
      tl.interval *= 2;
    }
  tl.points[tl.n_points++] = p;
  if (tl.points_taken++ % HI_TIMELINE_DETAIL_EVERY == 0)
    {
      if (tl.n_detailed == HI_TIMELINE_DETAILED)
        {
          for (uint32_t i = 0; i < HI_TIMELINE_DETAILED / 2; i++)
            tl.detailed[i] = tl.detailed[2 * i];
          tl.n_detailed = HI_TIMELINE_DETAILED / 2;
        }
      struct hi_tdetail *d = &tl.detailed[tl.n_detailed++];
      memset (d, 0, sizeof *d);
      d->at = p;
      /* The chains, most live bytes first (three at most here). */
      for (uint32_t s = 1; s < N_SITES; s++)
        if (site_bytes[s])
          {
            uint32_t k = d->n_chains++;
            while (k > 0 && d->chains[k - 1].live_bytes < site_bytes[s])
              {
                d->chains[k] = d->chains[k - 1];
                k--;
              }
            d->chains[k] = (struct hi_tchain) { s, 0, site_bytes[s],
                                                site_blocks[s] };
          }
    }
  tl.next_clock = clock_ + tl.interval;
}

static void
alloc (uint32_t s, uint64_t size)
{
  unsigned c = hi_size_class (size);
  sites[s].allocs[c]++;
  sites[s].bytes[c] += size;
  thread.allocations++;
  thread.bytes_allocated += size;
  thread.calls[HI_CALL_malloc]++;
  thread.bins[hi_bin_of (size)].allocs++;
  thread.bins[hi_bin_of (size)].bytes += size;
  clock_ += size;
  now_ns += 1000;
  live_bytes += size;
  live_blocks++;
  site_bytes[s] += size;
  site_blocks[s]++;
  if (live_blocks > root.totals.peak_blocks)
    root.totals.peak_blocks = live_blocks;
  if (live_bytes > root.totals.peak_bytes)
    {
      root.totals.peak_bytes = live_bytes;
      root.peak_gen++;
      root.peak_clock = clock_;
      for (uint32_t k = 0; k < N_SITES; k++)
        {
          site_time[k].share.peak_bytes = site_bytes[k];
          site_time[k].share.peak_blocks = site_blocks[k];
          site_time[k].share.peak_gen = root.peak_gen;
        }
    }
  take_point ();
}

static void
release (uint32_t s, uint64_t size)
{
  unsigned c = hi_size_class (size);
  sites[s].frees[c]++;
  sites[s].bytes_freed[c] += size;
  thread.frees++;
  thread.bytes_freed += size;
  thread.calls[HI_CALL_free]++;
  thread.bins[hi_bin_of (size)].frees++;
  thread.bins[hi_bin_of (size)].bytes_freed += size;
  now_ns += 1000;
  live_bytes -= size;
  live_blocks--;
  site_bytes[s] -= size;
  site_blocks[s]--;
}

static void
arena (int i, uint64_t addr, uint64_t count, uint32_t kind, uint32_t size)
{
  root.arenas[i] = (struct hi_arena_desc) { addr, count, count, kind, size };
}

int
main (int argc, char **argv)
{
  if (argc != 2 && argc != 8)
    {
      fputs ("usage: mktimeline OUT [A_N A_SIZE B_N B_SIZE C_N C_SIZE]\n",
             stderr);
      return 2;
    }
  uint64_t a_n = 1000, a_size = 100, b_n = 500, b_size = 2000, c_n = 300,
           c_size = 50;
  if (argc == 8)
    {
      a_n = strtoull (argv[2], NULL, 0), a_size = strtoull (argv[3], NULL, 0);
      b_n = strtoull (argv[4], NULL, 0), b_size = strtoull (argv[5], NULL, 0);
      c_n = strtoull (argv[6], NULL, 0), c_size = strtoull (argv[7], NULL, 0);
    }
  /* main (0x1000) calls phase_a (0x2000), phase_b (0x3000), phase_c
     (0x4000); sites 1, 2, 3. */
  nodes[2] = (struct hi_node) { 0x1000, 0, 0 };
  for (uint32_t s = 1; s < N_SITES; s++)
    {
      nodes[s + 2] = (struct hi_node) { 0x1000 + 0x1000 * s, 2, s };
      sites[s].node = s + 2;
      sites[s].depth = 2;
    }
  thread.tid = 4242;
  tl.interval = 1;
  for (uint64_t i = 0; i < a_n; i++)
    {
      alloc (1, a_size);
      release (1, a_size);
    }
  for (uint64_t i = 0; i < b_n; i++)
    alloc (2, b_size);
  for (uint64_t i = 0; i < b_n / 2; i++)
    release (2, b_size);
  for (uint64_t i = 0; i < c_n; i++)
    alloc (3, c_size);
  for (uint32_t k = 0; k < N_SITES; k++)
    {
      site_time[k].share.live_bytes = site_bytes[k];
      site_time[k].share.live_blocks = site_blocks[k];
    }
  root.magic = HI_ROOT_MAGIC;
  root.version = HI_FORMAT_VERSION;
  root.root_size = sizeof root;
  root.pointer_size = sizeof (void *);
  root.byte_order = HI_ORDER_LITTLE;
  root.max_depth = 64;
  root.pid = 4242;
  root.ready = 1;
  root.n_arenas = 6;
  root.alloc_clock = clock_;
  root.totals.live_bytes = live_bytes;
  root.totals.live_blocks = live_blocks;
  arena (0, NODES_ADDR, N_NODES, HI_ARENA_NODES, sizeof *nodes);
  arena (1, SITES_ADDR, N_SITES, HI_ARENA_SITES, sizeof *sites);
  arena (2, THREAD_ADDR, 1, HI_ARENA_THREADS, sizeof thread);
  arena (3, SITETIME_ADDR, N_SITES, HI_ARENA_SITE_TIME, sizeof *site_time);
  arena (4, THRTIME_ADDR, 1, HI_ARENA_THREAD_TIME, sizeof thread_time);
  arena (5, TL_ADDR, 1, HI_ARENA_TIMELINE, sizeof tl);

  struct { uint64_t addr, size; const void *data; } r[] = {
    { ROOT_ADDR, sizeof root, &root },
    { NODES_ADDR, sizeof nodes, nodes },
    { SITES_ADDR, sizeof sites, sites },
    { THREAD_ADDR, sizeof thread, &thread },
    { SITETIME_ADDR, sizeof site_time, site_time },
    { THRTIME_ADDR, sizeof thread_time, &thread_time },
    { TL_ADDR, sizeof tl, &tl },
  };
  uint32_t n = sizeof r / sizeof r[0];
  struct hi_snap_header h = { HI_SNAP_MAGIC, HI_FORMAT_VERSION, n, ROOT_ADDR,
                              4242 };
  FILE *f = fopen (argv[1], "wb");
  if (!f)
    return 1;
  fwrite (&h, sizeof h, 1, f);
  uint64_t off = sizeof h + n * sizeof (struct hi_snap_region);
  for (uint32_t i = 0; i < n; i++)
    {
      struct hi_snap_region reg = { r[i].addr, r[i].size, off };
      fwrite (&reg, sizeof reg, 1, f);
      off += r[i].size;
    }
  for (uint32_t i = 0; i < n; i++)
    fwrite (r[i].data, 1, r[i].size, f);
  if (fclose (f) != 0)
    return 1;
  printf ("phase A: %llu x %llu bytes, each freed\n", (unsigned long long) a_n,
          (unsigned long long) a_size);
  printf ("phase B: %llu x %llu bytes, %llu freed\n", (unsigned long long) b_n,
          (unsigned long long) b_size, (unsigned long long) (b_n / 2));
  printf ("phase C: %llu x %llu bytes\n", (unsigned long long) c_n,
          (unsigned long long) c_size);
  printf ("points: %u\ndetailed: %u\n", tl.n_points, tl.n_detailed);
  return 0;
}
