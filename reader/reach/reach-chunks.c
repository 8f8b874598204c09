/* reach-chunks.c - the blocks of a scan without the monitor: glibc's
   in-use chunks (glibc/glibc.h), each a block from its user memory
   (the chunk + 16) for its usable size (the chunk less its size word;
   an mmapped one less both words), as malloc_usable_size gives it.
   Their heaps are heap memory, not roots, as the monitor's heaps are.
   With an attached monitor, the same for the chunks it did not make
   (glibc-monitor.c), beside its own blocks. */
#define _GNU_SOURCE
#include "glibc/glibc.h"
#include "reach/reach-int.h"
#include "util/vec.h"

#include <stdlib.h>

/* How much less than a chunk's usable size the size asked for may have
   been.  glibc 2.36 gives request N a chunk of request2size (N) =
   (N + 8 + 15) & ~15 bytes, at least 32, or 16 more when what would
   be left of the free chunk it splits is less than 32 (its "exhaust"
   case): so a heap chunk of SIZE bytes (usable SIZE - 8) was asked for
   with at least SIZE - 16 - 23 bytes, 31 less than its usable size;
   one of 48 bytes by any request from 0 (slack 40), one of 32 by any
   up to 24 (slack 24).  An mmapped chunk is request2size (N) + 8
   rounded up to the page (4096 here), its usable size the chunk less
   16: the 4096 requests ending 7 bytes short of it (slack 4096 + 7). */
static uint16_t
chunk_slack (uint64_t size, int mmapped)
{
  if (mmapped)
    return 4096 + 7;
  return size <= 32 ? 24 : size <= 48 ? 40 : 31;
}

/* SITE of the blocks added: 0 without the monitor, its model's n_sites
   for the chunks an attached monitor did not make. */
static int
add_chunk (struct hi_scan *s, uint64_t chunk, uint64_t size, int mmapped,
           uint32_t site)
{
  if (hi_grow32 ((void **) &s->b, &s->cap_blocks, (size_t) s->n_blocks + 1,
                 sizeof *s->b) != 0)
    return -1;
  s->b[s->n_blocks++] = (struct hi_sblock) {
    chunk + 16, mmapped ? size - 16 : size - 8, site, 0, 0,
    chunk_slack (size, mmapped) };
  return 0;
}

static int
one_chunk (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  return add_chunk (ctx, chunk, size, mmapped, 0);
}

static int
one_foreign (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  struct hi_scan *s = ctx;
  return add_chunk (s, chunk, size, mmapped, (uint32_t) s->m->n_sites);
}

static int
one_heap (void *ctx, uint64_t start, uint64_t end)
{
  struct hi_scan *s = ctx;
  return hi_ranges_add (&s->heap, start, end) ? -1 : 0;
}

static int
by_start (const void *x, const void *y)
{
  const struct hi_sblock *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

hi_status
hi_scan_glibc_blocks (struct hi_scan *s, const struct hi_glibc *g)
{
  if (hi_glibc_each_in_use (s->t, g, one_chunk, one_heap, s) != 0)
    return HI_E_NOMEM;
  if (s->n_blocks > 1)
    qsort (s->b, s->n_blocks, sizeof *s->b, by_start);
  hi_ranges_normalize (&s->heap);
  return hi_scan_index (s);
}

hi_status
hi_scan_foreign_blocks (struct hi_scan *s, const struct hi_glibc *g)
{
  uint64_t before = s->n_blocks;
  if (hi_glibc_each_foreign (s->t, g, s->m, one_foreign, one_heap, s) != 0)
    return HI_E_NOMEM;
  s->r->foreign = 1;
  s->r->foreign_site = (uint32_t) s->m->n_sites;
  if (s->n_blocks > before)
    qsort (s->b, s->n_blocks, sizeof *s->b, by_start);
  hi_ranges_normalize (&s->heap);
  return hi_scan_index (s);
}
