/* reach-blocks.c - every live block of ours in a target, found by its
   header, and the heap memory holding them.

   The monitor keeps no list of its blocks, so they are found the way
   `heapinspect block` finds one: by their headers.  Every 16-aligned
   position of every readable and writable mapping (the monitor's arenas
   left out) is a candidate header; one whose check word is right for its
   own address, the process's salt, its site and size is a live block
   (random data passes with odd 2^-32; a stale copy elsewhere never, the
   address is in the check).  The size must fit in the mapping.  A
   block's user bytes are not searched for further headers, so the search
   reads each header once and steps over the blocks: it costs a read of
   the heap and a check per block and per 16 free bytes.

   Which memory is malloc's heap (not a root: its free chunks keep stale
   pointers) follows from where the blocks are: glibc's chunk header
   before each block says whether the chunk was mmapped on its own.  A
   mapping holding a block of an arena (the brk heap, a non-main arena's
   heap) is heap memory whole; of a mapping holding only mmapped chunks,
   those chunks are.  A non-main arena's heap is only its used part, as
   its heap_info says: a thread's stack mapped right below it may share
   its mapping. */
#define _GNU_SOURCE
#include "target/target.h"
#include "model/chunk.h"
#include "reach/reach-int.h"
#include "util/vec.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t) 1 << 20)  /* bytes searched per read */
#define MARGIN 64u                /* bytes read before a piece: chunk
                                     headers of its first block */
#define PAGE 4096u
#define IS_MMAPPED 2u             /* glibc's chunk size bits */
#define NON_MAIN_ARENA 4u
#define HEAP_MAX ((uint64_t) 64 << 20) /* glibc's HEAP_MAX_SIZE (64-bit):
                                     a non-main arena's heaps are aligned
                                     to it, their heap_info first */

/* A block to record; blocks come in address order. */
static int
add_block (struct hi_scan *s, uint64_t user, uint64_t size, uint32_t site)
{
  if (hi_grow32 ((void **) &s->b, &s->cap_blocks, (size_t) s->n_blocks + 1,
                 sizeof *s->b) != 0)
    return -1;
  s->b[s->n_blocks] = (struct hi_sblock) { user, size, site, 0, 0, 0 };
  s->n_blocks++;
  return 0;
}

/* 8 bytes at ADDR: from BUF (holding [LO, HI)) if there, else read. */
static int
word_at (const struct hi_scan *s, const unsigned char *buf, uint64_t lo,
         uint64_t hi, uint64_t addr, uint64_t *out)
{
  if (addr >= lo && addr + 8 <= hi)
    {
      memcpy (out, buf + (addr - lo), 8);
      return 0;
    }
  return s->t->ops->read_memory (s->t->ctx, addr, out, 8);
}

/* word_at as hi_chunk_read_fn. */
struct piece
{
  const struct hi_scan *s;
  const unsigned char *buf;
  uint64_t lo, hi;
};

static int
piece_word (void *ctx, uint64_t addr, uint64_t *out)
{
  const struct piece *p = ctx;
  return word_at (p->s, p->buf, p->lo, p->hi, addr, out);
}

/* Search [A, B) of mapping E for headers.  *ARENA_HEAP is set when a
   block of the main arena is found (or of a heap whose heap_info makes
   no sense); *LAST_HEAP is the last non-main heap seen. */
