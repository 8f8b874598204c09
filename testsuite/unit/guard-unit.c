/* guard-unit.c - unit tests of the reader's heap errors and guards
   (format 5: reader/model/model-guard.c, reader/tables/block.c,
   reader/tables/table-errors.c) on process images built by hand: a heap
   of glibc-like chunks holding live, quarantined, freed, tcache'd and
   overwritten blocks, the error
   records of every kind, the quarantine's ring; `block` says each state
   in its exact line, `-t errors` each error in its exact lines; torn and
   hostile arenas (counts beyond capacity, sites out of range, ring
   positions that go back or wrap) give an answer and damage, never a
   crash.  Prints "PASS: name" or "FAIL: name: why"; exit status 1 if any
   failed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"
#include "unit-check.h"

#define ROOT_AT    0x100000u
#define NODES_AT   0x200000u
#define SITES_AT   0x300000u
#define THREADS_AT 0x400000u
#define ERRORS_AT  0x500000u
#define RING_AT    0x600000u
#define MODS_AT    0x700000u
#define HEAP_AT    UINT64_C(0x10000000)
#define HEAP_SIZE  0x4000u
#define STACK_AT   UINT64_C(0x7f0000000000)
#define STACK_SIZE 0x2000u
#define PROG_AT    UINT64_C(0x400000000)
#define SALT       0x5a17u
#define RING_CAP   8u
#define NERR       8u
#define TID        4242u

/* Chains (frames without a module are named 0xRET): site 1 main > make
   (0x1002 > 0x1003), site 2 main > drop (0x1002 > 0x1004, a free's),
   site 3 main > bad (0x1002 > 0x1005, a bad call's), site 4 main > other
   (0x1002 > 0x1006). */
#define P_MAKE  "0x1002 > 0x1003"
#define P_DROP  "0x1002 > 0x1004"
#define P_BAD   "0x1002 > 0x1005"
#define P_OTHER "0x1002 > 0x1006"

struct image
{
  struct hi_root root;
  struct hi_node nodes[7];
  struct hi_site sites[5];
  struct hi_thread thread;
  struct hi_error errors[NERR];
  struct hi_freed ring[RING_CAP];   /* slots 0..7 of the ring */
  struct hi_freed ringhi[RING_CAP]; /* its last 8 slots */
  struct hi_module module;
  unsigned char heap[HEAP_SIZE];
  int errors_readable;        /* 0: the errors arena cannot be read */
  int no_heap;                /* 1: the heap cannot be read (a snapshot's) */
};

static struct image im;

static int
image_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct image *m = ctx;
  const struct { uint64_t at; const void *p; size_t n; } r[] = {
    { ROOT_AT, &m->root, sizeof m->root },
    { NODES_AT, m->nodes, sizeof m->nodes },
    { SITES_AT, m->sites, sizeof m->sites },
    { THREADS_AT, &m->thread, sizeof m->thread },
    { ERRORS_AT, m->errors, m->errors_readable ? sizeof m->errors : 0 },
    { MODS_AT, &m->module, sizeof m->module },
    { HEAP_AT, m->heap, m->no_heap ? 0 : sizeof m->heap },
  };
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (addr >= r[i].at && addr - r[i].at <= r[i].n
        && len <= r[i].n - (addr - r[i].at))
      {
        memcpy (buf, (const char *) r[i].p + (addr - r[i].at), len);
        return 0;
      }
  /* The ring: HI_QUARANTINE_SLOTS entries, all zero but the first and
     the last 8. */
  uint64_t ring_bytes = (uint64_t) HI_QUARANTINE_SLOTS * sizeof (struct hi_freed);
  if (addr >= RING_AT && addr - RING_AT <= ring_bytes
      && len <= ring_bytes - (addr - RING_AT))
    {
      for (size_t i = 0; i < len; i++)
        {
          uint64_t o = addr - RING_AT + i, slot = o / sizeof (struct hi_freed);
          const unsigned char *e
            = slot < RING_CAP ? (const unsigned char *) &m->ring[slot]
            : slot >= HI_QUARANTINE_SLOTS - RING_CAP
            ? (const unsigned char *) &m->ringhi[slot - (HI_QUARANTINE_SLOTS
                                                         - RING_CAP)] : NULL;
          ((unsigned char *) buf)[i] = e ? e[o % sizeof (struct hi_freed)] : 0;
        }
      return 0;
    }
  /* The stack: readable, all zero. */
  if (addr >= STACK_AT && addr - STACK_AT <= STACK_SIZE
      && len <= STACK_SIZE - (addr - STACK_AT))
    {
      memset (buf, 0, len);
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

/* The process's map: the program, the heap, one thread's stack. */
static int
image_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  (void) ctx;
  static const struct { uint64_t start, end; const char *path; } maps[] = {
    { PROG_AT, PROG_AT + 0x1000, "/nonexistent/prog" },
    { HEAP_AT, HEAP_AT + HEAP_SIZE, "[heap]" },
    { STACK_AT, STACK_AT + STACK_SIZE, "" },
  };
  if (i >= sizeof maps / sizeof maps[0])
    return -1;
  memset (out, 0, sizeof *out);
  out->start = maps[i].start;
  out->end = maps[i].end;
  out->prot = HI_MAP_READ | HI_MAP_WRITE;
  out->in_target = 1;
  snprintf (out->path, sizeof out->path, "%s", maps[i].path);
  return 0;
}

static int
image_threads (void *ctx, size_t i, struct hi_thread_regs *out)
{
  (void) ctx;
  if (i > 0)
    return -1;
  memset (out, 0, sizeof *out);
  out->tid = TID;
  out->sp = STACK_AT + 0x1800;
  return 0;
}

static const struct hi_target_ops image_ops = {
  image_read, image_symbol, NULL, NULL, NULL, image_mapping, image_threads
};
/* A target without a map (a snapshot's, gdb's). */
static const struct hi_target_ops bare_ops = {
  image_read, image_symbol, NULL, NULL, NULL, NULL, NULL
};

static struct hi_arena_desc *
desc (struct hi_root *r, uint32_t i)
{
  return i < HI_MAX_ARENAS ? &r->arenas[i] : &r->more_arenas[i - HI_MAX_ARENAS];
}

static struct hi_arena_desc *
arena (struct hi_root *r, uint64_t addr, uint64_t count, uint32_t kind,
       uint32_t size)
{
  struct hi_arena_desc *d = desc (r, r->n_arenas++);
  *d = (struct hi_arena_desc) { addr, count, count, kind, size };
  return d;
}

