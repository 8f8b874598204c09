/* summary.c - the figures that open every report: what ran, what it
   allocated and freed, its peak, what was live when read, what the depth
   cap cut, the monitor's own memory, and what went wrong reading it. */
#define _GNU_SOURCE

#include <inttypes.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"

/* Whether site S's chain was cut at the depth cap: its walk ends at the
   cut node (the model checked that walks end). */
static int
site_cut (const struct hi_model *m, uint64_t s)
{
  const struct hi_site *site = &m->sites[s];
  uint32_t node = site->node, d = 0;
  if (s == 0)
    return 0;
  while (node > HI_NODE_CUT && d < site->depth)
    node = m->nodes[node].parent, d++;
  return node == HI_NODE_CUT;
}

static void
problem (struct hi_rmodel *r, const char *text)
{
  struct hi_summary *s = &r->summary;
  if (s->n_problems < sizeof s->problems / sizeof s->problems[0])
    {
      const char *copy = hi_rmodel_strdup (r, text);
      if (copy)
        s->problems[s->n_problems++] = copy;
    }
}

hi_status
hi_summary_build (const struct hi_model *m, const struct hi_analysis *a,
                  unsigned missing, struct hi_rmodel *r)
{
  (void) a;
  struct hi_summary *s = &r->summary;
  struct hi_stat st;
  hi_stat_compute (m, &st);
  memset (s, 0, sizeof *s);
  r->has_summary = 1;
  s->pid = m->root.pid;
  s->command = m->command;
  s->run_ns = m->run_ns;
  s->read_ns = m->read_ns;
  s->run_until_core = m->read_source == HI_READ_CORE_FILE;
  s->attached = m->attached;
  s->attached_ns = m->attached_ns;
  s->detached = m->detached;
  s->detached_ns = m->detached_ns;
  s->foreign_counted = m->foreign_counted;
  s->foreign_blocks = m->foreign_blocks;
  s->foreign_bytes = m->foreign_bytes;
  s->foreign_why = m->foreign_why;
  s->allocations = st.allocations;
  s->frees = st.frees;
  s->bytes_allocated = st.bytes_allocated;
  s->bytes_freed = st.bytes_freed;
  s->peak_bytes = st.peak_bytes;
  /* The blocks live at the peak of bytes, where the chains say; else
     the most ever live (format 3 and older). */
  s->peak_blocks = m->has_time ? m->peak_chain_blocks : st.peak_blocks;
  s->live_bytes = st.live_bytes;
  s->live_blocks = st.live_blocks;
  s->depth_cap = m->root.max_depth;
  s->errors_total = m->errors_total;
  s->errors_recorded = m->n_errors;
  s->quarantine_limit = m->quarantine_limit;
  s->quarantine_bytes = m->quarantine_bytes;
  s->redzone = m->redzone;
  for (uint64_t i = 1; i < m->n_sites; i++)
    if (site_cut (m, i))
      {
        const struct hi_site *site = &m->sites[i];
        s->cut_chains++;
        for (int c = 0; c < HI_NSIZE_CLASSES; c++)
          {
            s->cut_bytes = hi_add_sat (s->cut_bytes, site->bytes[c]);
            s->cut_allocs = hi_add_sat (s->cut_allocs, site->allocs[c]);
          }
      }
  s->monitor_bytes = st.monitor_bytes;
  char text[512];
  if (m->damaged)
    {
      char what[400];
      hi_model_damage_text (m, what, sizeof what);
      snprintf (text, sizeof text, "incomplete: %s", what);
      problem (r, text);
    }
  if (missing)
    {
      snprintf (text, sizeof text, "%u module%s could not be read: %s code "
                "is shown as module+offset", missing, missing == 1 ? "" : "s",
                missing == 1 ? "its" : "their");
      problem (r, text);
    }
  if (st.chains_dropped)
    {
      snprintf (text, sizeof text, "%" PRIu64 " chains not recorded (the "
                "monitor's tables were full): in <no call chain recorded>",
                st.chains_dropped);
      problem (r, text);
    }
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
