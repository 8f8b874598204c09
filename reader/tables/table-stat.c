/* table-stat.c - the `stat` table: totals, table sizes, cache hit rate. */

#include <inttypes.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"

void
hi_stat_compute (const struct hi_model *m, struct hi_stat *s)
{
  const struct hi_totals *t = &m->root.totals;
  memset (s, 0, sizeof *s);
  for (uint64_t i = 0; i < m->n_threads; i++)
    {
      const struct hi_thread *th = &m->threads[i];
      s->allocations = hi_add_sat (s->allocations, th->allocations);
      s->frees = hi_add_sat (s->frees, th->frees);
      s->bytes_allocated = hi_add_sat (s->bytes_allocated, th->bytes_allocated);
      s->bytes_freed = hi_add_sat (s->bytes_freed, th->bytes_freed);
      for (int c = 0; c < HI_NCALLS; c++)
        s->calls[c] = hi_add_sat (s->calls[c], th->calls[c]);
    }
  /* Damaged counts (more freed than allocated) give 0, never a
     wrapped-around 18446744073709551615; the model counts the damage. */
  s->live_blocks = hi_sub0 (s->allocations, s->frees);
  s->live_bytes = hi_sub0 (s->bytes_allocated, s->bytes_freed);
  s->peak_bytes = t->peak_bytes;
  s->peak_blocks = t->peak_blocks;
  s->foreign_frees = t->foreign_frees;
  s->chains_truncated = t->chains_truncated;
  s->chains_dropped = t->chains_dropped;
  s->internal_allocations = t->internal_allocs;
  s->unwind_fallbacks = t->unwind_fallbacks;
  s->unwind_checked = t->unwind_checked;
  s->unwind_mismatches = t->unwind_mismatches;
  /* Site 0 and nodes 0 and 1 are the monitor's placeholders. */
  s->sites = m->n_sites > 0 ? m->n_sites - 1 : 0;
  s->pairs = m->n_nodes > 2 ? m->n_nodes - 2 : 0;
  s->threads = m->n_threads;
  s->modules = m->n_modules;
  for (uint64_t i = 0; i < m->n_threads; i++)
    {
      s->chains = hi_add_sat (s->chains, m->threads[i].chains);
      s->frames = hi_add_sat (s->frames, m->threads[i].frames);
      s->frames_cached = hi_add_sat (s->frames_cached,
                                     m->threads[i].frames_cached);
    }
  s->damaged = m->damaged;
  s->errors_total = m->errors_total;
  s->errors_recorded = m->n_errors;
  s->chains_instrumented = m->root.version >= 5
                           && m->root.client[HI_CLIENT_CHAINS]
                              == HI_CHAINS_INSTRUMENT;
  for (uint32_t i = 0; i < m->root.n_arenas
                       && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    {
      const struct hi_arena_desc *a = i < HI_MAX_ARENAS ? &m->root.arenas[i]
        : &m->root.more_arenas[i - HI_MAX_ARENAS];
      s->monitor_bytes = hi_add_sat (s->monitor_bytes,
                                     hi_mul_sat (a->count, a->entry_size));
    }
  s->pools = m->n_pools;
  for (uint64_t i = 0; i < m->n_pools; i++)
    {
      const struct hi_pool *p = &m->pools[i];
      s->pool_allocations = hi_add_sat (s->pool_allocations, p->allocs);
      s->pool_frees = hi_add_sat (s->pool_frees, p->frees);
      s->pool_bytes_allocated = hi_add_sat (s->pool_bytes_allocated,
                                            p->bytes);
      s->pool_bytes_freed = hi_add_sat (s->pool_bytes_freed,
                                        p->bytes_freed);
      s->pool_resets = hi_add_sat (s->pool_resets, p->resets);
    }
}

static const struct hi_column columns[] = {
  { .key = "key", .head = "key", .type = HI_CELL_TEXT },
  { .key = "value", .head = "value", .type = HI_CELL_COUNT },
};

static const char *const call_keys[] = {
#define HI_CALL_KEY(name) "calls_" #name,
  HI_ENTRY_POINTS (HI_CALL_KEY)
#undef HI_CALL_KEY
};

/* S as a key/value table of R. */
static hi_status
stat_table (const struct hi_stat *s, const struct hi_model *m,
            struct hi_rmodel *r)
{
  const struct { const char *key; uint64_t value; } keys[] = {
    { "allocations", s->allocations }, { "frees", s->frees },
    { "bytes_allocated", s->bytes_allocated },
    { "bytes_freed", s->bytes_freed }, { "live_blocks", s->live_blocks },
    { "live_bytes", s->live_bytes }, { "peak_bytes", s->peak_bytes },
    { "peak_blocks", s->peak_blocks },
    { "foreign_frees", s->foreign_frees }, { "sites", s->sites },
    { "pairs", s->pairs }, { NULL, 0 } /* prefix_cache_hit_rate */,
    { "threads", s->threads }, { "modules", s->modules },
    { "chains", s->chains }, { "frames", s->frames },
    { "frames_cached", s->frames_cached },
    { "chains_truncated", s->chains_truncated },
    { "chains_dropped", s->chains_dropped },
    { "internal_allocations", s->internal_allocations },
    { "damaged", s->damaged },
    { "unwind_fallbacks", s->unwind_fallbacks },
    { "unwind_checked", s->unwind_checked },
    { "unwind_mismatches", s->unwind_mismatches },
  };
  struct hi_table *t = hi_rmodel_table (r, "stat", "Totals", columns, 2);
  if (!t)
    return HI_E_NOMEM;
  t->keyvalue = 1;
  t->threshold = -1;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      if (keys[i].key)
        {
          c[0] = hi_cell_text (keys[i].key);
          c[1] = hi_cell_count (keys[i].value);
        }
      else
        {
          c[0] = hi_cell_text ("prefix_cache_hit_rate");
          c[1] = (struct hi_cell) { HI_CELL_RATE, NULL, s->frames_cached,
                                    s->frames };
        }
    }
  for (int k = 0; k < HI_NCALLS; k++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text (call_keys[k]);
      c[1] = hi_cell_count (s->calls[k]);
    }
  /* The client API's pools, when the program made any: their blocks are
     in none of the figures above. */
  const struct { const char *key; uint64_t value; } pool_keys[] = {
    { "pools", s->pools }, { "pool_allocations", s->pool_allocations },
    { "pool_frees", s->pool_frees },
    { "pool_bytes_allocated", s->pool_bytes_allocated },
    { "pool_bytes_freed", s->pool_bytes_freed },
    { "pool_live_blocks", hi_sub0 (s->pool_allocations, s->pool_frees) },
    { "pool_live_bytes", hi_sub0 (s->pool_bytes_allocated,
                                  s->pool_bytes_freed) },
    { "pool_resets", s->pool_resets },
  };
  for (size_t i = 0; s->pools && i < sizeof pool_keys / sizeof *pool_keys;
       i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text (pool_keys[i].key);
      c[1] = hi_cell_count (pool_keys[i].value);
    }
  /* Heap errors, when the monitor found any (-t errors lists them). */
  const struct { const char *key; uint64_t value; } error_keys[] = {
    { "heap_errors", s->errors_total },
    { "heap_errors_recorded", s->errors_recorded },
  };
  for (size_t i = 0; s->errors_total && i < 2; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text (error_keys[i].key);
      c[1] = hi_cell_count (error_keys[i].value);
    }
  /* An attached monitor: glibc's in-use chunks with no block of its
     (glibc-monitor.c), when they could be counted; read just before
     the attach where the input holds no heap (a snapshot at the end):
     unmonitored_at_attach says so. */
  const struct { const char *key; uint64_t value; } foreign_keys[] = {
    { "unmonitored_blocks", m ? m->foreign_blocks : 0 },
    { "unmonitored_bytes", m ? m->foreign_bytes : 0 },
    { "unmonitored_at_attach", 1 },
  };
  size_t n_foreign = m && m->attached && m->foreign_counted
                     ? (size_t) m->foreign_counted + 1 : 0;
  for (size_t i = 0; i < n_foreign; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text (foreign_keys[i].key);
      c[1] = hi_cell_count (foreign_keys[i].value);
    }
  /* An attached monitor: detached since (1), its figures those of the
     attached time, or recording (0). */
  if (m && m->attached)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text ("detached");
      c[1] = hi_cell_count ((uint64_t) m->detached);
    }
  if (s->chains_instrumented)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text ("chains_instrumented");
      c[1] = hi_cell_count (1);
    }
  return HI_OK;
}

hi_status
hi_table_stat (struct hi_analysis *a, struct hi_rmodel *r)
{
  struct hi_stat s;
  hi_stat_compute (a->m, &s);
  return stat_table (&s, a->m, r);
}