static struct hi_arena_desc *
find (uint32_t kind)
{
  for (uint32_t i = 0; i < im.root.n_arenas; i++)
    if (desc (&im.root, i)->kind == kind)
      return desc (&im.root, i);
  return NULL;
}

static void
node (uint32_t n, uint32_t parent, uint32_t site)
{
  im.nodes[n] = (struct hi_node) { 0x1000 + n, parent, site };
}

static void
site (uint32_t s, uint32_t n, uint64_t allocs, uint64_t size)
{
  unsigned c = hi_size_class (size);
  im.sites[s].node = n;
  im.sites[s].depth = 2;
  im.sites[s].allocs[c] = allocs;
  im.sites[s].bytes[c] = allocs * size;
}

/* The heap: glibc-like chunks from HEAP_AT + 0x10, each [prev_size,
   size | PREV_INUSE of the chunk before][user memory].  Blocks of ours
   have our header at the chunk's memory. */
enum hstate { H_LIVE, H_QUARANTINED, H_FREED, H_TCACHE, H_SMASHED,
              H_GLIBC_SMASHED, H_FREE };

struct chunk
{
  uint64_t at, csize, user, size;
  uint32_t site;
  enum hstate state;
};

#define NCHUNKS 16
static struct chunk chunks[NCHUNKS];
static size_t n_chunks;

static void
put64 (uint64_t addr, uint64_t v)
{
  memcpy (im.heap + (addr - HEAP_AT), &v, 8);
}

/* The next chunk: CSIZE bytes holding a block of SIZE bytes of SITE in
   STATE; its index. */
static size_t
chunk (uint64_t csize, uint64_t size, uint32_t s, enum hstate st)
{
  uint64_t at = n_chunks ? chunks[n_chunks - 1].at + chunks[n_chunks - 1].csize
                         : HEAP_AT + 0x10;
  chunks[n_chunks] = (struct chunk) { at, csize, at + 32, size, s, st };
  return n_chunks++;
}

/* Write the chunks into the heap. */
static void
lay_out (void)
{
  memset (im.heap, 0, sizeof im.heap);
  for (size_t i = 0; i < n_chunks; i++)
    {
      const struct chunk *c = &chunks[i];
      int prev_in_use = i == 0 || chunks[i - 1].state != H_FREE;
      put64 (c->at + 8, c->csize | (prev_in_use ? 1u : 0u));
      uint64_t mp = c->at + 16;
      struct hi_block_header h = { 0, c->site, c->size };
      uint32_t want = hi_block_check (SALT, mp, c->site, c->size);
      switch (c->state)
        {
        case H_LIVE:
          h.check = want;
          break;
        case H_QUARANTINED:
          h.check = want ^ HI_CHECK_QUARANTINED;
          memset (im.heap + (c->user - HEAP_AT), HI_FREED_BYTE, c->size);
          break;
        case H_FREED:
          h.check = ~want;
          break;
        case H_TCACHE:
          /* glibc's tcache entry over our header: the next entry's
             address safe-linked (none), then its key. */
          memcpy (&h, (uint64_t[2]) { mp >> 12, UINT64_C(0x1234567890abcdef) },
                  16);
          break;
        case H_SMASHED:
          memset (&h, 0x41, sizeof h);
          break;
        case H_GLIBC_SMASHED:
          memset (&h, 0x41, sizeof h);
          put64 (c->at + 8, UINT64_C(0x4141414141414141));
          break;
        case H_FREE:
          memset (&h, 0, sizeof h);
          break;
        }
      memcpy (im.heap + (mp - HEAP_AT), &h, sizeof h);
    }
}

/* Chunk indexes of the standard heap. */
static size_t c_a, c_b, c_q, c_f, c_t, c_o, c_s, c_p, c_g, c_l, c_free, c_m,
  c_al;

static void
heap_standard (void)
{
  n_chunks = 0;
  c_a = chunk (48, 24, 1, H_LIVE);        /* no slack: 16 + 24 = 40 */
  c_b = chunk (64, 36, 4, H_LIVE);        /* 4 bytes of slack */
  c_q = chunk (128, 100, 1, H_QUARANTINED);
  c_f = chunk (64, 32, 4, H_FREED);
  c_t = chunk (64, 40, 1, H_TCACHE);
  c_o = chunk (48, 24, 4, H_LIVE);        /* overflows into the next */
  c_s = chunk (64, 40, 1, H_SMASHED);
  c_p = chunk (48, 24, 1, H_LIVE);
  c_g = chunk (64, 40, 1, H_GLIBC_SMASHED);
  c_l = chunk (48, 24, 1, H_LIVE);
  /* Free memory up to the next page, then a free chunk: a live block's
     chunk is no larger than glibc makes it (else its size word is taken
     for overwritten). */
  chunk (0x1000 - (chunks[c_l].at + 48 - HEAP_AT), 0, 0, H_FREE);
  c_free = chunk (256, 0, 0, H_FREE);
  c_m = chunk (48, 24, 4, H_LIVE);
  c_al = chunk (256, 100, 1, H_LIVE);
  /* The top chunk: glibc's last, its PREV_INUSE bit saying c_al is in
     use (a chunk whose next one's bit is clear is free). */
  chunk (256, 0, 0, H_FREE);
  lay_out ();
  /* c_al is aligned: its header 64 bytes into its memory, the offset
     word before it. */
  uint64_t mp = chunks[c_al].at + 16, header = mp + 64;
  memset (im.heap + (mp - HEAP_AT), 0, 16);
  uint64_t sf = 100 | HI_BLOCK_ALIGNED;
  struct hi_block_header h = { hi_block_check (SALT, header, 1, sf), 1, sf };
  memcpy (im.heap + (header - HEAP_AT), &h, sizeof h);
  put64 (header - 8, 64);
  chunks[c_al].user = header + 16;
  /* c_g's glibc size is smashed: the chunk after it (c_l) starts where
     the walk cannot reach; c_l's own chunk is whole. */
}

