/* chunk.c - glibc's chunk around a block of ours, and the live count of
   a site: the two things that refuse a stale header (chunk.h). */
#include "model/chunk.h"

#define SIZE_BITS UINT64_C(7)
#define PREV_INUSE UINT64_C(1)
#define IS_MMAPPED UINT64_C(2)
#define CHUNK_MAX (UINT64_C(1) << 40)

enum hi_chunk
hi_chunk_state (hi_chunk_read_fn *read, void *ctx, uint64_t mem,
                uint64_t end, uint64_t limit)
{
  uint64_t sz, next_sz;
  if (mem < 16 || read (ctx, mem - 8, &sz) != 0)
    return HI_CHUNK_UNKNOWN;
  if (sz & IS_MMAPPED)
    return HI_CHUNK_MMAPPED;
  uint64_t size = sz & ~SIZE_BITS, chunk = mem - 16;
  /* An in-use chunk's bytes run to the next chunk's size word (its
     prev_size field is this chunk's last 8 bytes). */
  if (size < 32 || size % 16 != 0 || size >= CHUNK_MAX
      || end > chunk + size + 8 || chunk + size + 16 > limit
      || read (ctx, chunk + size + 8, &next_sz) != 0)
    return HI_CHUNK_UNKNOWN;
  return next_sz & PREV_INUSE ? HI_CHUNK_IN_USE : HI_CHUNK_FREE;
}

void
hi_model_site_live (const struct hi_model *m, uint64_t site,
                    uint64_t *blocks, uint64_t *bytes)
{
  *blocks = *bytes = 0;
  if (site >= m->n_sites)
    return;
  /* The model's counters are validated: frees never pass allocations
     per size class, no sum wraps. */
  const struct hi_site *s = &m->sites[site];
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    {
      *blocks += s->allocs[c] - s->frees[c];
      *bytes += s->bytes[c] - s->bytes_freed[c];
    }
}

int
hi_model_site_counts_exact (const struct hi_model *m, int has_threads)
{
  return m->damage.sites == 0 && m->damage.counters == 0
         && m->damage.threads == 0
         && (has_threads || m->read_source != HI_READ_LIVE);
}