static hi_status
search (struct hi_scan *s, const struct hi_map_entry *e, uint64_t a,
        uint64_t b, unsigned char *own, int *arena_heap, uint64_t *last_heap)
{
  const uint32_t salt = s->m->root.header_salt;
  const uint64_t n_sites = s->m->n_sites;
  const uint64_t birth = s->m->root.version >= 4 ? s->m->root.birth_size : 0;
  uint64_t h = (a + 15) & ~(uint64_t) 15;
  while (h < b && b - h >= 16 && !hi_scan_stop (s))
    {
      uint64_t c1 = b - h > CHUNK ? h + CHUNK : b;
      uint64_t lo = h - a > MARGIN ? h - MARGIN : a;
      uint64_t hi = b - c1 > 16 ? c1 + 16 : b;
      /* A core's bytes where they lie (no copy), else read. */
      const unsigned char *buf = hi_target_core_view (s->t, lo, hi - lo);
      if (!buf && s->t->ops->read_memory (s->t->ctx, lo, own, hi - lo) == 0)
        buf = own;
      if (!buf)
        {
          s->r->skipped.unreadable_bytes += c1 - h;
          h = (c1 + 15) & ~(uint64_t) 15;
          continue;
        }
      for (; h < c1 && hi - h >= 16; h += 16)
        {
          struct hi_block_header hd;
          memcpy (&hd, buf + (h - lo), sizeof hd);
          uint64_t user = h + 16;
          uint64_t size = hd.size_flags & HI_BLOCK_SIZE_MASK;
          if (size > e->end - user)
            continue;
          uint32_t want = hi_block_check (salt, h, hd.site, hd.size_flags);
          int live = hd.check == want;
          if (!live && hd.check != (want ^ HI_CHECK_QUARANTINED))
            continue;
          if (hd.site != HI_SITE_INTERNAL && hd.site >= n_sites)
            {
              s->r->skipped.bad_headers++;
              continue;
            }
          /* glibc's chunk: before the birth stamp, or for an aligned
             block at the distance stored before that. */
          uint64_t base = h - birth;
          if (hd.size_flags & HI_BLOCK_ALIGNED)
            {
              uint64_t off;
              if (h < birth + 8
                  || word_at (s, buf, lo, hi, h - birth - 8, &off) != 0
                  || off <= birth || (off & 15) != 0 || off > h)
                {
                  s->r->skipped.bad_headers++;
                  continue;
                }
              base = h - off;
            }
          /* A header in a chunk glibc holds free is stale (chunk.h):
             no block, and its bytes are searched, not stepped over. */
          struct piece pc = { s, buf, lo, hi };
          if (live && hi_chunk_state (piece_word, &pc, base, user + size,
                                      e->end) == HI_CHUNK_FREE)
            {
              s->r->skipped.stale_headers++;
              continue;
            }
          uint64_t chunk_size, prev_size;
          if (base >= 16 && word_at (s, buf, lo, hi, base - 8, &chunk_size) == 0
              && (chunk_size & IS_MMAPPED)
              && word_at (s, buf, lo, hi, base - 16, &prev_size) == 0)
            {
              uint64_t cs = base - 16, ce = cs + (chunk_size & ~(uint64_t) 7);
              uint64_t ms = prev_size <= cs - e->start ? cs - prev_size
                                                       : e->start;
              if (ce < cs || ce > e->end || ce < user + size)
                ce = user + size;
              if (hi_ranges_add (&s->heap, ms, ce))
                return HI_E_NOMEM;
            }
          else if (base >= 16 && (chunk_size & NON_MAIN_ARENA))
            {
              uint64_t hs = (base - 16) & ~(HEAP_MAX - 1), hsize;
              if (hs != *last_heap)
                {
                  *last_heap = hs;
                  if (hs >= e->start
                      && word_at (s, buf, lo, hi, hs + 16, &hsize) == 0
                      && hsize <= HEAP_MAX && hsize <= e->end - hs
                      && hs + hsize >= user + size)
                    {
                      if (hi_ranges_add (&s->heap, hs, hs + hsize))
                        return HI_E_NOMEM;
                    }
                  else
                    *arena_heap = 1;
                }
            }
          else
            *arena_heap = 1;
          if (live && hd.site != HI_SITE_INTERNAL
              && add_block (s, user, size, hd.site))
            return HI_E_NOMEM;
          /* Step over the block: the next header is past its bytes. */
          uint64_t next = (user + size + 15) & ~(uint64_t) 15;
          if (next < user)
            return HI_OK;
          h = next - 16;
          if (h >= c1)
            {
              h = next;
              break;
            }
        }
    }
  return HI_OK;
}

/* Index the blocks lying in heap range R as a span. */
static int
add_span (struct hi_scan *s, const struct hi_range *r, uint32_t *i)
{
  uint32_t first = *i;
  while (*i < s->n_blocks && s->b[*i].start < r->end)
    (*i)++;
  if (*i == first)
    return 0;
  struct hi_span *sp = &s->spans[s->n_spans];
  sp->first = first;
  sp->last = *i;
  sp->start = s->b[first].start & ~(uint64_t) (PAGE - 1);
  uint32_t l = *i - 1;
  sp->end = s->b[l].start + (s->b[l].size ? s->b[l].size : 1);
  uint64_t pages = (sp->end - sp->start + PAGE - 1) / PAGE;
  sp->page = malloc (pages * sizeof *sp->page);
  if (!sp->page)
    return -1;
  uint32_t k = first;
  for (uint64_t p = 0; p < pages; p++)
    {
      uint64_t at = sp->start + p * PAGE;
      while (k < sp->last && s->b[k].start + (s->b[k].size ? s->b[k].size : 1) <= at)
        k++;
      sp->page[p] = k;
    }
  s->n_spans++;
  return 0;
}

/* Whether E, not in the target, is the monitor's timeline scratch: an
   anonymous mapping of 16 bytes per site it can ever hold (lib/monitor.h's
   HI_CAP_SITES, 2^19: 8 MiB), which it keeps out of cores (it holds
   sums, no pointers) and does not list in the root. */
#define MONITOR_SCRATCH ((uint64_t) 16 << 19)
static int
monitor_scratch (const struct hi_scan *s, const struct hi_map_entry *e)
{
  (void) s;
  return !e->path[0] && e->end - e->start == MONITOR_SCRATCH;
}

