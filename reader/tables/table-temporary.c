/* table-temporary.c - the temporary allocation table (format 4 on): per
   chain, its allocations and how many were temporary (heaptrack's: freed
   by the thread that allocated them with no other allocation or free by
   that thread in between, as the monitor counts them), most temporaries
   first. */
#include "tables/tables.h"
#include "util/num.h"
#include "report/timetab.h"

#include <stddef.h>
#include <stdlib.h>

struct temp
{
  uint32_t path;             /* index in first_site: the row's first site */
  uint64_t allocs, temporaries;
};

static int
by_temporaries (const void *x, const void *y)
{
  const struct temp *a = x, *b = y;
  if (a->temporaries != b->temporaries)
    return a->temporaries < b->temporaries ? 1 : -1;
  if (a->allocs != b->allocs)
    return a->allocs < b->allocs ? 1 : -1;
  return a->path < b->path ? -1 : a->path > b->path;
}

static const struct hi_column columns[] = {
  { .key = "allocs", .head = "allocs", .type = HI_CELL_COUNT },
  { .key = "temporaries", .head = "temporary", .type = HI_CELL_COUNT },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

static void
add_row (struct hi_rmodel *r, struct hi_table *t, const struct temp *x,
         enum hi_row_role role, struct hi_cell path)
{
  struct hi_cell *c = hi_rmodel_row (r, t, role);
  if (!c)
    return;
  c[0] = hi_cell_count (x->allocs);
  c[1] = hi_cell_count (x->temporaries);
  c[2] = hi_cell_pct2 (x->temporaries, x->allocs);
  c[3] = path;
  /* The totals are the table's facts in JSON. */
  if (role == HI_ROW_TOTAL)
    t->rows[t->n_rows - 1].text_only = 1;
}

hi_status
hi_table_temporary (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct hi_table *t = hi_rmodel_table (r, "temporary",
                                        "Temporary Allocation Table", columns,
                                        sizeof columns / sizeof columns[0]);
  if (!t)
    return HI_E_NOMEM;
  if (!m->has_time || !m->chain_time)
    {
      hi_table_no_time (m, t);
      return r->nomem ? HI_E_NOMEM : HI_OK;
    }
  t->threshold = hi_threshold (&a->opt);
  t->legend = "temporary: blocks freed by the thread that allocated them "
              "with no other allocation or free by it in between, (%) of "
              "the chain's allocs; (**) 100%, ( .) under 1%";
  uint32_t *row_of;
  uint64_t *first_site;
  size_t n;
  struct temp *rows;
  if (hi_path_rows_new (a, 0, sizeof *rows, offsetof (struct temp, path),
                        (void **) &rows, &row_of, &first_site, &n,
                        &t->filtered) != HI_OK)
    return HI_E_NOMEM;
  struct temp total = { 0, 0, 0 };
  for (uint64_t s = 0; s < m->n_sites; s++)
    if (row_of[s] != UINT32_MAX)
      {
        struct temp *x = &rows[row_of[s]];
        x->allocs = hi_add_sat (x->allocs, a->sum[s].allocs);
        x->temporaries = hi_add_sat (x->temporaries,
                                     m->chain_time[s].temporaries);
        total.allocs = hi_add_sat (total.allocs, a->sum[s].allocs);
        total.temporaries = hi_add_sat (total.temporaries,
                                        m->chain_time[s].temporaries);
      }
  hi_table_flag (t, "time_data", 1);
  hi_table_fact (t, "allocs", hi_cell_count (total.allocs));
  hi_table_fact (t, "temporaries", hi_cell_count (total.temporaries));
  qsort (rows, n, sizeof *rows, by_temporaries);
  add_row (r, t, &total, HI_ROW_TOTAL, hi_cell_text ("<TOTAL>"));
  uint64_t shown = 0;
  for (size_t i = 0; i < n && !r->nomem; i++)
    {
      const struct temp *x = &rows[i];
      /* Weighed by temporaries; chains without any by their allocations,
         so that a table of none still lists where allocations were. */
      int above = x->temporaries
                  ? hi_shown (&a->opt, x->temporaries, total.temporaries)
                  : hi_shown (&a->opt, x->allocs, total.allocs);
      if (!hi_keep_row (&a->opt, t, &shown, above))
        continue;
      add_row (r, t, x, HI_ROW_PLAIN, hi_path_cell (a, first_site[x->path],
                                                    r));
    }
  free (rows);
  free (row_of);
  free (first_site);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
