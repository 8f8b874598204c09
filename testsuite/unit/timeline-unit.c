/* timeline-unit.c - unit tests of the timeline (table-timeline.c,
   emit-massif.c, emit-svg-timeline.c) on hand-built models with time
   data, for the cases a real run rarely shows: a peak the threads' lag
   left below the live figures (peak_is_live), a detailed point that is
   not among the points, time data with no point, chains summing past
   their point's bytes (massif's snapshot is raised: ms_print refuses a
   node over its snapshot), two chains sharing their innermost frame
   (one massif node), and a peak inserted between two points.
   Prints "PASS: name" or "FAIL: name: why" per check; with a directory
   argument, also writes each case's massif.out there as unit-CASE.massif
   for timeline-unit.exp to hand to ms_print. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"
#include "report/rmodel.h"
#include "unit-check.h"

static const char *outdir;

/* A model built by hand: nodes 0 and 1 are the root and the cut node. */
struct model
{
  struct hi_model m;
  struct hi_node nodes[16];
  struct hi_site sites[8];
  struct hi_chain_time times[8];
  struct hi_tpoint points[8];
  struct hi_tdetail detailed[4];
  struct hi_thread *thread;
};

static void
model_init (struct model *x)
{
  memset (x, 0, sizeof *x);
  x->m.root.version = HI_FORMAT_VERSION;
  x->m.nodes = x->nodes;
  x->m.n_nodes = 2;
  x->m.sites = x->sites;
  x->m.n_sites = 1;
  x->thread = calloc (1, sizeof *x->thread);
  if (!x->thread)
    exit (2);
  x->m.threads = x->thread;
  x->m.n_threads = 1;
  x->m.bins = x->thread->bins;
  x->m.has_time = 1;
  x->m.chain_time = x->times;
  x->m.points = x->points;
  x->m.detailed = x->detailed;
}

static uint32_t
node (struct model *x, uint32_t parent, uint64_t ret)
{
  uint32_t i = (uint32_t) x->m.n_nodes++;
  x->nodes[i] = (struct hi_node) { ret, parent, 0 };
  return i;
}

/* A site at LEAF (DEPTH frames): ALLOCS blocks of SIZE, FREES freed. */
static uint32_t
site (struct model *x, uint32_t leaf, uint32_t depth, uint64_t allocs,
      uint64_t size, uint64_t frees)
{
  uint32_t s = (uint32_t) x->m.n_sites++;
  struct hi_site *st = &x->sites[s];
  unsigned c = hi_size_class (size);
  st->node = leaf;
  st->depth = depth;
  st->allocs[c] = allocs;
  st->bytes[c] = allocs * size;
  st->frees[c] = frees;
  st->bytes_freed[c] = frees * size;
  x->nodes[leaf].site = s;
  x->thread->allocations += allocs;
  x->thread->bytes_allocated += allocs * size;
  x->thread->frees += frees;
  x->thread->bytes_freed += frees * size;
  return s;
}

static void
point (struct model *x, uint64_t t, uint64_t clock, uint64_t bytes,
       uint64_t blocks)
{
  x->points[x->m.n_points++] = (struct hi_tpoint) { t, clock, bytes, blocks };
}

static struct hi_tdetail *
detail (struct model *x, uint64_t t, uint64_t clock, uint64_t bytes,
        uint64_t blocks)
{
  struct hi_tdetail *d = &x->detailed[x->m.n_detailed++];
  memset (d, 0, sizeof *d);
  d->at = (struct hi_tpoint) { t, clock, bytes, blocks };
  return d;
}

static void
dchain (struct hi_tdetail *d, uint32_t s, uint64_t bytes, uint64_t blocks)
{
  d->chains[d->n_chains++] = (struct hi_tchain) { s, 0, bytes, blocks };
}

/* The report of X in FORMAT (-t timeline) into a new string; the massif
   one is also written to OUTDIR/unit-NAME.massif. */
static char *
report (struct model *x, enum hi_format format, const char *name)
{
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.format = format;
  opt.exact_bytes = 1;
  opt.verbosity = HI_VERBOSE;   /* every point a row */
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);
  if (!f)
    return NULL;
  hi_status s = hi_report (&x->m, NULL, "unit", "timeline", &opt, f, NULL);
  fclose (f);
  if (s != HI_OK)
    {
      free (text);
      return NULL;
    }
  if (format == HI_MASSIF && outdir && name)
    {
      char path[4096];
      snprintf (path, sizeof path, "%s/unit-%s.massif", outdir, name);
      FILE *o = fopen (path, "w");
      if (o)
        {
          fputs (text, o);
          fclose (o);
        }
    }
  return text;
}

