/* table-peak.c - the peak table (format 4 on): the chains live when the
   process's live bytes were highest, in the leak table's shape, most
   bytes first. */
#include "tables/tables.h"
#include "util/num.h"
#include "util/sort.h"
#include "util/text.h"
#include "report/timetab.h"

#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>

struct peak
{
  uint32_t path;             /* index in first_site: the row's first site */
  uint64_t bytes, blocks;    /* at the peak, summed over its sites */
};

static int
by_bytes (const void *x, const void *y)
{
  const struct peak *a = x, *b = y;
  int c = hi_cmp_u64 (b->bytes, a->bytes);
  if (c == 0)
    c = hi_cmp_u64 (b->blocks, a->blocks);
  return c ? c : hi_cmp_u64 (a->path, b->path);
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

static void
add_site (const struct hi_analysis *a, uint64_t s, void *row)
{
  struct peak *p = row;
  p->bytes = hi_add_sat (p->bytes, a->m->chain_time[s].peak_bytes);
  p->blocks = hi_add_sat (p->blocks, a->m->chain_time[s].peak_blocks);
}

static void
add (void *sum, const void *row)
{
  struct peak *y = sum;
  const struct peak *x = row;
  y->bytes = hi_add_sat (y->bytes, x->bytes);
  y->blocks = hi_add_sat (y->blocks, x->blocks);
}

/* Rows are the chains live at the peak (0-byte blocks too). */
static int
live_at_peak (const void *row)
{
  const struct peak *p = row;
  return p->bytes || p->blocks;
}

/* Weighed by bytes of the peak; 0-byte blocks by their number. */
static int
above (const struct hi_analysis *a, const void *row, const void *total)
{
  const struct peak *p = row, *all = total;
  return p->bytes ? hi_shown (&a->opt, p->bytes, a->m->root.totals.peak_bytes)
                  : hi_shown (&a->opt, p->blocks, all->blocks);
}

static void
cells (struct hi_analysis *a, struct hi_rmodel *r, const void *row,
       struct hi_cell *c, struct hi_cell path)
{
  const struct peak *p = row;
  (void) r;
  c[0] = hi_cell_bytes (p->bytes);
  c[1] = hi_cell_pct2 (p->bytes, a->m->root.totals.peak_bytes);
  c[2] = hi_cell_count (p->blocks);
  c[3] = path;
}

static const struct hi_chain_table peak_table = {
  .size = sizeof (struct peak), .path_at = offsetof (struct peak, path),
  .add_site = add_site, .add = add, .in_table = live_at_peak,
  .order = by_bytes, .above = above, .cells = cells,
};

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
  uint64_t blocks = blocks_at_peak (m);
  t->legend = legend (a, r, blocks);
  hi_table_flag (t, "time_data", 1);
  hi_table_fact (t, "peak_bytes", hi_cell_bytes (m->root.totals.peak_bytes));
  hi_table_fact (t, "peak_blocks", hi_cell_count (blocks));
  hi_table_fact (t, "peak_time_ns", hi_cell_count (m->peak_time_ns));
  hi_table_fact (t, "peak_clock", hi_cell_bytes (m->root.peak_clock));
  hi_table_flag (t, "peak_is_live", m->peak_is_live);
  return hi_chain_table (a, r, t, &peak_table);
}
