/* reach-unit.c - the reachability scan on a made-up process: a heap of
   blocks with the monitor's headers, a data mapping, a stack and one
   thread, each case's class known (memcheck's rules), and what the scan
   must skip. */
#include "reach/reach.h"
#include "unit-check.h"

#include <stdlib.h>
#include <string.h>

#define HEAP 0x10000000u
#define HEAP_SIZE 0x10000u
#define DATA 0x20000000u
#define DATA_SIZE 0x1000u
#define STACK 0x30000000u
#define STACK_SIZE 0x2000u
#define SP (STACK + 0x1000u)
#define SALT 0x5eed1234u

static unsigned char heap[HEAP_SIZE], data[DATA_SIZE], stack[STACK_SIZE];

static const struct
{
  uint64_t start, size;
  unsigned char *bytes;
  const char *path;
} regions[] = {
  { HEAP, HEAP_SIZE, heap, "" },
  { DATA, DATA_SIZE, data, "/fake/data" },
  { STACK, STACK_SIZE, stack, "" },
};
#define NREGIONS (sizeof regions / sizeof regions[0])

static uint64_t rbx;            /* the thread's rbx */

static unsigned char *
at (uint64_t addr, size_t len)
{
  for (size_t i = 0; i < NREGIONS; i++)
    if (addr >= regions[i].start
        && addr + len <= regions[i].start + regions[i].size)
      return regions[i].bytes + (addr - regions[i].start);
  return NULL;
}

static int
fake_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  (void) ctx;
  unsigned char *p = at (addr, len);
  if (!p)
    return -1;
  memcpy (buf, p, len);
  return 0;
}

static int
fake_symbol (void *ctx, const char *name, uint64_t *addr)
{
  (void) ctx, (void) name, (void) addr;
  return -1;
}

static int
fake_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  (void) ctx;
  if (i >= NREGIONS)
    return -1;
  memset (out, 0, sizeof *out);
  out->start = regions[i].start;
  out->end = regions[i].start + regions[i].size;
  out->prot = HI_MAP_READ | HI_MAP_WRITE;
  out->in_target = 1;
  strcpy (out->path, regions[i].path);
  return 0;
}

static int
fake_threads (void *ctx, size_t i, struct hi_thread_regs *out)
{
  (void) ctx;
  if (i > 0)
    return -1;
  memset (out, 0, sizeof *out);
  out->tid = 1;
  out->sp = SP;
  out->n_regs = 27;
  out->regs[19] = SP;           /* rsp */
  out->regs[5] = rbx;           /* rbx */
  return 0;
}

static const struct hi_target_ops ops = {
  fake_read, fake_symbol, NULL, NULL, NULL, fake_mapping, fake_threads
};

static void
put (uint64_t addr, uint64_t v)
{
  memcpy (at (addr, 8), &v, 8);
}

/* Blocks are this far apart: each one's chunk (an arena's) runs to the
   next one's, whose size word says the chunk before it is in use. */
#define GAP 0x100u

/* A block of ours at user pointer USER: glibc's chunk size word (an
   arena's chunk of GAP bytes, PREV_INUSE set), then the header; STATE 0
   live, 1 freed, 2 bad site. */
static uint64_t
block (uint64_t user, uint64_t size, uint32_t site, int state)
{
  struct hi_block_header h = { 0, site, size };
  h.check = hi_block_check (SALT, user - 16, site, size);
  if (state == 1)
    h.check = ~h.check;
  memcpy (at (user - 16, 16), &h, 16);
  put (user - 24, GAP | 1);
  return user;
}

static int
cls_of (const struct hi_reach *r, uint64_t user)
{
  for (uint64_t i = 0; i < r->n_blocks; i++)
    if (r->blocks[i].user == user)
      return (int) r->blocks[i].cls;
  return -1;
}

static void
want (const struct hi_reach *r, uint64_t user, int cls, const char *name)
{
  int got = cls_of (r, user);
  check (got == cls, name, "class %d (%s), not %d (%s)", got,
         got >= 0 ? hi_reach_class_name (got) : "not found", cls,
         hi_reach_class_name (cls));
}

