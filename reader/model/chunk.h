/* chunk.h - whether a header valid for its address is a live block:
   what glibc's chunk around it says, and what the monitor's counters
   allow.  Shared by the leak scan (reach/) and `block ADDR`
   (tables/block.c), so that both refuse the same stale headers. */
#ifndef HI_CHUNK_H
#define HI_CHUNK_H

#include "model/model.h"

/* What glibc's own words say of a chunk (hi_chunk_state). */
enum hi_chunk
{
  HI_CHUNK_UNKNOWN,          /* a word unreadable or not believable */
  HI_CHUNK_MMAPPED,          /* mmapped on its own: no neighbour to ask */
  HI_CHUNK_IN_USE,           /* the next chunk's PREV_INUSE bit is set */
  HI_CHUNK_FREE              /* ... clear: glibc holds the chunk free */
};

/* Reads the 8 bytes at ADDR into *OUT with CTX; 0 on success. */
typedef int hi_chunk_read_fn (void *ctx, uint64_t addr, uint64_t *out);

/* The state of the chunk whose memory (what glibc's malloc returned:
   before our birth stamp and header, or an aligned block's base) is
   MEM, holding our block's bytes up to END; no word read at or past
   LIMIT (the end of the mapping).  The chunk's size word is at MEM - 8;
   the next chunk's at MEM - 16 + size + 8, whose bit 0 (PREV_INUSE)
   says whether this chunk is in use.  glibc keeps that bit set after
   every chunk in use (the top chunk's too), so a clear bit after a
   chunk whose size word still covers our block means the block was
   given back: a header there is stale (tcache and fastbin chunks keep
   the bit set: the counts find those, hi_model_site_live). */
enum hi_chunk hi_chunk_state (hi_chunk_read_fn *read, void *ctx, uint64_t mem,
                              uint64_t end, uint64_t limit);

/* The blocks and bytes the monitor's counters have live for SITE:
   allocations minus frees, every thread's summed. */
void hi_model_site_live (const struct hi_model *m, uint64_t site,
                         uint64_t *blocks, uint64_t *bytes);

/* Whether M's per-site counters can bound the headers found: none was
   corrected or dropped as damage, and they were read at the same moment
   as the memory (not a process read while it runs, with --no-stop:
   HAS_THREADS 0 for a live process). */
int hi_model_site_counts_exact (const struct hi_model *m, int has_threads);

#endif