static void
image_v5 (void)
{
  memset (&im, 0, sizeof im);
  im.errors_readable = 1;
  struct hi_root *r = &im.root;
  r->magic = HI_ROOT_MAGIC;
  r->version = HI_FORMAT_VERSION;
  r->root_size = sizeof *r;
  r->pointer_size = sizeof (void *);
  r->byte_order = HI_ORDER_LITTLE;
  r->max_depth = 64;
  r->header_salt = SALT;
  r->pid = 42;
  r->ready = 1;
  arena (r, NODES_AT, 7, HI_ARENA_NODES, sizeof (struct hi_node));
  arena (r, SITES_AT, 5, HI_ARENA_SITES, sizeof (struct hi_site));
  arena (r, THREADS_AT, 1, HI_ARENA_THREADS, sizeof (struct hi_thread));
  arena (r, MODS_AT, 1, HI_ARENA_MODULES, sizeof (struct hi_module));
  arena (r, ERRORS_AT, 0, HI_ARENA_ERRORS, sizeof (struct hi_error))
    ->capacity = NERR;
  arena (r, RING_AT, RING_CAP, HI_ARENA_QUARANTINE, sizeof (struct hi_freed));
  im.module.start = PROG_AT;
  im.module.end = PROG_AT + 0x1000;
  im.module.flags = HI_MODULE_LOADED;
  strcpy (im.module.path, "/nonexistent/prog");
  node (HI_NODE_CUT, HI_NODE_ROOT, 0);
  node (2, HI_NODE_ROOT, 0);
  node (3, 2, 1);
  node (4, 2, 2);
  node (5, 2, 3);
  node (6, 2, 4);
  site (1, 3, 10, 24);
  site (2, 4, 0, 0);          /* a free's chain: no counters */
  site (3, 5, 0, 0);          /* a bad call's */
  site (4, 6, 5, 36);
  im.thread.tid = TID;
  im.thread.allocations = 15;
  im.thread.bytes_allocated = 10 * 24 + 5 * 36;
  heap_standard ();
  /* The quarantine holds c_q, freed by main > drop in thread 77. */
  r->guard_flags = HI_GUARD_QUARANTINE;
  r->quarantine_limit = 1 << 20;
  r->quarantine_bytes = 100;
  r->quarantine_head = 5;
  r->quarantine_tail = 6;
  im.ring[5] = (struct hi_freed) { chunks[c_q].user, 100, 1, 2, 77, 1000 };
}

static hi_status
load_with (const struct hi_target_ops *ops, struct hi_model **out)
{
  struct hi_target t = { ops, &im, 0 };
  *out = NULL;
  return hi_model_load (&t, out);
}

static const struct hi_options opts = {
  .depth = 5, .verbosity = HI_NORMAL, .format = HI_TEXT, .threshold = -1,
  .lines = 1, .default_suppressions = 1
};

/* `block ADDR` on the image through OPS: its text (free it), and its
   status in *S. */
static char *
block_text (const struct hi_target_ops *ops, uint64_t addr, hi_status *s,
            enum hi_format format)
{
  struct hi_model *m;
  struct hi_target t = { ops, &im, 0 };
  char *text = NULL;
  size_t len = 0;
  *s = hi_model_load (&t, &m);
  if (*s != HI_OK)
    return NULL;
  struct hi_options o = opts;
  o.format = format;
  FILE *f = open_memstream (&text, &len);
  *s = hi_block_report (&t, m, NULL, addr, &o, f);
  fclose (f);
  hi_model_free (m);
  return text;
}

/* Check that `block ADDR` prints WANT (one line) with status WANT_S. */
static void
expect_block (const char *name, const struct hi_target_ops *ops,
              uint64_t addr, hi_status want_s, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));

static void
expect_block (const char *name, const struct hi_target_ops *ops,
              uint64_t addr, hi_status want_s, const char *fmt, ...)
{
  char want[2048];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (want, sizeof want - 1, fmt, ap);
  va_end (ap);
  strcat (want, "\n");
  hi_status s;
  char *got = block_text (ops, addr, &s, HI_TEXT);
  check (got && strcmp (got, want) == 0 && s == want_s, name,
         "status %d, got [%s] want [%s]", (int) s, got ? got : "(null)", want);
  free (got);
}

static void every_error (void);
static void add_error (struct hi_error e);

#define U(c) chunks[c].user
#define AT(c) chunks[c].at