/* The JSON timeline row N's line (the emitter writes one row a line). */
static char *
json_row (const char *json, int n)
{
  char key[64];
  snprintf (key, sizeof key, "  {\"point\": %d, ", n);
  const char *t = strstr (json ? json : "", "\"timeline\": {\"rows\": [");
  const char *p = t ? strstr (t, key) : NULL;
  if (!p)
    return strdup ("");
  const char *end = strchr (p, '\n');
  return strndup (p, end ? (size_t) (end - p) : strlen (p));
}

static int
rows (const char *json)
{
  int n = 0;
  char *r;
  while (*(r = json_row (json, n)))
    {
      free (r);
      n++;
    }
  free (r);
  return n;
}

static void
check_row (const char *json, int n, const char *want, const char *name)
{
  char *r = json_row (json, n);
  check (strcmp (r, want) == 0, name, "row %d is '%s', expected '%s'", n, r,
         want);
  free (r);
}

/* The peak's figures lag the live ones: the live ones are the peak, a row
   right before now with the same figures. */
static void
test_peak_is_live (void)
{
  struct model x;
  model_init (&x);
  uint32_t main_ = node (&x, 0, 0x1000);
  uint32_t s = site (&x, node (&x, main_, 0x2000), 2, 3, 100, 0);
  point (&x, 10, 100, 100, 1);
  point (&x, 20, 200, 200, 2);
  x.m.root.totals.peak_bytes = 200;
  x.m.root.peak_clock = 200;
  x.m.root.alloc_clock = 300;
  x.m.peak_is_live = 1;
  x.m.run_ns = 30;
  x.m.peak_time_ns = 30;
  x.times[s].peak_bytes = 300;
  x.times[s].peak_blocks = 3;
  char *json = report (&x, HI_JSON, NULL);
  check (rows (json) == 4, "peak is live: points, the peak and now",
         "%d rows", rows (json));
  check_row (json, 2, "  {\"point\": 2, \"time_ns\": 30, \"clock\": 300, "
             "\"alloc_free\": 300, \"live_bytes\": 300, \"live_blocks\": 3, "
             "\"kind\": \"peak\"},",
             "peak is live: the peak is the live figures at the end");
  check_row (json, 3, "  {\"point\": 3, \"time_ns\": 30, \"clock\": 300, "
             "\"alloc_free\": 300, \"live_bytes\": 300, \"live_blocks\": 3, "
             "\"kind\": \"now\"}",
             "peak is live: now is last");
  free (json);
  char *massif = report (&x, HI_MASSIF, "peak-is-live");
  check (massif && strstr (massif, "time=300\nmem_heap_B=300\n"
                                   "mem_heap_extra_B=0\nmem_stacks_B=0\n"
                                   "heap_tree=peak\nn1: 300 "),
         "peak is live: massif's peak", "%s", massif ? massif : "(none)");
  free (massif);
  free (x.thread);
}

/* A detailed point whose plain point was thinned away goes between the
   points around it; the peak between two points is inserted, its time
   that of the point after it. */
static void
test_detailed_between (void)
{
  struct model x;
  model_init (&x);
  uint32_t main_ = node (&x, 0, 0x1000);
  uint32_t a = site (&x, node (&x, main_, 0x2000), 2, 4, 100, 2);
  point (&x, 10, 100, 100, 1);
  point (&x, 40, 400, 200, 2);
  struct hi_tdetail *d = detail (&x, 20, 200, 200, 2);
  dchain (d, a, 200, 2);
  x.m.root.totals.peak_bytes = 300;
  x.m.root.peak_clock = 300;
  x.m.root.alloc_clock = 400;
  x.m.peak_time_ns = 40;
  x.m.run_ns = 50;
  x.times[a].peak_bytes = 300;
  x.times[a].peak_blocks = 3;
  char *json = report (&x, HI_JSON, NULL);
  check (rows (json) == 5, "detailed between: the rows", "%d rows",
         rows (json));
  check_row (json, 1, "  {\"point\": 1, \"time_ns\": 20, \"clock\": 200, "
             "\"alloc_free\": 200, \"live_bytes\": 200, \"live_blocks\": 2, "
             "\"kind\": \"detailed\"},", "detailed between: the detailed point in order");
  check_row (json, 2, "  {\"point\": 2, \"time_ns\": 40, \"clock\": 300, "
             "\"alloc_free\": 300, \"live_bytes\": 300, \"live_blocks\": 3, "
             "\"kind\": \"peak\"},",
             "detailed between: the peak inserted at its clock");
  /* Now: 200 of the 400 bytes allocated were freed, so 600 bytes
     allocated and freed (the time axis). */
  check_row (json, 4, "  {\"point\": 4, \"time_ns\": 50, \"clock\": 400, "
             "\"alloc_free\": 600, \"live_bytes\": 200, \"live_blocks\": 2, "
             "\"kind\": \"now\"}",
             "detailed between: now from the live totals");
  free (json);
  char *massif = report (&x, HI_MASSIF, "detailed-between");
  check (massif && strstr (massif, "snapshot=0\n#-----------\ntime=0\n")
         && strstr (massif, "snapshot=3\n#-----------\ntime=300\n"
                            "mem_heap_B=300\n")
         && strstr (massif, "heap_tree=peak\nn1: 300 (heap allocation "
                            "functions)"),
         "detailed between: massif's snapshots", "%s",
         massif ? massif : "(none)");
  free (massif);
  char *text = report (&x, HI_TEXT, NULL);
  check (text && strstr (text, "300 ^") && strstr (text, "> bytes allocated"),
         "detailed between: the chart", "%s", text ? text : "(none)");
  free (text);
  free (x.thread);
}

