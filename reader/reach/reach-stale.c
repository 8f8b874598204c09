/* reach-stale.c - the stale headers the monitor's counters show (issue
   25).

   A header valid for its address is a live block only while the monitor
   counts it.  Two rules take stale ones out of the scan, and count them
   as skipped (skipped.stale_headers):
   1. a header in a chunk glibc holds free (reach-blocks.c, with
      hi_chunk_state: the next chunk's PREV_INUSE bit is clear);
   2. here: a chain cannot have more live blocks than its counters give
      it (allocations minus frees, every thread's: hi_model_site_live).
      They are exact in a core, a snapshot, a stopped process and gdb's
      inferior: each thread counts its own blocks, and lib/malloc.c
      clears a header's check word before the counts of a free.  It
      writes a new block's just before its counts, so a thread stopped
      in those few instructions shows one block more than its chain's
      counts, and the rule takes one of the chain for stale: the new
      one is reachable (a register holds it), so another if one is less
      reached.  A monitor before issue 25 left a valid header behind at
      each block glibc's realloc moved; in a chunk glibc keeps "in use"
      in its tcache or a fastbin (where a birth stamp before the header
      leaves the header whole), only the counts show it.
   When a chain has E blocks more than its counters, which E are stale
   the counts cannot say.  They are taken
   - by reach first: definitely lost, then indirectly lost, possibly
     lost, still reachable.  The program dropped its pointers to a block
     it gave back (realloc returned the new one); a live block has one,
     unless it leaked;
   - then by size: nearest to the surplus bytes per stale block (the
     chain's bytes found minus its live bytes, over E), so that with one
     stale block whose size is the surplus the bytes agree too;
   - then by address, lowest first (arbitrary, but stable).
   The scan then indexes and marks the rest again: a stale block's bytes
   are no pointers, nor does it lead a clique.  Where the counters cannot
   bound what was found (hi_model_site_counts_exact: damaged, or read
   while the process ran), nothing is taken out.
   What neither rule sees: a stale header in memory glibc has since
   handed out again, whose bytes cover a live block (the search steps
   over a block's bytes, so that block is not found).  Of another chain,
   the counts show one stale block and one missing; of the same chain
   they agree, and the stale block stays in the figures.  Only a monitor
   before issue 25 leaves such headers (its realloc), and only in old
   cores and processes. */
#include "model/chunk.h"
#include "reach/reach-int.h"
#include "util/sort.h"

#include <stdlib.h>

/* A block of a chain with a surplus, as a candidate. */
struct cand
{
  uint32_t site;
  uint32_t rank;             /* 0 definitely lost ... 3 reachable */
  uint64_t dist;             /* from the surplus bytes per stale block */
  uint64_t start;
  uint32_t i;                /* in s->b */
};

static const uint32_t rank_of_state[] = {
  [HI_ST_UNREACHED] = 0, [HI_ST_INDIRECT] = 1, [HI_ST_POSSIBLE] = 2,
  [HI_ST_REACHABLE] = 3
};

static int
cand_cmp (const void *x, const void *y)
{
  const struct cand *a = x, *b = y;
  int c = hi_cmp_u64 (a->site, b->site);
  if (c == 0)
    c = hi_cmp_u64 (a->rank, b->rank);
  if (c == 0)
    c = hi_cmp_u64 (a->dist, b->dist);
  return c ? c : hi_cmp_u64 (a->start, b->start);
}

hi_status
hi_scan_drop_stale (struct hi_scan *s, int *dropped)
{
  const struct hi_model *m = s->m;
  *dropped = 0;
  if (!s->n_blocks || !hi_model_site_counts_exact (m, s->n_threads != 0))
    return HI_OK;
  /* Per site: blocks and bytes found, then the surplus and its bytes
     per stale block. */
  uint64_t *found = calloc (m->n_sites + 1, 2 * sizeof *found);
  if (!found)
    return HI_E_NOMEM;
  uint64_t *bytes = found + m->n_sites + 1;
  for (uint32_t i = 0; i < s->n_blocks; i++)
    {
      found[s->b[i].site]++;
      bytes[s->b[i].site] += s->b[i].size;
    }
  uint64_t n_cand = 0;
  for (uint64_t site = 0; site < m->n_sites; site++)
    {
      uint64_t live, live_bytes;
      hi_model_site_live (m, site, &live, &live_bytes);
      if (found[site] > live)
        {
          n_cand += found[site];
          uint64_t surplus = found[site] - live;
          bytes[site] = bytes[site] > live_bytes
                        ? (bytes[site] - live_bytes) / surplus : 0;
          found[site] = surplus;
        }
      else
        found[site] = 0;
    }
  if (!n_cand)
    {
      free (found);
      return HI_OK;
    }
  struct cand *c = malloc (n_cand * sizeof *c);
  if (!c)
    {
      free (found);
      return HI_E_NOMEM;
    }
  uint64_t n = 0;
  for (uint32_t i = 0; i < s->n_blocks; i++)
    {
      const struct hi_sblock *b = &s->b[i];
      if (!found[b->site])
        continue;
      uint64_t want = bytes[b->site];
      c[n++] = (struct cand) { b->site, rank_of_state[b->state],
                               b->size > want ? b->size - want
                                              : want - b->size,
                               b->start, i };
    }
  qsort (c, n, sizeof *c, cand_cmp);
  /* The first SURPLUS of each site's run are stale: flagged (pending 2,
     which the marking, over now, never leaves), then left out. */
  for (uint64_t k = 0; k < n; k++)
    if (found[c[k].site])
      {
        found[c[k].site]--;
        s->b[c[k].i].pending = 2;
        s->r->skipped.stale_headers++;
      }
  free (c);
  free (found);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < s->n_blocks; i++)
    if (s->b[i].pending != 2)
      {
        s->b[kept] = s->b[i];
        s->b[kept].state = HI_ST_UNREACHED;
        s->b[kept].pending = 0;
        kept++;
      }
  s->n_blocks = kept;
  *dropped = 1;
  return HI_OK;
}
