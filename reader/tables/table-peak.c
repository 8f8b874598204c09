/* table-peak.c - the peak table (format 4 on): the chains live when the
   process's live bytes were highest, in the leak table's shape, most
   bytes first. */
#include "tables/tables.h"
#include "util/num.h"
#include "util/text.h"
#include "report/timetab.h"

#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct peak
{
  uint32_t path;             /* index in first_site: the row's first site */
  uint64_t bytes, blocks;    /* at the peak, summed over its sites */
};

static int
by_bytes (const void *x, const void *y)
{
  const struct peak *a = x, *b = y;
  if (a->bytes != b->bytes)
    return a->bytes < b->bytes ? 1 : -1;
  if (a->blocks != b->blocks)
    return a->blocks < b->blocks ? 1 : -1;
  return a->path < b->path ? -1 : a->path > b->path;
}

static const struct hi_column columns[] = {
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "blocks", .head = "blocks", .type = HI_CELL_COUNT },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

void
hi_table_no_time (const struct hi_model *m, struct hi_table *t)
{
  t->n_columns = 0;
  t->legend = m->root.version < 4
              ? "no time data: this input was written before format 4"
              : m->damage.time
              ? "no time data: this input's time data is damaged beyond use"
              : "no time data: the monitor recorded none in this input";
  hi_table_flag (t, "time_data", 0);
  hi_table_fact (t, "note", hi_cell_text (t->legend));
}

/* The blocks live at the peak: the chains' (stat's peak_blocks is the
   most blocks ever live, which may be another moment's). */
static uint64_t
blocks_at_peak (const struct hi_model *m)
{
  uint64_t n = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    n = hi_add_sat (n, m->chain_time[s].peak_blocks);
  return n;
}

/* The legend: what the peak was and when, into a string R owns. */
static const char *
legend (struct hi_analysis *a, struct hi_rmodel *r, uint64_t blocks)
{
  const struct hi_model *m = a->m;
  char bytes[32], clock[32], when[32], text[512];
  if (a->opt.exact_bytes)
    {
      snprintf (bytes, sizeof bytes, "%" PRIu64, m->root.totals.peak_bytes);
      snprintf (clock, sizeof clock, "%" PRIu64, m->root.peak_clock);
    }
  else
    {
      hi_human_bytes (m->root.totals.peak_bytes, bytes, sizeof bytes);
      hi_human_bytes (m->root.peak_clock, clock, sizeof clock);
    }
  hi_duration_text (m->peak_time_ns, when, sizeof when);
  snprintf (text, sizeof text,
            "the peak: %s in %" PRIu64 " block%s, reached by %s%s into the run, after "
            "%s allocated; bytes, blocks: live then, (%%) of the peak; "
            "(**) 100%%, ( .) under 1%%%s",
            bytes, blocks, blocks == 1 ? "" : "s",
            m->peak_is_live ? "about " : "", when, clock,
            m->peak_is_live ? "; the peak read lagged the live figures, "
            "which stand for it" : "");
  return hi_rmodel_strdup (r, text);
}

hi_status
hi_table_peak (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct hi_table *t = hi_rmodel_table (r, "peak", "Peak Table", columns,
                                        sizeof columns / sizeof columns[0]);
  if (!t)
    return HI_E_NOMEM;
  if (!m->has_time || !m->chain_time)
    {
      hi_table_no_time (m, t);
      return r->nomem ? HI_E_NOMEM : HI_OK;
    }
  t->threshold = hi_threshold (&a->opt);
  uint64_t blocks = blocks_at_peak (m);
  t->legend = legend (a, r, blocks);
  hi_table_flag (t, "time_data", 1);
  hi_table_fact (t, "peak_bytes", hi_cell_bytes (m->root.totals.peak_bytes));
  hi_table_fact (t, "peak_blocks", hi_cell_count (blocks));
  hi_table_fact (t, "peak_time_ns", hi_cell_count (m->peak_time_ns));
  hi_table_fact (t, "peak_clock", hi_cell_bytes (m->root.peak_clock));
  hi_table_flag (t, "peak_is_live", m->peak_is_live);

  uint32_t *row_of;
  uint64_t *first_site;
  size_t n;
  struct peak *rows;
  if (hi_path_rows_new (a, 0, sizeof *rows, offsetof (struct peak, path),
                        (void **) &rows, &row_of, &first_site, &n,
                        &t->filtered) != HI_OK)
    return HI_E_NOMEM;
  for (uint64_t s = 0; s < m->n_sites; s++)
    if (row_of[s] != UINT32_MAX)
      {
        struct peak *p = &rows[row_of[s]];
        p->bytes = hi_add_sat (p->bytes, m->chain_time[s].peak_bytes);
        p->blocks = hi_add_sat (p->blocks, m->chain_time[s].peak_blocks);
      }
  /* Rows are the chains live at the peak (0-byte blocks too). */
  size_t kept = 0;
  uint64_t blocks_all = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].bytes || rows[i].blocks)
      {
        blocks_all = hi_add_sat (blocks_all, rows[i].blocks);
        rows[kept++] = rows[i];
      }
  qsort (rows, kept, sizeof *rows, by_bytes);
  uint64_t whole = m->root.totals.peak_bytes, shown = 0;
  for (size_t i = 0; i < kept && !r->nomem; i++)
    {
      const struct peak *p = &rows[i];
      /* Weighed by bytes; 0-byte blocks by their number. */
      int above = p->bytes ? hi_shown (&a->opt, p->bytes, whole)
                           : hi_shown (&a->opt, p->blocks, blocks_all);
      if (!hi_keep_row (&a->opt, t, &shown, above))
        continue;
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      c[0] = hi_cell_bytes (p->bytes);
      c[1] = hi_cell_pct2 (p->bytes, whole);
      c[2] = hi_cell_count (p->blocks);
      c[3] = hi_path_cell (a, first_site[p->path], r);
    }
  free (rows);
  free (row_of);
  free (first_site);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