/* Time data without a point: the peak and now alone. */
static void
test_no_points (void)
{
  struct model x;
  model_init (&x);
  uint32_t main_ = node (&x, 0, 0x1000);
  uint32_t a = site (&x, node (&x, main_, 0x2000), 2, 1, 64, 0);
  x.m.root.totals.peak_bytes = 64;
  x.m.root.peak_clock = 64;
  x.m.root.alloc_clock = 64;
  x.m.run_ns = 5;
  x.m.peak_time_ns = 5;
  x.times[a].peak_bytes = 64;
  x.times[a].peak_blocks = 1;
  char *json = report (&x, HI_JSON, NULL);
  check (rows (json) == 2, "no points: the peak and now", "%d rows",
         rows (json));
  free (json);
  char *massif = report (&x, HI_MASSIF, "no-points");
  check (massif && strstr (massif, "heap_tree=empty")
         && strstr (massif, "heap_tree=peak"), "no points: massif",
         "%s", massif ? massif : "(none)");
  free (massif);
  char *svg = report (&x, HI_SVG, NULL);
  check (svg && strstr (svg, "data-kind=\"peak\"")
         && strstr (svg, "data-kind=\"now\""), "no points: the SVG",
         "%s", svg ? svg : "(none)");
  free (svg);
  free (x.thread);
}

/* Chains past their point's bytes raise massif's snapshot; two chains
   whose innermost frame is one call site are one node. */
static void
test_massif_tree (void)
{
  struct model x;
  model_init (&x);
  uint32_t main_ = node (&x, 0, 0x1000);
  uint32_t f = node (&x, main_, 0x2000), h = node (&x, main_, 0x4000);
  uint32_t a = site (&x, node (&x, f, 0x3000), 3, 1, 100, 0);
  uint32_t b = site (&x, node (&x, h, 0x3000), 3, 1, 100, 0);
  point (&x, 10, 100, 100, 1);
  struct hi_tdetail *d = detail (&x, 20, 200, 150, 2);
  dchain (d, a, 100, 1);
  dchain (d, b, 100, 1);
  x.m.root.totals.peak_bytes = 200;
  x.m.root.peak_clock = 200;
  x.m.root.alloc_clock = 200;
  x.m.peak_time_ns = 20;
  x.m.run_ns = 30;
  x.times[a].peak_bytes = 100;
  x.times[a].peak_blocks = 1;
  x.times[b].peak_bytes = 100;
  x.times[b].peak_blocks = 1;
  char *massif = report (&x, HI_MASSIF, "tree");
  /* Its time: 200 allocated, 50 of them freed. */
  check (massif && strstr (massif, "time=250\nmem_heap_B=200\n"
                                   "mem_heap_extra_B=0\nmem_stacks_B=0\n"
                                   "heap_tree=detailed\nn1: 200 "),
         "massif tree: chains past the point's bytes raise the snapshot",
         "%s", massif ? massif : "(none)");
  /* Nodes show the call, the return address - 1, as massif does. */
  check (massif && strstr (massif, "\n n2: 200 0x2FFF: ")
         && strstr (massif, "\n  n1: 100 0x1FFF: ")
         && strstr (massif, "\n  n1: 100 0x3FFF: ")
         && strstr (massif, "\n   n0: 100 0xFFF: "),
         "massif tree: one node for the shared innermost call site", "%s",
         massif ? massif : "(none)");
  free (massif);
  free (x.thread);
}

int
main (int argc, char **argv)
{
  outdir = argc > 1 ? argv[1] : NULL;
  test_peak_is_live ();
  test_detailed_between ();
  test_no_points ();
  test_massif_tree ();
  return failed;
}
