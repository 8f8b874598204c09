/* glibc-chunk.c - the chunk of glibc's heap holding an address, and its
   state and neighbours, for `block` without the monitor: the heap
   holding the address (the brk heap from mp_.sbrk_base to the main
   arena's top, a non-main arena's heap, or an mmapped chunk's own
   mapping), then its chunks walked from the heap's first to the one
   holding the address, each size word checked. */
#define _GNU_SOURCE
#include "glibc/glibc.h"
#include "target/target.h"

#include <stdlib.h>
#include <string.h>


static int
size_word (const struct hi_glibc *g, const struct hi_target *t,
           uint64_t chunk, uint64_t *word)
{
  return hi_glibc_word (g, t, chunk + 8, word);
}

#define PIECE ((uint64_t) 1 << 16)
#define PIECES 16u

/* A direct-mapped cache of a live process's memory in 64 KiB pieces:
   the walks read word by word, a process read costs a system call. */
struct hi_glibc_cache
{
  uint64_t base[PIECES];       /* the piece held, UINT64_MAX: none */
  unsigned char data[PIECES][PIECE];
};

struct hi_glibc_cache *
hi_glibc_cache_new (void)
{
  struct hi_glibc_cache *c = malloc (sizeof *c);
  if (c)
    for (unsigned i = 0; i < PIECES; i++)
      c->base[i] = UINT64_MAX;
  return c;
}

int
hi_glibc_word (const struct hi_glibc *g, const struct hi_target *t,
               uint64_t addr, uint64_t *v)
{
  /* A million chunks are a million reads: a core's bytes are read
     where they lie. */
  const void *in_core = hi_target_core_view (t, addr, 8);
  if (in_core)
    {
      memcpy (v, in_core, 8);
      return 0;
    }
  struct hi_glibc_cache *c = g ? g->cache : NULL;
  uint64_t base = addr & ~(PIECE - 1);
  if (c && addr - base <= PIECE - 8)
    {
      unsigned slot = (unsigned) (base / PIECE) % PIECES;
      if (c->base[slot] != base)
        {
          c->base[slot] = UINT64_MAX;
          if (t->ops->read_memory (t->ctx, base, c->data[slot], PIECE) == 0)
            c->base[slot] = base;
        }
      if (c->base[slot] == base)
        {
          memcpy (v, c->data[slot] + (addr - base), 8);
          return 0;
        }
    }
  /* Not cached (a piece not all readable: a mapping's end). */
  return t->ops->read_memory (t->ctx, addr, v, 8);
}

uint64_t
hi_glibc_first_chunk (uint64_t p)
{
  return p + ((16 - ((p + 16) & 15)) & 15);
}