int
main (void)
{
  struct hi_site sites[5];
  memset (sites, 0, sizeof sites);
  struct hi_model m;
  memset (&m, 0, sizeof m);
  m.root.version = HI_FORMAT_VERSION;
  m.root.header_salt = SALT;
  m.sites = sites;
  m.n_sites = 5;

  /* Blocks GAP apart, in address order as named. */
  uint64_t b = HEAP + 0x40;
#define NEXT (b += GAP, b)
  uint64_t list_a = block (NEXT, 24, 1, 0), list_b = block (NEXT, 24, 1, 0),
           list_c = block (NEXT, 24, 1, 0);
  put (list_a, list_b);
  put (list_b, list_c);
  put (DATA + 8, list_a);                 /* a global: all reachable */

  uint64_t inner = block (NEXT, 64, 1, 0), via_inner = block (NEXT, 32, 1, 0);
  put (DATA + 16, inner + 24);            /* interior: possibly lost */
  put (inner + 8, via_inner);             /* and what it reaches */

  /* F <-> G, and H -> F: F leads a clique first (taking G), then H,
     later in address order, takes F: H definite, F and G indirect. */
  uint64_t f = block (NEXT, 40, 2, 0), g = block (NEXT, 40, 2, 0),
           h = block (NEXT, 40, 2, 0);
  put (f, g);
  put (g, f);
  put (h + 16, f);

  uint64_t in_reg = block (NEXT, 16, 1, 0);
  rbx = in_reg;                           /* a register: reachable */
  uint64_t red = block (NEXT, 16, 1, 0), dead = block (NEXT, 16, 1, 0);
  put (SP - 64, red);                     /* the red zone: a root */
  put (SP - 256, dead);                   /* below it: not */

  uint64_t zero = block (NEXT, 0, 1, 0);
  put (DATA + 24, zero);                  /* a 0-byte block's start */

  uint64_t freed = block (NEXT, 48, 1, 1), stale = block (NEXT, 16, 1, 0);
  put (freed + 8, stale);                 /* only a freed block: lost */

  uint64_t bad = block (NEXT, 16, 99, 0); /* a site out of range */
  put (DATA + 32, bad);

  uint64_t len64 = block (NEXT, 40, 1, 0);
  put (len64, 32);                        /* length64: the bytes after */
  put (DATA + 40, len64 + 8);

  uint64_t counted = block (NEXT, 40, 3, 0);
  put (DATA + 48, counted);
  sites[3].allocs[0] = 2;                 /* the monitor counts 2 live */
  sites[3].bytes[0] = 40 + 56;

  /* Chain 4 has 1 live block of 40 bytes, and 2 headers: the stale one
     is the one nothing reaches (its 24 bytes the surplus), and the block
     only its bytes point to is definitely lost, not indirectly. */
  uint64_t kept = block (NEXT, 40, 4, 0), surplus = block (NEXT, 24, 4, 0);
  uint64_t orphan = block (NEXT, 16, 1, 0);
  put (DATA + 56, kept);
  put (surplus, orphan);
  sites[4].allocs[0] = 1;
  sites[4].bytes[0] = 40;

  /* A header in a chunk glibc holds free: the next chunk's PREV_INUSE
     bit is clear. */
  uint64_t in_free = block (NEXT, 24, 1, 0);
  put (DATA + 64, in_free);
  put (in_free - 32 + GAP + 8, GAP);
  put (in_free - 32 + 2 * GAP + 8, 0x1000 | 1);   /* the top chunk */

  /* The live blocks of chains 1 and 2, as the monitor counts them. */
  sites[1].allocs[0] = 12;
  sites[1].bytes[0] = 3 * 24 + 64 + 32 + 3 * 16 + 0 + 16 + 40 + 16;
  sites[2].allocs[0] = 3;
  sites[2].bytes[0] = 3 * 40;
#undef NEXT

  struct hi_target t = { &ops, NULL, 0 };
  struct hi_reach *r = NULL;
  hi_status s = hi_reach_scan (&t, &m, 0, &r);
  check (s == HI_OK && r, "reach: scan", "status %d", (int) s);
  if (!r)
    return 1;
  want (r, list_a, HI_REACH_REACHABLE, "reach: a list's head from a global");
  want (r, list_c, HI_REACH_REACHABLE, "reach: a list's tail from a global");
  want (r, inner, HI_REACH_POSSIBLE, "reach: an interior pointer");
  want (r, via_inner, HI_REACH_POSSIBLE,
        "reach: a start pointer from a possibly lost block");
  want (r, h, HI_REACH_DEFINITE, "reach: the later clique's leader");
  want (r, f, HI_REACH_INDIRECT, "reach: an earlier leader joins it");
  want (r, g, HI_REACH_INDIRECT, "reach: its cycle's other block");
  want (r, in_reg, HI_REACH_REACHABLE, "reach: a register");
  want (r, red, HI_REACH_REACHABLE, "reach: the red zone below sp");
  want (r, dead, HI_REACH_DEFINITE, "reach: below the red zone");
  want (r, zero, HI_REACH_REACHABLE, "reach: a 0-byte block's start");
  want (r, stale, HI_REACH_DEFINITE, "reach: only a freed block's bytes");
  check (cls_of (r, freed) == -1, "reach: a freed block is none",
         "class %d", cls_of (r, freed));
  check (cls_of (r, bad) == -1 && r->skipped.bad_headers == 1,
         "reach: a header naming no chain is skipped",
         "class %d, %llu bad", cls_of (r, bad),
         (unsigned long long) r->skipped.bad_headers);
  want (r, len64, HI_REACH_REACHABLE, "reach: memcheck's length64 heuristic");
  check (r->skipped.missing_blocks == 1 && r->skipped.missing_bytes == 56,
         "reach: live blocks the counters have but the heap does not",
         "%llu blocks, %llu bytes",
         (unsigned long long) r->skipped.missing_blocks,
         (unsigned long long) r->skipped.missing_bytes);
  want (r, kept, HI_REACH_REACHABLE, "reach: a chain's counted block");
  check (cls_of (r, surplus) == -1 && cls_of (r, in_free) == -1
         && r->skipped.stale_headers == 2,
         "reach: stale headers (beyond the counts, in a free chunk) skipped",
         "classes %d %d, %llu stale", cls_of (r, surplus),
         cls_of (r, in_free),
         (unsigned long long) r->skipped.stale_headers);
  want (r, orphan, HI_REACH_DEFINITE,
        "reach: a block only a stale header's bytes reach");
  check (r->n_blocks == 17 && r->threads == 1 && !r->skipped.no_threads,
         "reach: the blocks and threads found", "%llu blocks, %llu threads",
         (unsigned long long) r->n_blocks, (unsigned long long) r->threads);
  uint64_t sum = 0;
  for (int c = 0; c < HI_REACH_NCLASSES; c++)
    sum += r->totals.cls[c].blocks;
  check (sum == r->n_blocks, "reach: every block in one class", "%llu",
         (unsigned long long) sum);
  hi_reach_free (r);

  /* Without registers (a flag), the block only rbx holds is lost. */
  s = hi_reach_scan (&t, &m, HI_REACH_NO_REGISTERS, &r);
  if (s == HI_OK)
    {
      want (r, in_reg, HI_REACH_DEFINITE, "reach: registers left out");
      hi_reach_free (r);
    }

  /* A target without a memory map has nothing to scan. */
  struct hi_target_ops none = ops;
  none.mapping = NULL;
  struct hi_target tn = { &none, NULL, 0 };
  check (hi_reach_scan (&tn, &m, 0, &r) == HI_E_NO_MEMORY && !r,
         "reach: no memory map", "not HI_E_NO_MEMORY");
  return failed;
}