/* Whether E lies wholly in the monitor's own memory (its arenas, its
   private region): not a root, and not missing by accident. */
static int
monitor_memory (const struct hi_scan *s, const struct hi_map_entry *e)
{
  for (size_t k = 0; k < s->monitor.n; k++)
    if (s->monitor.v[k].start <= e->start && e->end <= s->monitor.v[k].end)
      return 1;
  return 0;
}

hi_status
hi_scan_blocks (struct hi_scan *s)
{
  unsigned char *buf = malloc (CHUNK + MARGIN + 16);
  if (!buf)
    return HI_E_NOMEM;
  hi_status st = HI_OK;
  size_t k = 0;                 /* the monitor's next range */
  for (size_t i = 0; i < s->n_maps && st == HI_OK; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      if (!hi_scan_map_is_root (e))
        continue;
      if (!e->in_target)
        {
          if (monitor_scratch (s, e) || monitor_memory (s, e))
            continue;
          s->r->skipped.mappings++;
          s->r->skipped.mapping_bytes += e->end - e->start;
          continue;
        }
      int arena_heap = 0;
      uint64_t last_heap = 1;
      /* E without the monitor's arenas. */
      uint64_t at = e->start;
      while (k < s->monitor.n && s->monitor.v[k].end <= at)
        k++;
      for (size_t j = k; at < e->end && st == HI_OK; j++)
        {
          uint64_t stop = j < s->monitor.n && s->monitor.v[j].start < e->end
                          ? s->monitor.v[j].start : e->end;
          if (stop > at)
            st = search (s, e, at, stop, buf, &arena_heap, &last_heap);
          if (stop == e->end)
            break;
          at = s->monitor.v[j].end;
        }
      if (arena_heap && hi_ranges_add (&s->heap, e->start, e->end))
        st = HI_E_NOMEM;
    }
  free (buf);
  if (st != HI_OK)
    return st;
  hi_ranges_normalize (&s->heap);
  return hi_scan_index (s);
}

hi_status
hi_scan_index (struct hi_scan *s)
{
  for (size_t i = 0; i < s->n_spans; i++)
    free (s->spans[i].page);
  free (s->spans);
  s->n_spans = 0;
  s->lo = s->hi = 0;
  s->spans = calloc (s->heap.n + 1, sizeof *s->spans);
  if (!s->spans)
    return HI_E_NOMEM;
  uint32_t b = 0;
  for (size_t i = 0; i < s->heap.n; i++)
    {
      /* blocks before this range (none should be) are skipped */
      while (b < s->n_blocks && s->b[b].start < s->heap.v[i].start)
        b++;
      if (add_span (s, &s->heap.v[i], &b))
        return HI_E_NOMEM;
    }
  if (s->n_spans)
    {
      s->lo = s->spans[0].start;
      s->hi = s->spans[s->n_spans - 1].end;
    }
  return HI_OK;
}

/* The span holding ADDR, or NULL. */
static const struct hi_span *
span_of (const struct hi_scan *s, uint64_t addr)
{
  if (addr - s->lo >= s->hi - s->lo)
    return NULL;
  size_t lo = hi_upper_bound_u64 (s->spans, s->n_spans, sizeof *s->spans,
                                   offsetof (struct hi_span, start), addr);
  if (lo == 0)
    return NULL;
  const struct hi_span *sp = &s->spans[lo - 1];
  return addr < sp->end ? sp : NULL;
}

void
hi_scan_prefetch (const struct hi_scan *s, uint64_t addr, int stage)
{
  const struct hi_span *sp = span_of (s, addr);
  if (!sp)
    return;
  const uint32_t *page = &sp->page[(addr - sp->start) / PAGE];
  if (stage == 0)
    __builtin_prefetch (page);
  else
    __builtin_prefetch (&s->b[*page]);
}

int64_t
hi_scan_find (const struct hi_scan *s, uint64_t addr)
{
  const struct hi_span *sp = span_of (s, addr);
  if (!sp)
    return -1;
  uint64_t p = (addr - sp->start) / PAGE;
  uint64_t pages = (sp->end - sp->start + PAGE - 1) / PAGE;
  uint32_t i = sp->page[p];
  uint32_t j = p + 1 < pages ? sp->page[p + 1] + 1 : sp->last;
  if (j > sp->last)
    j = sp->last;
  /* The block holding ADDR, if any, is the last one in [i, j) starting
     at or before it. */
  while (j - i > 8)
    {
      uint32_t mid = i + (j - i) / 2;
      if (s->b[mid].start <= addr)
        i = mid;
      else
        j = mid;
    }
  for (; i < j && s->b[i].start <= addr; i++)
    if (addr - s->b[i].start < (s->b[i].size ? s->b[i].size : 1))
      return i;
  return -1;
}