/* The first entry of G->frees for CHUNK, or NULL. */
static const struct hi_glibc_free *
listed (const struct hi_glibc *g, uint64_t chunk)
{
  uint64_t lo = 0, hi = g->n_frees;
  while (lo < hi)
    {
      uint64_t mid = lo + (hi - lo) / 2;
      if (g->frees[mid].chunk < chunk)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < g->n_frees && g->frees[lo].chunk == chunk ? &g->frees[lo]
                                                         : NULL;
}

unsigned
hi_glibc_times_listed (const struct hi_glibc *g, uint64_t chunk)
{
  const struct hi_glibc_free *f = listed (g, chunk);
  unsigned n = 0;
  if (!f)
    return 0;
  for (uint64_t i = (uint64_t) (f - g->frees);
       i < g->n_frees && g->frees[i].chunk == chunk; i++)
    n++;
  return n;
}

/* Walk [START, END) of arena A's heap to the chunk holding ADDR. */
static int
walk_to (const struct hi_target *t, const struct hi_glibc *g,
         const struct hi_glibc_arena *a, uint64_t start, uint64_t end,
         uint64_t addr, struct hi_glibc_chunk *out)
{
  uint64_t p = start, prev = 0, prev_size = 0;
  for (uint64_t steps = 0; p < end && steps < (end - start) / 16 + 1;
       steps++)
    {
      uint64_t word;
      if (size_word (g, t, p, &word) != 0)
        return -1;
      uint64_t size = word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
      int is_top = p == a->top;
      if (size < (is_top ? 16 : HI_GLIBC_MIN_CHUNK) || (size & 15)
          || size > end - p)
        return -1;              /* a bad size word: damage */
      if (addr < p + size)
        {
          memset (out, 0, sizeof *out);
          out->chunk = p;
          out->size = size;
          out->arena = a->addr;
          out->main_arena = a->is_main;
          out->prev = prev;
          out->prev_size = prev_size;
          if (!is_top && p + size < end)
            {
              uint64_t next_word;
              out->next = p + size;
              if (size_word (g, t, out->next, &next_word) == 0)
                {
                  out->next_size = next_word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
                  const struct hi_glibc_free *f = listed (g, p);
                  if (f)
                    {
                      out->state = HI_GLIBC_FREE_LISTED;
                      out->listed = *f;
                    }
                  else
                    out->state = next_word & HI_GLIBC_PREV_INUSE
                                 ? HI_GLIBC_IN_USE : HI_GLIBC_FREE_UNLISTED;
                }
              else
                out->state = HI_GLIBC_IN_USE;
            }
          else
            out->state = is_top ? HI_GLIBC_TOP : HI_GLIBC_IN_USE;
          return 0;
        }
      if (is_top)
        return -1;
      prev = p;
      prev_size = size;
      p += size;
    }
  return -1;
}

/* An mmapped chunk holding ADDR: its mapping's start holds a chunk
   whose size word has HI_GLIBC_IS_MMAPPED (mappings of neighbouring chunks may
   have merged: walk them). */
static int
find_mmapped (const struct hi_glibc *g, const struct hi_target *t,
              uint64_t addr, struct hi_glibc_chunk *out)
{
  struct hi_map_entry e;
  if (hi_target_mapping_of (t, addr, &e) != 0)
    return -1;
  uint64_t p = e.start, prev = 0, prev_size = 0;
  while (p < e.end)
    {
      uint64_t word;
      if (size_word (g, t, p, &word) != 0 || !(word & HI_GLIBC_IS_MMAPPED))
        return -1;
      uint64_t size = word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
      if (size < 4096 || (size & 4095) || size > e.end - p)
        return -1;
      if (addr < p + size)
        {
          memset (out, 0, sizeof *out);
          out->chunk = p;
          out->size = size;
          out->state = HI_GLIBC_MMAPPED;
          out->prev = prev;
          out->prev_size = prev_size;
          return 0;
        }
      prev = p;
      prev_size = size;
      p += size;
    }
  return -1;
}

int
hi_glibc_find (const struct hi_target *t, const struct hi_glibc *g,
               uint64_t addr, struct hi_glibc_chunk *out)
{
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      if (a->is_main)
        {
          uint64_t start = hi_glibc_first_chunk (g->sbrk_base);
          uint64_t end = a->top + a->top_bytes;
          if (g->sbrk_base && addr >= start && addr < end)
            return walk_to (t, g, a, start, end, addr, out);
          continue;
        }
      for (uint64_t k = 0; k < a->n_heap_list; k++)
        {
          const struct hi_glibc_heap *h = &a->heap_list[k];
          if (addr < h->start || addr >= h->end)
            continue;
          /* The arena's first heap holds its malloc_state too. */
          uint64_t start = h->start + g->layout->heap_info_size;
          if (a->addr == start)
            start = hi_glibc_first_chunk (start + g->layout->state_size);
          return walk_to (t, g, a, start, h->end, addr, out);
        }
    }
  return find_mmapped (g, t, addr, out);
}

struct each
{
  const struct hi_target *t;
  const struct hi_glibc *g;
  int (*fn) (void *, uint64_t, uint64_t, int);
  int (*heap) (void *, uint64_t, uint64_t);
  void *ctx;
};

/* Whether CHUNK holds a thread's tcache_perthread_struct: malloc's own
   bookkeeping, not the program's (valgrind's malloc has none). */
static int
is_perthread (const struct hi_glibc *g, uint64_t chunk)
{
  for (uint64_t i = 0; i < g->n_tcaches; i++)
    if (g->tcaches[i].perthread == chunk + 16)
      return 1;
  return 0;
}

/* The in-use chunks of [START, END) of arena A. */
static int
each_in_heap (const struct each *e, const struct hi_glibc_arena *a,
              uint64_t start, uint64_t end)
{
  if (e->heap)
    {
      int r = e->heap (e->ctx, start, end);
      if (r)
        return r;
    }
  uint64_t p = start;
  for (uint64_t steps = 0; p < end && p != a->top
       && steps < (end - start) / 16 + 1; steps++)
    {
      uint64_t word, next_word;
      if (size_word (e->g, e->t, p, &word) != 0)
        return 0;
      uint64_t size = word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
      if (size < HI_GLIBC_MIN_CHUNK || (size & 15) || size > end - p
          || size_word (e->g, e->t, p + size, &next_word) != 0)
        return 0;               /* damage: verify names it */
      if ((next_word & HI_GLIBC_PREV_INUSE) && !listed (e->g, p)
          && !is_perthread (e->g, p))
        {
          int r = e->fn (e->ctx, p, size, 0);
          if (r)
            return r;
        }
      p += size;
    }
  return 0;
}

