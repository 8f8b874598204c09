/* table-leaks.c - mprof's memory leak table: partial call chains that
   allocated memory never freed, largest first. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"
#include "util/sort.h"

struct leak
{
  uint32_t path;             /* index in first_site: the row's first site */
  unsigned flags;            /* HI_SITE_SUPPRESSED*: of all its sites */
  uint64_t kept, allocs, bytes, frees, freed;   /* sums over its sites */
};

/* Blocks allocated and never freed (0 if the counts are damaged). */
static uint64_t
live (const struct leak *r)
{
  return hi_sub0 (r->allocs, r->frees);
}

static int
by_kept (const void *x, const void *y)
{
  const struct leak *a = x, *b = y;
  int c = hi_cmp_u64 (b->kept, a->kept);
  if (c == 0)
    c = hi_cmp_u64 (live (b), live (a));
  return c ? c : hi_cmp_u64 (a->path, b->path);
}

/* Group the sites into rows by the path they show (hi_path_rows; chains
   suppressed by a frame outside the shown path are counted apart from
   those shown), summing every column over all of a row's sites (also
   those that freed everything): *ROWS, *N of them, and each row's first
   site in *FIRST_SITE. */
static hi_status
group (struct hi_analysis *a, struct leak **rows_out, uint64_t **first_out,
       size_t *n_out, uint64_t *filtered, uint32_t **row_of_out)
{
  const struct hi_model *m = a->m;
  uint32_t *row_of;
  uint64_t *first_site;
  size_t n;
  hi_status st = hi_path_rows (a, HI_SITE_SUPPRESSED
                                  | HI_SITE_SUPPRESSED_DEFAULT,
                               &row_of, &first_site, &n, filtered);
  if (st != HI_OK)
    return st;
  struct leak *rows = calloc (n ? n : 1, sizeof *rows);
  if (!rows)
    {
      free (row_of);
      free (first_site);
      return HI_E_NOMEM;
    }
  for (size_t i = 0; i < n; i++)
    {
      rows[i].path = (uint32_t) i;
      rows[i].flags = hi_site_flags (a, first_site[i])
                      & (HI_SITE_SUPPRESSED | HI_SITE_SUPPRESSED_DEFAULT);
    }
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      if (row_of[s] == UINT32_MAX)
        continue;
      const struct hi_site_sum *x = &a->sum[s];
      struct leak *r = &rows[row_of[s]];
      r->kept = hi_add_sat (r->kept, hi_sub0 (x->bytes, x->freed));
      r->allocs = hi_add_sat (r->allocs, x->allocs);
      r->bytes = hi_add_sat (r->bytes, x->bytes);
      r->frees = hi_add_sat (r->frees, x->frees);
      r->freed = hi_add_sat (r->freed, x->freed);
    }
  *row_of_out = row_of;
  *rows_out = rows;
  *first_out = first_site;
  *n_out = n;
  return HI_OK;
}

/* The columns before the path, with or without the types. */
#define LEAK_COLUMNS \
  { .key = "kept", .head = "kept", .type = HI_CELL_BYTES }, \
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 }, \
  { .key = "allocs", .head = "allocs", .type = HI_CELL_COUNT }, \
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES }, \
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 }, \
  { .key = "frees", .head = "frees", .type = HI_CELL_COUNT }, \
  { .key = "bytes_freed", .head = "freed", .type = HI_CELL_BYTES, \
    .blank_zero = 1 }

static const struct hi_column columns[] = {
  LEAK_COLUMNS,
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

/* With the client API's types: a column of them before the path. */
static const struct hi_column typed_columns[] = {
  LEAK_COLUMNS,
  { .key = "types", .head = "types", .type = HI_CELL_TEXT, .left = 1,
    .max_width = 32 },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

hi_status
hi_table_leaks (struct hi_analysis *a, struct hi_rmodel *r)
{
  struct leak *rows;
  uint64_t *first_site;
  uint32_t *row_of;
  size_t n;
  if (hi_types_ready (a) != HI_OK)
    return HI_E_NOMEM;
  int typed = a->n_types > 0;
  uint32_t *tstart = NULL, *tlist = NULL;
  struct hi_table *t
    = hi_rmodel_table (r, "leaks", "Partial Memory Leak Table",
                       typed ? typed_columns : columns,
                       typed ? sizeof typed_columns / sizeof typed_columns[0]
                             : sizeof columns / sizeof columns[0]);
  if (!t || group (a, &rows, &first_site, &n, &t->filtered, &row_of) != HI_OK)
    return HI_E_NOMEM;
  if (typed && hi_types_group (a, row_of, 0, (uint32_t) n, &tstart, &tlist)
      != HI_OK)
    {
      free (row_of);
      free (rows);
      free (first_site);
      return HI_E_NOMEM;
    }
  t->threshold = hi_threshold (&a->opt);
  t->legend = "kept: bytes never freed, (%) of all kept; bytes (%) of all "
              "allocated; (**) 100%, ( .) under 1%";
  /* Leaks are rows with bytes or blocks never freed (0-byte blocks too). */
  size_t kept_rows = 0;
  uint64_t kept_all = 0, live_all = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].kept || live (&rows[i]))
      {
        kept_all = hi_add_sat (kept_all, rows[i].kept);
        live_all = hi_add_sat (live_all, live (&rows[i]));
        rows[kept_rows++] = rows[i];
      }
  qsort (rows, kept_rows, sizeof *rows, by_kept);
  /* At most a page of rows, the largest (hi_page_rows). */
  struct hi_options page = a->opt;
  page.limit = hi_page_rows (&a->opt);
  uint64_t shown = 0;
  for (size_t i = 0; i < kept_rows && !r->nomem; i++)
    {
      const struct leak *row = &rows[i];
      if (row->flags & (HI_SITE_SUPPRESSED | HI_SITE_SUPPRESSED_DEFAULT))
        {
          hi_table_suppressed (t, (row->flags & HI_SITE_SUPPRESSED) != 0,
                               row->kept);
          continue;
        }
      /* Weighed by kept bytes; 0-byte blocks by their number. */
      int above = row->kept ? hi_shown (&a->opt, row->kept, kept_all)
                            : hi_shown (&a->opt, live (row), live_all);
      if (!hi_keep_row (&page, t, &shown, above))
        continue;
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      c[0] = hi_cell_bytes (row->kept);
      c[1] = hi_cell_pct2 (row->kept, kept_all);
      c[2] = hi_cell_count (row->allocs);
      c[3] = hi_cell_bytes (row->bytes);
      c[4] = hi_cell_pct2 (row->bytes, a->total_bytes);
      c[5] = hi_cell_count (row->frees);
      c[6] = hi_cell_bytes (row->freed);
      if (typed)
        {
          char types[512];
          hi_types_join (a, tlist + tstart[row->path],
                         tstart[row->path + 1] - tstart[row->path], types,
                         sizeof types);
          c[7] = hi_cell_text (hi_rmodel_strdup (r, types));
        }
      c[7 + typed] = hi_path_cell (a, first_site[row->path], r);
    }
  free (tstart);
  free (tlist);
  free (row_of);
  free (rows);
  free (first_site);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