static void
test_block_states (void)
{
  image_v5 ();
  expect_block ("block: in a live block", &image_ops, U (c_a) + 5, HI_OK,
                "0x%" PRIx64 " is 5 bytes into a 24-byte block at 0x%" PRIx64
                ", allocated by " P_MAKE, U (c_a) + 5, U (c_a));
  expect_block ("block: a quarantined block names both chains and the thread",
                &image_ops, U (c_q) + 12, HI_OK,
                "0x%" PRIx64 " is 12 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (held in the quarantine), allocated by " P_MAKE
                ", freed by " P_DROP " (by thread 77)", U (c_q) + 12, U (c_q));
  expect_block ("block: a block freed to malloc, its header intact",
                &image_ops, U (c_f), HI_OK,
                "0x%" PRIx64 " is 0 bytes into a freed 32-byte block at 0x%"
                PRIx64 " (given back to malloc, which may have reused it), "
                "allocated by " P_OTHER, U (c_f), U (c_f));
  expect_block ("block: our header", &image_ops, U (c_b) - 4, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in heapinspect's header of the 36-byte "
                "block at 0x%" PRIx64 " (4 bytes before it), allocated by "
                P_OTHER "; 20 bytes past the end of the 24-byte block at 0x%"
                PRIx64 ", allocated by " P_MAKE, U (c_b) - 4, U (c_b),
                U (c_a));
  expect_block ("block: glibc's chunk header, past the end of the block "
                "before", &image_ops, U (c_a) + 26, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in glibc's chunk header of the 36-byte "
                "block at 0x%" PRIx64 " (22 bytes before it), allocated by "
                P_OTHER "; 2 bytes past the end of the 24-byte block at 0x%"
                PRIx64 ", allocated by " P_MAKE, U (c_a) + 26, U (c_b),
                U (c_a));
  expect_block ("block: past the end, in the slack", &image_ops,
                U (c_b) + 37, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is 1 byte past the end of the 36-byte block "
                "at 0x%" PRIx64 " (in its slack: bytes malloc gave it beyond "
                "its size), allocated by " P_OTHER, U (c_b) + 37, U (c_b));
  expect_block ("block: a chunk in glibc's tcache", &image_ops, U (c_t) + 8,
                HI_OK,
                "0x%" PRIx64 " is 8 bytes into a block at 0x%" PRIx64 " freed "
                "to malloc (in the 64-byte heap chunk at 0x%" PRIx64 ", which "
                "glibc's tcache or a fastbin holds, over its heapinspect "
                "header: its size and chain are gone), after the freed "
                "32-byte block at 0x%" PRIx64 ", allocated by " P_OTHER,
                U (c_t) + 8, U (c_t), AT (c_t), U (c_f));
  expect_block ("block: an overwritten header and the block before it",
                &image_ops, U (c_s), HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in the 64-byte heap chunk at 0x%" PRIx64
                ", whose heapinspect header at 0x%" PRIx64 " fails its check "
                "(overwritten: heap corruption; or a block not allocated "
                "through heapinspect); the nearest valid block before it is "
                "the 24-byte block at 0x%" PRIx64 ", whose end is 8 bytes "
                "before that header, allocated by " P_OTHER, U (c_s),
                AT (c_s), AT (c_s) + 16, U (c_o));
  expect_block ("block: glibc's size overwritten", &image_ops, U (c_g) + 4,
                HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is after a corrupted chunk header at 0x%"
                PRIx64 " (glibc's size field is overwritten: heap "
                "corruption); the nearest valid block before it is the "
                "24-byte block at 0x%" PRIx64 ", whose end is %" PRIu64
                " bytes before 0x%" PRIx64 ", allocated by " P_MAKE,
                U (c_g) + 4, AT (c_g), U (c_p), U (c_g) + 4 - (U (c_p) + 24),
                U (c_g) + 4);
  expect_block ("block: glibc's overwritten size field is in the chunk "
                "header", &image_ops, AT (c_g) + 8, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in the corrupted chunk header at 0x%"
                PRIx64 " (glibc's size field is overwritten: heap "
                "corruption); the nearest valid block before it is the "
                "24-byte block at 0x%" PRIx64 ", whose end is %" PRIu64
                " bytes before 0x%" PRIx64 ", allocated by " P_MAKE,
                AT (c_g) + 8, AT (c_g), U (c_p), AT (c_g) + 8 - (U (c_p) + 24),
                AT (c_g) + 8);
  expect_block ("block: the tcache chunk's headers are no block's bytes",
                &image_ops, U (c_t) - 8, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in the headers of the 64-byte heap chunk "
                "at 0x%" PRIx64 ", freed to malloc (glibc's tcache or a "
                "fastbin holds it), after the freed 32-byte block at 0x%"
                PRIx64 ", allocated by " P_OTHER, U (c_t) - 8, AT (c_t),
                U (c_f));
  expect_block ("block: free memory of the heap", &image_ops,
                AT (c_free) + 100, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in free memory of the heap (a free "
                "256-byte chunk at 0x%" PRIx64 "), %" PRIu64 " bytes past "
                "the end of the 24-byte block at 0x%" PRIx64 ", allocated by "
                P_MAKE, AT (c_free) + 100, AT (c_free),
                AT (c_free) + 100 - (U (c_l) + 24), U (c_l));
  expect_block ("block: an aligned block's padding", &image_ops,
                U (c_al) - 40, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in the alignment padding of the 100-byte "
                "block at 0x%" PRIx64 " (40 bytes before it), allocated by "
                P_MAKE, U (c_al) - 40, U (c_al));
  expect_block ("block: an aligned block's offset word", &image_ops,
                U (c_al) - 20, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is in heapinspect's header of the 100-byte "
                "block at 0x%" PRIx64 " (20 bytes before it), allocated by "
                P_MAKE, U (c_al) - 20, U (c_al));
  expect_block ("block: past an aligned block's end, in its slack",
                &image_ops, U (c_al) + 104, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is 4 bytes past the end of the 100-byte block "
                "at 0x%" PRIx64 " (in its slack: bytes malloc gave it beyond "
                "its size), allocated by " P_MAKE, U (c_al) + 104, U (c_al));
  expect_block ("block: a thread's stack", &image_ops, STACK_AT + 0x100,
                HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect: it is on the stack of thread %u",
                STACK_AT + 0x100, TID);
  expect_block ("block: a module's image", &image_ops, PROG_AT + 0x40,
                HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect: it is in the image of /nonexistent/prog (code "
                "or static data)", PROG_AT + 0x40);
  expect_block ("block: unmapped", &image_ops, UINT64_C(0x900000000),
                HI_E_NOT_BLOCK,
                "0x900000000 is not in a block allocated through "
                "heapinspect: no memory is mapped there");
  expect_block ("block: a module's image without a map", &bare_ops,
                PROG_AT + 0x40, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect: it is in the image of /nonexistent/prog (code "
                "or static data)", PROG_AT + 0x40);
  expect_block ("block: unreadable without a map", &bare_ops,
                UINT64_C(0x900000000), HI_E_NOT_BLOCK,
                "0x900000000 is not in a block allocated through "
                "heapinspect: its memory cannot be read (not mapped, or not "
                "in the core)");
  expect_block ("block: a readable address in no block, without a map",
                &bare_ops, STACK_AT + 0x100, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect", STACK_AT + 0x100);
  im.root.snapshot_realtime_ns = 1;
  expect_block ("block: not in a snapshot's memory", &bare_ops,
                UINT64_C(0x900000000), HI_E_NOT_BLOCK,
                "0x900000000 is not in a block allocated through "
                "heapinspect: it is not in the snapshot's memory (a snapshot "
                "holds only the monitor's own data)");
  im.root.snapshot_realtime_ns = 0;

  /* A redzone: 1 byte past the end is in it. */
  im.root.redzone = 4;
  expect_block ("block: past the end, in the redzone", &image_ops,
                U (c_b) + 37, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is 1 byte past the end of the 36-byte block "
                "at 0x%" PRIx64 " (in its redzone), allocated by " P_OTHER,
                U (c_b) + 37, U (c_b));
  im.root.redzone = 0;

  /* The ring lost the entry: the block is still quarantined. */
  im.root.quarantine_head = im.root.quarantine_tail = 6;
  expect_block ("block: a quarantined block whose ring entry is lost",
                &image_ops, U (c_q), HI_OK,
                "0x%" PRIx64 " is 0 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (leaving the quarantine: out of its ring, not yet "
                "given back to malloc), allocated by " P_MAKE "; the "
                "quarantine's record of its free is lost", U (c_q), U (c_q));
  /* ... and an error record says who freed it. */
  add_error ((struct hi_error) { .kind = HI_ERR_WRITE_AFTER_FREE,
             .when = HI_WHEN_EVICT, .addr = U (c_q), .block = U (c_q),
             .block_size = 100, .alloc_site = 1, .free_site = 2,
             .offset = 1, .tid = 81 });
  expect_block ("block: a block leaving the quarantine, its free from an "
                "error", &image_ops, U (c_q) + 1, HI_OK,
                "0x%" PRIx64 " is 1 byte into a freed 100-byte block at 0x%"
                PRIx64 " (leaving the quarantine: out of its ring, not yet "
                "given back to malloc), allocated by " P_MAKE ", freed by "
                P_DROP "; heap error 1 of -t errors names it", U (c_q) + 1,
                U (c_q));

  /* The errors naming a block, a chunk, a pointer. */
  image_v5 ();
  every_error ();
  expect_block ("block: a quarantined block names the first error about it",
                &image_ops, U (c_q) + 12, HI_OK,
                "0x%" PRIx64 " is 12 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (held in the quarantine), allocated by " P_MAKE
                ", freed by " P_DROP " (by thread 77); heap error 1 of -t "
                "errors names it", U (c_q) + 12, U (c_q));
  expect_block ("block: the overflowing block names the corruption's error",
                &image_ops, U (c_o), HI_OK,
                "0x%" PRIx64 " is 0 bytes into a 24-byte block at 0x%" PRIx64
                ", allocated by " P_OTHER "; heap error 4 of -t errors names "
                "it", U (c_o), U (c_o));
  expect_block ("block: a stack pointer freed names its error", &image_ops,
                STACK_AT + 0x100, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect: it is on the stack of thread %u; heap error 3 "
                "of -t errors names it", STACK_AT + 0x100, TID);

  /* No heap memory (a snapshot's): the ring and the error records name
     the blocks they know. */
  image_v5 ();
  every_error ();
  im.no_heap = 1;
  im.root.snapshot_realtime_ns = 1;
  expect_block ("block: no heap memory: the ring's block", &bare_ops,
                U (c_q) + 12, HI_OK,
                "0x%" PRIx64 " is 12 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (held in the quarantine, from its ring: a snapshot "
                "holds no heap memory), allocated by " P_MAKE ", freed by "
                P_DROP " (by thread 77); heap error 1 of -t errors names it",
                U (c_q) + 12, U (c_q));
  expect_block ("block: no heap memory: the ring's block's last byte",
                &bare_ops, U (c_q) + 99, HI_OK,
                "0x%" PRIx64 " is 99 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (held in the quarantine, from its ring: a snapshot "
                "holds no heap memory), allocated by " P_MAKE ", freed by "
                P_DROP " (by thread 77); heap error 1 of -t errors names it",
                U (c_q) + 99, U (c_q));
  expect_block ("block: no heap memory: past the ring's block", &bare_ops,
                U (c_q) + 100, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect: it is not in the snapshot's memory (a snapshot "
                "holds only the monitor's own data)", U (c_q) + 100);
  expect_block ("block: no heap memory: an interior free's block",
                &bare_ops, U (c_a) + 8, HI_OK,
                "0x%" PRIx64 " is 8 bytes into a 24-byte block at 0x%" PRIx64
                " (from heap error 2's record: a snapshot holds no heap "
                "memory), allocated by " P_MAKE "; heap error 2 of -t errors "
                "names it", U (c_a) + 8, U (c_a));
  expect_block ("block: no heap memory: a block of unknown size",
                &bare_ops, U (c_t), HI_OK,
                "0x%" PRIx64 " is the start of a freed block at 0x%" PRIx64
                " whose size the record does not give (from heap error 7's "
                "record: a snapshot holds no heap memory); heap error 7 of "
                "-t errors names it", U (c_t), U (c_t));
  expect_block ("block: no heap memory: past the start of a block of "
                "unknown size", &bare_ops, U (c_t) + 1, HI_E_NOT_BLOCK,
                "0x%" PRIx64 " is not in a block allocated through "
                "heapinspect: it is not in the snapshot's memory (a snapshot "
                "holds only the monitor's own data)", U (c_t) + 1);
  /* The ring let the block go: the first error about it says it. */
  im.root.quarantine_head = im.root.quarantine_tail = 6;
  expect_block ("block: no heap memory: a freed block an error names",
                &bare_ops, U (c_q) + 50, HI_OK,
                "0x%" PRIx64 " is 50 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (from heap error 1's record: a snapshot holds no "
                "heap memory), allocated by " P_MAKE ", freed by " P_DROP
                "; heap error 1 of -t errors names it", U (c_q) + 50, U (c_q));
  im.root.snapshot_realtime_ns = 0;
  expect_block ("block: unreadable heap: a freed block an error names",
                &bare_ops, U (c_q), HI_OK,
                "0x%" PRIx64 " is 0 bytes into a freed 100-byte block at 0x%"
                PRIx64 " (from heap error 1's record: its memory cannot be "
                "read), allocated by " P_MAKE ", freed by " P_DROP "; heap "
                "error 1 of -t errors names it", U (c_q), U (c_q));
  hi_status rs;
  char *rjson = block_text (&bare_ops, U (c_q), &rs, HI_JSON);
  check (rs == HI_OK && rjson && strstr (rjson, "\"state\": \"freed\"")
         && strstr (rjson, "\"from_records\": 1")
         && strstr (rjson, "\"where\": \"unreadable\"")
         && strstr (rjson, "\"error\": 1"),
         "block: JSON of a block from the records", "%s",
         rjson ? rjson : "(null)");
  free (rjson);
  im.root.snapshot_realtime_ns = 1;
  rjson = block_text (&bare_ops, U (c_a) + 8, &rs, HI_JSON);
  check (rs == HI_OK && rjson && strstr (rjson, "\"state\": \"recorded\"")
         && strstr (rjson, "\"from_records\": 1")
         && strstr (rjson, "\"where\": \"not_in_snapshot\""),
         "block: JSON of a block an interior free names", "%s",
         rjson ? rjson : "(null)");
  free (rjson);

  /* JSON: the state and the figures as keys. */
  image_v5 ();
  hi_status s;
  char *json = block_text (&image_ops, U (c_q) + 12, &s, HI_JSON);
  char want[256];
  snprintf (want, sizeof want, "\"address\": \"0x%" PRIx64 "\", \"state\": "
            "\"quarantined\", \"block\": \"0x%" PRIx64 "\", \"size\": 100, "
            "\"offset\": 12", U (c_q) + 12, U (c_q));
  check (json && strstr (json, want) && strstr (json, "\"thread\": 77")
         && strstr (json, "\"freed_by\": [{\"function\": \"0x1002\""),
         "block: JSON of a quarantined block", "%s", json ? json : "(null)");
  free (json);
}

/* The errors table of the image as text (free it). */
static char *
errors_text (enum hi_format format, hi_status *s)
{
  struct hi_model *m;
  char *text = NULL;
  size_t len = 0;
  *s = load_with (&image_ops, &m);
  if (*s != HI_OK)
    return NULL;
  struct hi_options o = opts;
  o.format = format;
  FILE *f = open_memstream (&text, &len);
  *s = hi_report (m, NULL, "img", "errors", &o, f, NULL);
  fclose (f);
  hi_model_free (m);
  return text;
}

static void
add_error (struct hi_error e)
{
  struct hi_arena_desc *d = find (HI_ARENA_ERRORS);
  im.errors[d->count++] = e;
  im.root.errors_total++;
}

static void
every_error (void)
{
  add_error ((struct hi_error) { .kind = HI_ERR_DOUBLE_FREE,
             .when = HI_WHEN_FREE, .addr = U (c_q), .block = U (c_q),
             .block_size = 100, .alloc_site = 1, .free_site = 2,
             .call_site = 3, .tid = 77, .time_ns = 5 });
  add_error ((struct hi_error) { .kind = HI_ERR_INTERIOR_FREE,
             .when = HI_WHEN_REALLOC, .addr = U (c_a) + 8, .block = U (c_a),
             .block_size = 24, .alloc_site = 1, .call_site = 3,
             .offset = 8, .tid = 78 });
  add_error ((struct hi_error) { .kind = HI_ERR_NOT_HEAP,
             .when = HI_WHEN_FREE, .addr = STACK_AT + 0x100,
             .call_site = 3, .where_kind = HI_WHERE_STACK, .tid = 79 });
  add_error ((struct hi_error) { .kind = HI_ERR_HEADER_CORRUPT,
             .when = HI_WHEN_FREE, .addr = U (c_s), .block = U (c_s),
             .call_site = 3, .other = U (c_o), .other_size = 24,
             .other_site = 4, .tid = 80 });
  add_error ((struct hi_error) { .kind = HI_ERR_WRITE_AFTER_FREE,
             .when = HI_WHEN_EVICT, .addr = U (c_q), .block = U (c_q),
             .block_size = 100, .alloc_site = 1, .free_site = 2,
             .offset = 40, .tid = 81 });
  add_error ((struct hi_error) { .kind = HI_ERR_REDZONE,
             .when = HI_WHEN_SNAPSHOT, .addr = U (c_a), .block = U (c_a),
             .block_size = 24, .alloc_site = 1, .offset = 25, .tid = 82 });
  /* glibc holds the block again: no size, no chains but the call. */
  add_error ((struct hi_error) { .kind = HI_ERR_DOUBLE_FREE,
             .when = HI_WHEN_FREE, .addr = U (c_t), .block = U (c_t),
             .call_site = 3, .tid = 83 });
}

static void
test_errors_table (void)
{
  image_v5 ();
  every_error ();
  im.root.errors_total += 3;    /* three more found, not recorded */
  hi_status s;
  char *got = errors_text (HI_TEXT, &s);
  char want[8192];
  snprintf (want, sizeof want,
    "--------- Heap Errors ---------\n"
    "every heap error the monitor recorded, in the order found; chains as "
    "leak paths (--depth), each frame with its file:line\n\n"
    "1. double free in free(0x%" PRIx64 "): the 100-byte block at 0x%" PRIx64
    " was already freed (thread 77)\n"
    "    allocated by " P_MAKE "\n"
    "    first freed by " P_DROP "\n"
    "    this free by " P_BAD "\n"
    "2. invalid free in realloc(0x%" PRIx64 "): a pointer 8 bytes into the "
    "24-byte block at 0x%" PRIx64 ", not its start (thread 78)\n"
    "    allocated by " P_MAKE "\n"
    "    this realloc by " P_BAD "\n"
    "3. invalid free in free(0x%" PRIx64 "): not a heap block, on the "
    "thread's stack (thread 79)\n"
    "    this free by " P_BAD "\n"
    "4. heap corruption in free(0x%" PRIx64 "): the header of the block at "
    "0x%" PRIx64 " is overwritten (thread 80)\n"
    "    this free by " P_BAD "\n"
    "    the block before it, the likely overflow: the 24-byte block at 0x%"
    PRIx64 ", whose end is 8 bytes before that header, allocated by "
    P_OTHER "\n"
    "5. write after free found as it left the quarantine: the 100-byte "
    "block at 0x%" PRIx64 " was written after its free, first 40 bytes into "
    "it (thread 81)\n"
    "    allocated by " P_MAKE "\n"
    "    first freed by " P_DROP "\n"
    "6. overflow found while a snapshot was written: the redzone of the "
    "24-byte block at 0x%" PRIx64 " was written, first 1 byte past its end "
    "(thread 82)\n"
    "    allocated by " P_MAKE "\n"
    "7. double free in free(0x%" PRIx64 "): the block at 0x%" PRIx64 " was "
    "already freed and given back to malloc (its size and chain are gone) "
    "(thread 83)\n"
    "    this free by " P_BAD "\n"
    "(3 more errors not recorded: the monitor keeps the first 7)\n",
    U (c_q), U (c_q), U (c_a) + 8, U (c_a), STACK_AT + 0x100, U (c_s),
    U (c_s), U (c_o), U (c_q), U (c_a), U (c_t), U (c_t));
  const char *table = got ? strstr (got, "--------- Heap Errors") : NULL;
  check (s == HI_OK && table && strcmp (table, want) == 0,
         "errors: every kind, in order, with its chains",
         "status %d, got [%s]\nwant [%s]", (int) s, table ? table : "(null)",
         want);
  check (got && strstr (got, "\n  errors     10 heap errors found, the first "
                        "7 recorded: -t errors lists them\n"),
         "errors: the summary's line", "%s", got ? got : "(null)");
  free (got);

  got = errors_text (HI_JSON, &s);
  char key[256];
  snprintf (key, sizeof key, "{\"allocated_by\": [{\"function\": \"0x1002\"");
  check (s == HI_OK && got && strstr (got, "\"errors_total\": 10")
         && strstr (got, "\"errors_recorded\": 7")
         && strstr (got, "\"kind\": \"double_free\", \"when\": \"free\"")
         && strstr (got, "\"kind\": \"not_heap\"")
         && strstr (got, "\"where\": \"stack\"")
         && strstr (got, "\"first_freed_by\": [{\"function\": \"0x1002\"")
         && strstr (got, "\"block_before_size\": 24")
         && strstr (got, key) && !strstr (got, "more errors"),
         "errors: JSON", "%s", got ? got : "(null)");
  free (got);

  /* A write after free found while a snapshot was written (the block
     still held), from its first byte; a pointer 1 byte in. */
  image_v5 ();
  add_error ((struct hi_error) { .kind = HI_ERR_WRITE_AFTER_FREE,
             .when = HI_WHEN_SNAPSHOT, .addr = U (c_q), .block = U (c_q),
             .block_size = 100, .alloc_site = 1, .free_site = 2,
             .offset = 0, .tid = 81 });
  add_error ((struct hi_error) { .kind = HI_ERR_INTERIOR_FREE,
             .when = HI_WHEN_FREE, .addr = U (c_a) + 1, .block = U (c_a),
             .block_size = 24, .alloc_site = 1, .call_site = 3,
             .offset = 1, .tid = 78 });
  got = errors_text (HI_TEXT, &s);
  snprintf (want, sizeof want,
    "1. write after free found while a snapshot was written: the 100-byte "
    "block at 0x%" PRIx64 ", held in the quarantine, was written after its "
    "free, from its first byte (thread 81)\n"
    "    allocated by " P_MAKE "\n"
    "    first freed by " P_DROP "\n"
    "2. invalid free in free(0x%" PRIx64 "): a pointer 1 byte into the "
    "24-byte block at 0x%" PRIx64 ", not its start (thread 78)\n",
    U (c_q), U (c_a) + 1, U (c_a));
  check (got && strstr (got, want), "errors: a write after free still held, "
         "from its first byte; 1 byte", "got [%s]\nwant [%s]",
         got ? got : "(null)", want);
  free (got);

  /* No errors; an input before format 5. */
  image_v5 ();
  got = errors_text (HI_TEXT, &s);
  check (got && strstr (got, "--------- Heap Errors ---------\nno heap "
                        "errors: the monitor found none\n")
         && !strstr (got, "  errors "), "errors: none", "%s",
         got ? got : "(null)");
  free (got);
}

/* Load the image as changed; it must load, with DAMAGE guards damage;
   then `block` and -t errors must answer. */
static void
expect_damage (const char *name, uint64_t damage, uint64_t n_errors,
               uint64_t n_quarantine)
{
  struct hi_model *m;
  hi_status s = load_with (&image_ops, &m);
  if (s != HI_OK)
    {
      check (0, name, "load: %s", hi_strerror (s));
      return;
    }
  check (m->damage.guards == damage && m->n_errors == n_errors
         && m->n_quarantine == n_quarantine && m->errors_total >= m->n_errors,
         name, "damage %" PRIu64 " errors %" PRIu64 " (total %" PRIu64
         ") quarantine %" PRIu64, m->damage.guards, m->n_errors,
         m->errors_total, m->n_quarantine);
  hi_model_free (m);
  char *text = errors_text (HI_TEXT, &s);
  hi_status bs;
  char *b = block_text (&image_ops, U (c_q) + 2, &bs, HI_TEXT);
  char what[300];
  snprintf (what, sizeof what, "%s: block and errors answer", name);
  check (s == HI_OK && text && strstr (text, "Heap Errors") && b
         && strstr (b, "bytes into a freed 100-byte block"), what,
         "status %d / %d", (int) s, (int) bs);
  free (text);
  free (b);
}

static void
test_hostile (void)
{
  image_v5 ();
  every_error ();
  expect_damage ("hostile: a whole image has no damage", 0, 7, 1);

  image_v5 ();
  every_error ();
  find (HI_ARENA_ERRORS)->count = UINT64_C(1) << 40;
  /* The zero entries past the real count are unknown kinds too. */
  expect_damage ("hostile: an error count beyond the arena's capacity", 2,
                 7, 1);

  image_v5 ();
  every_error ();
  find (HI_ARENA_ERRORS)->capacity = UINT64_MAX;
  find (HI_ARENA_ERRORS)->count = UINT64_MAX;
  expect_damage ("hostile: a huge error count and capacity", 3, 7, 1);

  image_v5 ();
  every_error ();
  im.errors[0].kind = 99;
  im.errors[1].kind = 0;
  expect_damage ("hostile: errors of unknown kinds are left out", 2, 5, 1);

  image_v5 ();
  every_error ();
  im.errors[0].alloc_site = 5;
  im.errors[0].free_site = UINT32_MAX;
  im.errors[1].call_site = 1000;
  im.errors[2].when = 77;
  im.errors[2].where_kind = 9;
  expect_damage ("hostile: sites, whens and wheres out of range", 3, 7, 1);

  image_v5 ();
  every_error ();
  im.root.errors_total = 2;
  expect_damage ("hostile: a total below the records", 1, 7, 1);

  image_v5 ();
  every_error ();
  find (HI_ARENA_ERRORS)->entry_size = 64;
  expect_damage ("hostile: an error arena of another entry size", 1, 0, 1);

  image_v5 ();
  every_error ();
  im.errors_readable = 0;
  expect_damage ("hostile: an error arena that cannot be read", 1, 0, 1);

  image_v5 ();
  im.root.quarantine_head = 7;
  im.root.quarantine_tail = 3;
  expect_damage ("hostile: ring positions that go back", 1, 0, 0);

  /* The newest 8 positions end in slots never written. */
  image_v5 ();
  im.root.quarantine_head = 0;
  im.root.quarantine_tail = UINT64_MAX;
  expect_damage ("hostile: more held than was ever written", 2, 0, 0);

  image_v5 ();
  im.root.quarantine_head = 5;
  im.root.quarantine_tail = 12;
  expect_damage ("hostile: positions past the slots written", 1, 0, 1);

  /* The ring wraps: positions SLOTS - 2 .. SLOTS + 1 are the last two
     slots and the first two. */
  image_v5 ();
  find (HI_ARENA_QUARANTINE)->count = HI_QUARANTINE_SLOTS;
  find (HI_ARENA_QUARANTINE)->capacity = HI_QUARANTINE_SLOTS;
  im.root.quarantine_head = HI_QUARANTINE_SLOTS - 2;
  im.root.quarantine_tail = HI_QUARANTINE_SLOTS + 2;
  im.ring[5].user = 0;
  im.ring[1] = (struct hi_freed) { chunks[c_q].user, 100, 1, 2, 88, 9 };
  im.ring[0] = (struct hi_freed) { chunks[c_a].user + 3, 24, 1, 2, 1, 1 };
  im.ringhi[RING_CAP - 1] = (struct hi_freed) { chunks[c_b].user, 36, 77, 2,
                                                1, 1 };
  expect_damage ("hostile: a wrapped ring, an unaligned entry, a site out of "
                 "range", 2, 0, 2);
  struct hi_model *m;
  if (load_with (&image_ops, &m) == HI_OK)
    {
      const struct hi_freed *f = hi_model_quarantined (m, chunks[c_q].user);
      check (f && f->tid == 88 && hi_model_quarantined (m, chunks[c_b].user)
             && hi_model_quarantined (m, chunks[c_b].user)->alloc_site == 0
             && !hi_model_quarantined (m, chunks[c_a].user),
             "hostile: the wrapped ring's entries are found by address",
             "%p", (const void *) f);
      hi_model_free (m);
    }

  image_v5 ();
  find (HI_ARENA_QUARANTINE)->capacity = 0;
  expect_damage ("hostile: a ring written beyond its capacity", 1, 0, 0);

  image_v5 ();
  find (HI_ARENA_QUARANTINE)->entry_size = 48;
  expect_damage ("hostile: a ring of another entry size", 1, 0, 0);

  image_v5 ();
  find (HI_ARENA_QUARANTINE)->addr = 0x12345000;
  expect_damage ("hostile: a ring that cannot be read", 1, 0, 0);

  image_v5 ();
  im.root.redzone = UINT32_MAX;
  expect_damage ("hostile: a huge redzone", 1, 0, 1);

  /* A heap whose chunk sizes are lies: every address still answers. */
  image_v5 ();
  for (size_t i = 0; i < n_chunks; i++)
    put64 (chunks[i].at + 8, i % 2 ? 16 : UINT64_C(0xfffffffffffffff0));
  int ok = 1;
  for (uint64_t a = HEAP_AT; a < HEAP_AT + 0x1200; a += 8)
    {
      hi_status bs;
      char *t = block_text (&image_ops, a, &bs, HI_TEXT);
      ok &= t != NULL && strstr (t, " is ") != NULL;
      free (t);
    }
  check (ok, "hostile: chunk sizes that lie: every address answers", "no");

  /* Older formats have no guard data and say so. */
  image_v5 ();
  every_error ();
  im.root.version = 4;
  im.root.root_size = HI_ROOT_SIZE_V4;
  if (load_with (&image_ops, &m) == HI_OK)
    {
      check (m->n_errors == 0 && m->n_quarantine == 0 && m->damaged == 0,
             "hostile: format 4 reads no guard data", "%" PRIu64,
             m->n_errors);
      hi_model_free (m);
    }
  hi_status s;
  char *t = errors_text (HI_TEXT, &s);
  check (t && strstr (t, "no heap error data: this input was written before "
                      "format 5"), "errors: format 4 says it has none", "%s",
         t ? t : "(null)");
  free (t);
}

/* Every 4-byte word of an error record, a ring entry and the root's
   guard fields set to 0, 1, all ones and a pattern: the image loads, and
   -t errors and block answer (the ASan build says there is no crash). */
static void
test_every_field (void)
{
  static const uint32_t values[] = { 0, 1, UINT32_MAX, 0x41414141u };
  int ok = 1, runs = 0;
  for (int what = 0; what < 3; what++)
    {
      size_t size = what == 0 ? sizeof (struct hi_error)
                    : what == 1 ? sizeof (struct hi_freed)
                    : offsetof (struct hi_root, client)
                      - offsetof (struct hi_root, guard_flags);
      for (size_t off = 0; off < size; off += 4)
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
          {
            image_v5 ();
            every_error ();
            char *p = what == 0 ? (char *) &im.errors[3]
                      : what == 1 ? (char *) &im.ring[5]
                      : (char *) &im.root.guard_flags;
            memcpy (p + off, &values[v], 4);
            struct hi_model *m;
            hi_status s = load_with (&image_ops, &m);
            if (s != HI_OK)
              {
                ok = 0;
                printf ("load failed: %d/%zu/%zu: %s\n", what, off, v,
                        hi_strerror (s));
                continue;
              }
            hi_model_free (m);
            char *t = errors_text (HI_TEXT, &s);
            hi_status bs;
            char *b = block_text (&image_ops, U (c_q) + 4, &bs, HI_TEXT);
            char *b2 = block_text (&image_ops, U (c_s), &bs, HI_JSON);
            ok &= t && strstr (t, "Heap Errors") && b && strstr (b, " is ")
                  && b2 && strstr (b2, "\"state\"");
            free (t);
            free (b);
            free (b2);
            runs++;
          }
    }
  check (ok && runs > 100, "hostile: every word of an error record, a ring "
         "entry and the root's guard fields", "%d runs", runs);
}

/* The chains of frees have no counters: no table lists them. */
static void
test_free_chains_unlisted (void)
{
  image_v5 ();
  every_error ();
  struct hi_model *m;
  if (load_with (&image_ops, &m) != HI_OK)
    {
      check (0, "tables: load", "no");
      return;
    }
  static const char *const formats[] = { "text", "json", "folded",
                                         "pprof-text" };
  for (size_t i = 0; i < 4; i++)
    {
      struct hi_options o = opts;
      o.threshold = 0;
      char err[200], name[128], *text = NULL;
      size_t len = 0;
      hi_option_set (&o, "format", formats[i], err, sizeof err);
      FILE *f = open_memstream (&text, &len);
      hi_status s = hi_report (m, NULL, "img", i < 2
                               ? "leaks,bins,direct,graph,peak,temporary"
                               : "leaks", &o, f, NULL);
      fclose (f);
      snprintf (name, sizeof name, "tables: no free or bad-call chain in "
                "any table (%s)", formats[i]);
      /* 0x1003 or 0x0000000000001003 (pprof-text). */
      check (s == HI_OK && text && strstr (text, "1003")
             && !strstr (text, "1004") && !strstr (text, "1005"), name,
             "status %d: %s", (int) s, text ? text : "(null)");
      free (text);
    }
  hi_model_free (m);
}

int
main (void)
{
  test_block_states ();
  test_errors_table ();
  test_hostile ();
  test_every_field ();
  test_free_chains_unlisted ();
  return failed;
}