/* The first page at or after P, below END, that starts an mmapped
   chunk: its prev_size 0, its size word IS_MMAPPED alone, a whole
   number of pages up to END at most.  END if none. */
static uint64_t
next_mmapped (const struct hi_glibc *g, const struct hi_target *t,
              uint64_t p, uint64_t end)
{
  for (p &= ~(uint64_t) 4095; p < end; p += 4096)
    {
      uint64_t word, prev;
      if (size_word (g, t, p, &word) == 0
          && (word & HI_GLIBC_SIZE_BITS) == HI_GLIBC_IS_MMAPPED
          && (word & ~(uint64_t) HI_GLIBC_SIZE_BITS) >= 4096
          && (word & 4095) == HI_GLIBC_IS_MMAPPED
          && (word & ~(uint64_t) HI_GLIBC_SIZE_BITS) <= end - p
          && hi_glibc_word (g, t, p, &prev) == 0 && prev == 0)
        return p;
    }
  return end;
}

/* Whether ADDR is in the brk heap or a non-main arena's heap. */
static int
in_arena_heap (const struct hi_glibc *g, uint64_t addr)
{
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      if (a->is_main && g->sbrk_base && addr >= g->sbrk_base
          && addr < a->top + a->top_bytes)
        return 1;
      for (uint64_t k = 0; k < a->n_heap_list; k++)
        if (addr >= a->heap_list[k].start && addr < a->heap_list[k].end)
          return 1;
    }
  return 0;
}

int
hi_glibc_each_in_use (const struct hi_target *t, const struct hi_glibc *g,
                      int (*fn) (void *, uint64_t, uint64_t, int),
                      int (*heap) (void *, uint64_t, uint64_t), void *ctx)
{
  struct each e = { t, g, fn, heap, ctx };
  int r = 0;
  for (uint64_t i = 0; i < g->n_arenas && !r; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      if (a->is_main)
        {
          if (g->sbrk_base)
            r = each_in_heap (&e, a, hi_glibc_first_chunk (g->sbrk_base),
                              a->top + a->top_bytes);
          continue;
        }
      for (uint64_t k = 0; k < a->n_heap_list && !r; k++)
        {
          const struct hi_glibc_heap *h = &a->heap_list[k];
          uint64_t start = h->start + g->layout->heap_info_size;
          if (a->addr == start)
            start = hi_glibc_first_chunk (start + g->layout->state_size);
          if (heap && (r = heap (ctx, h->start, h->end)))
            break;
          e.heap = NULL;        /* the heap_info's start given above */
          r = each_in_heap (&e, a, start, h->end);
          e.heap = heap;
        }
    }
  /* Mmapped chunks: anonymous mappings whose start holds one (mappings
     of neighbouring chunks may have merged into one).  A mapping made
     later right below a chunk's (the kernel hands out addresses
     downwards) merges with it too: while fewer chunks are found than
     mp_.n_mmaps says, a second pass looks at each page of the mappings
     whose start holds none (a chunk's prev_size 0, its size word
     IS_MMAPPED alone, a whole number of pages inside the mapping). */
  uint64_t found = 0;
  for (int pass = 0; pass < 2 && !r; pass++)
    {
      if (pass == 1 && found >= g->mmapped_chunks)
        break;
      struct hi_map_entry m;
      for (size_t i = 0; !r && t->ops->mapping
           && t->ops->mapping (t->ctx, i, &m) == 0; i++)
        {
          if (m.path[0] || !(m.prot & HI_MAP_WRITE) || !m.in_target)
            continue;
          uint64_t p = m.start, word;
          int at_start = size_word (g, t, p, &word) == 0
                         && (word & HI_GLIBC_IS_MMAPPED)
                         && !(word & HI_GLIBC_PREV_INUSE);
          if (pass == 1)
            {
              if (at_start || in_arena_heap (g, m.start))
                continue;
              p = next_mmapped (g, t, p, m.end);
            }
          while (p < m.end && !r)
            {
              if (size_word (g, t, p, &word) != 0
                  || !(word & HI_GLIBC_IS_MMAPPED)
                  || (word & HI_GLIBC_PREV_INUSE))
                {
                  if (pass == 0 || found >= g->mmapped_chunks)
                    break;
                  p = next_mmapped (g, t, p + 4096, m.end);
                  continue;
                }
              uint64_t size = word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
              if (size < 4096 || (size & 4095) || size > m.end - p)
                break;
              found++;
              if (heap)
                r = heap (ctx, p, p + size);
              if (!r)
                r = fn (ctx, p, size, 1);
              p += size;
            }
        }
    }
  return r;
}
