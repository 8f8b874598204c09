/* chain-table.c - the skeleton of the per-chain tables (peak, temporary,
   lifetimes): sites summed into rows by path, the rows ranked and kept
   by the threshold and the limit, then their cells filled. */
#include "tables/tables.h"

#include <stdlib.h>
#include <string.h>

/* A table's rows while they are built. */
struct rows
{
  char *rows;                /* N rows of the descriptor's size */
  size_t n;
  uint32_t *row_of;          /* per site, its row (hi_path_rows) */
  uint64_t *first_site;      /* per path index, its first site */
  void *total;               /* one row: the sum of the rows kept */
};

static void
rows_free (struct rows *x)
{
  free (x->rows);
  free (x->row_of);
  free (x->first_site);
  free (x->total);
}

/* Row I of X. */
static char *
row_at (const struct hi_chain_table *d, const struct rows *x, size_t i)
{
  return x->rows + i * d->size;
}

/* A's sites summed into X's rows, one per path.  HI_OK or HI_E_NOMEM. */
static hi_status
rows_new (struct hi_analysis *a, struct hi_table *t,
          const struct hi_chain_table *d, struct rows *x)
{
  memset (x, 0, sizeof *x);
  if (hi_path_rows_new (a, 0, d->size, d->path_at, (void **) &x->rows,
                        &x->row_of, &x->first_site, &x->n,
                        &t->filtered) != HI_OK)
    return HI_E_NOMEM;
  x->total = calloc (1, d->size);
  if (!x->total)
    {
      rows_free (x);
      return HI_E_NOMEM;
    }
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    if (x->row_of[s] != UINT32_MAX)
      d->add_site (a, s, row_at (d, x, x->row_of[s]));
  return HI_OK;
}

/* The rows of X that D keeps moved to the front, in order, and summed
   into X's total: how many it keeps. */
static size_t
keep_rows (const struct hi_chain_table *d, struct rows *x)
{
  size_t kept = 0;
  for (size_t i = 0; i < x->n; i++)
    {
      char *row = row_at (d, x, i);
      if (d->in_table && !d->in_table (row))
        continue;
      d->add (x->total, row);
      if (kept != i)
        memcpy (row_at (d, x, kept), row, d->size);
      kept++;
    }
  return kept;
}

/* The text-only <TOTAL> row of TOTAL if D has one, then the table's
   facts. */
static void
add_totals (struct hi_analysis *a, struct hi_rmodel *r, struct hi_table *t,
            const struct hi_chain_table *d, const void *total)
{
  struct hi_cell *c = NULL;
  if (d->total_row && (c = hi_rmodel_row (r, t, HI_ROW_TOTAL)) != NULL)
    {
      /* The totals are the table's facts in JSON. */
      t->rows[t->n_rows - 1].text_only = 1;
      d->cells (a, r, total, c, hi_cell_text ("<TOTAL>"));
    }
  if (d->facts)
    d->facts (t, total, c);
}

/* The first KEPT rows of X, ranked, that pass the threshold and the
   limit, as rows of T. */
static void
add_rows (struct hi_analysis *a, struct hi_rmodel *r, struct hi_table *t,
          const struct hi_chain_table *d, const struct rows *x, size_t kept)
{
  uint64_t shown = 0;
  for (size_t i = 0; i < kept && !r->nomem; i++)
    {
      const char *row = row_at (d, x, i);
      if (!hi_keep_row (&a->opt, t, &shown, d->above (a, row, x->total)))
        continue;
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      uint32_t path;
      memcpy (&path, row + d->path_at, sizeof path);
      d->cells (a, r, row, c, hi_path_cell (a, x->first_site[path], r));
    }
}

hi_status
hi_chain_table (struct hi_analysis *a, struct hi_rmodel *r,
                struct hi_table *t, const struct hi_chain_table *d)
{
  struct rows x;
  t->threshold = hi_threshold (&a->opt);
  if (rows_new (a, t, d, &x) != HI_OK)
    return HI_E_NOMEM;
  size_t kept = keep_rows (d, &x);
  qsort (x.rows, kept, d->size, d->order);
  add_totals (a, r, t, d, x.total);
  add_rows (a, r, t, d, &x, kept);
  rows_free (&x);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
