/* table-stat.c - the `stat` table: totals, table sizes, cache hit rate. */
#include "hi-reader.h"

#include <inttypes.h>
#include <string.h>

void
hi_stat_compute (const struct hi_model *m, struct hi_stat *s)
{
  const struct hi_totals *t = &m->root.totals;
  memset (s, 0, sizeof *s);
  s->allocations = t->allocations;
  s->frees = t->frees;
  s->bytes_allocated = t->bytes_allocated;
  s->bytes_freed = t->bytes_freed;
  s->live_blocks = t->live_blocks;
  s->live_bytes = t->live_bytes;
  s->peak_bytes = t->peak_bytes;
  s->foreign_frees = t->foreign_frees;
  s->chains_truncated = t->chains_truncated;
  s->chains_dropped = t->chains_dropped;
  s->internal_allocations = t->internal_allocs;
  memcpy (s->calls, t->calls, sizeof s->calls);
  /* Site 0 and nodes 0 and 1 are the monitor's placeholders. */
  s->sites = m->n_sites > 0 ? m->n_sites - 1 : 0;
  s->pairs = m->n_nodes > 2 ? m->n_nodes - 2 : 0;
  s->threads = m->n_threads;
  s->modules = m->n_modules;
  for (uint64_t i = 0; i < m->n_threads; i++)
    {
      s->chains += m->threads[i].chains;
      s->frames += m->threads[i].frames;
      s->frames_cached += m->threads[i].frames_cached;
    }
  s->damaged = m->damaged;
}

void
hi_stat_print (const struct hi_stat *s, FILE *f)
{
#define KEY(name) fprintf (f, "%s: %" PRIu64 "\n", #name, s->name)
  KEY (allocations);
  KEY (frees);
  KEY (bytes_allocated);
  KEY (bytes_freed);
  KEY (live_blocks);
  KEY (live_bytes);
  KEY (peak_bytes);
  KEY (foreign_frees);
  KEY (sites);
  KEY (pairs);
  fprintf (f, "prefix_cache_hit_rate: %.4f\n",
           s->frames ? (double) s->frames_cached / (double) s->frames : 0.0);
  KEY (threads);
  KEY (modules);
  KEY (chains);
  KEY (frames);
  KEY (frames_cached);
  KEY (chains_truncated);
  KEY (chains_dropped);
  KEY (internal_allocations);
  KEY (damaged);
#undef KEY
#define CALL_KEY(name) \
  fprintf (f, "calls_%s: %" PRIu64 "\n", #name, s->calls[HI_CALL_##name]);
  HI_ENTRY_POINTS (CALL_KEY)
#undef CALL_KEY
}
