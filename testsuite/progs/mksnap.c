/* mksnap.c - writes a small synthetic snapshot with known contents, whole
   or with one named kind of damage, for the reader's damaged-input tests
   (reader-damage.exp computes every expected figure from the values here).

   usage: mksnap OUT MUTATION [ARG]
   The process it describes: four call pairs under the root,
     node 2 ret 0x1000 (parent 0)   node 3 ret 0x2000 (parent 2)
     node 4 ret 0x3000 (parent 3)   node 5 ret 0x4000 (parent 2)
   and three sites:
     site 1: node 4, depth 3: 10 small allocations, 100 bytes, 4 frees, 40 bytes
     site 2: node 5, depth 2: 5 medium allocations, 500 bytes, none freed
     site 3: node 3, depth 2: 1 huge allocation, 4000 bytes, freed
   one thread (16 allocations, 5 frees, 4600 bytes, 4040 freed), peak 560
   bytes in 11 blocks, and no module unless MUTATION is `module`.
   MUTATION types-*: the client API's types too (HI_ARENA_TYPES): type 1
   "struct thing" (sizeof 10) with pairs for site 1 (bin 10, site 1's
   figures) and site 2 (bin 100, site 2's), whole or damaged.
   MUTATION claims: the arenas claim 2^40 entries (the file holds the
   same as `good`); region-*: the region table is hostile (regions 1 to
   4: root, nodes, sites, thread): region-file (3 shares 2's bytes of
   the file), region-memory (3 starts inside 2 in memory), region-table
   (1's bytes start inside the table), region-end (4 ends 100 bytes
   past the end of the file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapinspect/format.h"

#define ROOT_ADDR    UINT64_C(0x10000)
#define NODES_ADDR   UINT64_C(0x100000)
#define SITES_ADDR   UINT64_C(0x4000000)
#define THREAD_ADDR  UINT64_C(0x8000000)
#define MODULE_ADDR  UINT64_C(0x9000000)
#define TYPES_ADDR   UINT64_C(0xa000000)

static struct hi_root root;
static struct hi_node *nodes;
static uint32_t n_nodes = 6;
static struct hi_site *sites;
static uint32_t n_sites = 4;
static struct hi_thread thread;
static struct hi_module module;
static int with_module;
static struct hi_type_rec types[4];
static int with_types;
static const char *region_mutation = "";

static void
arena (int i, uint64_t addr, uint64_t count, uint32_t kind, uint32_t size)
{
  root.arenas[i] = (struct hi_arena_desc) { addr, count, count, kind, size };
}

static void
build (void)
{
  nodes = calloc (n_nodes, sizeof *nodes);
  sites = calloc (n_sites, sizeof *sites);
  if (!nodes || !sites)
    exit (2);
  nodes[2] = (struct hi_node) { 0x1000, 0, 0 };
  nodes[3] = (struct hi_node) { 0x2000, 2, 3 };
  nodes[4] = (struct hi_node) { 0x3000, 3, 1 };
  nodes[5] = (struct hi_node) { 0x4000, 2, 2 };
  sites[1].node = 4, sites[1].depth = 3;
  sites[1].allocs[HI_SC_S] = 10, sites[1].bytes[HI_SC_S] = 100;
  sites[1].frees[HI_SC_S] = 4, sites[1].bytes_freed[HI_SC_S] = 40;
  sites[2].node = 5, sites[2].depth = 2;
  sites[2].allocs[HI_SC_M] = 5, sites[2].bytes[HI_SC_M] = 500;
  sites[3].node = 3, sites[3].depth = 2;
  sites[3].allocs[HI_SC_X] = 1, sites[3].bytes[HI_SC_X] = 4000;
  sites[3].frees[HI_SC_X] = 1, sites[3].bytes_freed[HI_SC_X] = 4000;
  thread.tid = 42;
  thread.allocations = 16, thread.frees = 5;
  thread.bytes_allocated = 4600, thread.bytes_freed = 4040;
  thread.calls[HI_CALL_malloc] = 16, thread.calls[HI_CALL_free] = 5;
  thread.bins[10] = (struct hi_bin) { 10, 4, 100, 40 };
  thread.bins[100] = (struct hi_bin) { 5, 0, 500, 0 };
  thread.bins[HI_BIN_MAX + 1] = (struct hi_bin) { 1, 1, 4000, 4000 };
}

static void
finish_root (void)
{
  root.magic = HI_ROOT_MAGIC;
  root.version = HI_FORMAT_VERSION;
  root.root_size = sizeof root;
  root.pointer_size = sizeof (void *);
  root.byte_order = HI_ORDER_LITTLE;
  root.max_depth = 64;
  root.pid = 4242;
  root.ready = 1;
  root.n_arenas = 3;
  arena (0, NODES_ADDR, n_nodes, HI_ARENA_NODES, sizeof *nodes);
  arena (1, SITES_ADDR, n_sites, HI_ARENA_SITES, sizeof *sites);
  arena (2, THREAD_ADDR, 1, HI_ARENA_THREADS, sizeof thread);
  if (with_module)
    arena ((int) root.n_arenas++, MODULE_ADDR, 1, HI_ARENA_MODULES,
           sizeof module);
  if (with_types)
    arena ((int) root.n_arenas++, TYPES_ADDR, 4, HI_ARENA_TYPES,
           sizeof *types);
  root.totals.live_bytes = 560;
  root.totals.peak_bytes = 560;
  root.totals.live_blocks = 11;
  root.totals.peak_blocks = 11;
}

static int
write_snapshot (const char *path)
{
  struct { uint64_t addr, size; const void *data; } r[] = {
    { ROOT_ADDR, sizeof root, &root },
    { NODES_ADDR, (uint64_t) n_nodes * sizeof *nodes, nodes },
    { SITES_ADDR, (uint64_t) n_sites * sizeof *sites, sites },
    { THREAD_ADDR, sizeof thread, &thread },
    { MODULE_ADDR, sizeof module, &module },
    { TYPES_ADDR, sizeof types, types },
  };
  uint32_t n = 4;
  if (with_module)
    n++;
  if (with_types)
    r[n++] = r[5];
  struct hi_snap_header h = { HI_SNAP_MAGIC, HI_FORMAT_VERSION, n, ROOT_ADDR,
                              4242 };
  FILE *f = fopen (path, "wb");
  if (!f)
    return 1;
  fwrite (&h, sizeof h, 1, f);
  uint64_t off = sizeof h + n * sizeof (struct hi_snap_region);
  struct hi_snap_region reg[6];
  for (uint32_t i = 0; i < n; i++)
    {
      reg[i] = (struct hi_snap_region) { r[i].addr, r[i].size, off };
      off += r[i].size;
    }
  if (strcmp (region_mutation, "region-file") == 0)
    reg[2].offset = reg[1].offset;
  else if (strcmp (region_mutation, "region-memory") == 0)
    reg[2].addr = reg[1].addr + 16;
  else if (strcmp (region_mutation, "region-table") == 0)
    reg[0].offset = sizeof h;
  else if (strcmp (region_mutation, "region-end") == 0)
    reg[3].size += 100;
  fwrite (reg, sizeof reg[0], n, f);
  for (uint32_t i = 0; i < n; i++)
    fwrite (r[i].data, 1, r[i].size, f);
  return fclose (f) != 0;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fputs ("usage: mksnap OUT MUTATION [ARG]\n", stderr);
      return 2;
    }
  const char *mut = argv[2], *arg = argc > 3 ? argv[3] : "";
  unsigned long long num = strtoull (arg, NULL, 0);
  if (strcmp (mut, "collide") == 0 || strcmp (mut, "deep-claims") == 0)
    {
      /* NUM call pairs right under the root, all with return addresses
         2^44 apart (a multiplicative hash that drops low bits sends them
         all to one slot); in deep-claims each has a site that claims a
         chain of 65535 frames. */
      n_nodes = (uint32_t) num + 2;
      n_sites = (uint32_t) num + 1;
    }
  build ();
  if (strcmp (mut, "good") == 0)
    ;
  else if (strcmp (mut, "depth0") == 0)
    sites[1].depth = 0;
  else if (strcmp (mut, "depth-wrong") == 0)
    sites[1].depth = 2;
  else if (strcmp (mut, "depth-max") == 0)
    sites[1].depth = UINT32_MAX;
  else if (strcmp (mut, "site-node") == 0)
    sites[2].node = 4;          /* node 4 names site 1 */
  else if (strcmp (mut, "site-node-range") == 0)
    sites[2].node = 99;
  else if (strcmp (mut, "node-site") == 0)
    nodes[2].site = 3;          /* site 3 is node 3's */
  else if (strcmp (mut, "parent") == 0)
    nodes[3].parent = 5;        /* not older: a possible cycle */
  else if (strcmp (mut, "site-frees") == 0)
    sites[1].frees[HI_SC_S] = 20, sites[1].bytes_freed[HI_SC_S] = 300;
  else if (strcmp (mut, "root-node-sites") == 0)
    nodes[0].site = 3, nodes[1].site = 2;   /* no call pair links a site */
  else if (strcmp (mut, "site0-overflow") == 0)
    sites[0].allocs[HI_SC_S] = UINT64_MAX, sites[0].allocs[HI_SC_M] = 5;
  else if (strcmp (mut, "site-overflow") == 0)
    sites[2].allocs[HI_SC_M] = UINT64_MAX, sites[2].bytes[HI_SC_M] = UINT64_MAX;
  else if (strcmp (mut, "thread-frees") == 0)
    thread.frees = 17, thread.bytes_freed = UINT64_MAX;
  else if (strcmp (mut, "thread-sites") == 0)
    {
      /* Two entries of the thread's busiest sites name no site: one
         damaged record. */
      thread.sites[0].site = 99, thread.sites[0].allocs[HI_SC_S] = 1;
      thread.sites[1].site = 77, thread.sites[1].allocs[HI_SC_S] = 1;
    }
  else if (strcmp (mut, "bin-frees") == 0)
    thread.bins[100].frees = 6, thread.bins[100].bytes_freed = 501;
  else if (strcmp (mut, "peak") == 0 || strcmp (mut, "claims") == 0)
    ;                           /* below, after finish_root */
  else if (strncmp (mut, "region-", 7) == 0)
    region_mutation = mut;
  else if (strcmp (mut, "max-depth") == 0)
    ;
  else if (strcmp (mut, "module") == 0)
    {
      with_module = 1;
      module.flags = HI_MODULE_LOADED;
      module.start = 0x1000;
      module.end = 0x5000;
      snprintf (module.path, sizeof module.path, "%s", arg);
    }
  else if (strcmp (mut, "collide") == 0 || strcmp (mut, "deep-claims") == 0)
    {
      int deep = mut[0] == 'd';
      memset (nodes, 0, n_nodes * sizeof *nodes);
      memset (sites, 0, n_sites * sizeof *sites);
      for (uint32_t i = 0; i < num; i++)
        {
          nodes[i + 2] = (struct hi_node) { (uint64_t) (i + 1) << 44, 0,
                                            i + 1 };
          sites[i + 1].node = i + 2;
          sites[i + 1].depth = deep ? 65535 : 1;
          sites[i + 1].allocs[HI_SC_S] = 1;
          sites[i + 1].bytes[HI_SC_S] = 8;
        }
      memset (&thread, 0, sizeof thread);
      thread.allocations = num;
      thread.bytes_allocated = 8 * num;
    }
  else if (strncmp (mut, "types-", 6) == 0)
    {
      with_types = 1;
      types[1] = (struct hi_type_rec) { .kind = HI_TREC_TYPE, .key = 0x5000,
                                        .elem_size = 10,
                                        .flags = HI_TYPE_NAMED };
      strcpy (types[1].name, "struct thing");
      types[2] = (struct hi_type_rec) { .kind = HI_TREC_PAIR, .type = 1,
                                        .site = 1, .bin = 10, .allocs = 10,
                                        .bytes = 100, .frees = 4,
                                        .bytes_freed = 40 };
      types[3] = (struct hi_type_rec) { .kind = HI_TREC_PAIR, .type = 1,
                                        .site = 2, .bin = 100, .allocs = 5,
                                        .bytes = 500 };
      if (strcmp (mut, "types-pair-site") == 0)
        types[3].site = 99;                 /* no such site */
      else if (strcmp (mut, "types-pair-type") == 0)
        types[3].type = 2;                  /* a pair, not a type */
      else if (strcmp (mut, "types-kind") == 0)
        types[1].kind = 7;                  /* and so its pairs have none */
      else if (strcmp (mut, "types-bin") == 0)
        types[2].bin = HI_NBINS;
      else if (strcmp (mut, "types-name") == 0)
        memset (types[1].name, 'x', sizeof types[1].name);  /* no NUL */
      else if (strcmp (mut, "types-good") != 0)
        {
          fprintf (stderr, "mksnap: unknown mutation %s\n", mut);
          return 2;
        }
    }
  else
    {
      fprintf (stderr, "mksnap: unknown mutation %s\n", mut);
      return 2;
    }
  finish_root ();
  if (strcmp (mut, "peak") == 0)
    root.totals.peak_bytes = 500, root.totals.peak_blocks = 10;
  if (strcmp (mut, "claims") == 0)
    for (uint32_t i = 0; i < root.n_arenas; i++)
      root.arenas[i].count = root.arenas[i].capacity = UINT64_C(1) << 40;
  if (strcmp (mut, "max-depth") == 0)
    root.max_depth = 2;         /* site 1 is deeper than the stated cap */
  if (strcmp (mut, "collide") == 0 || strcmp (mut, "deep-claims") == 0)
    root.totals.peak_bytes = 8 * num, root.totals.peak_blocks = num;
  return write_snapshot (argv[1]);
}
