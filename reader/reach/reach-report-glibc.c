/* reach-report-glibc.c - the --leak-check report of a target without
   the monitor: memcheck's classes over glibc's in-use chunks (a block's
   bytes are its usable size, malloc_usable_size's), then the blocks of
   each class by size, largest first, since no chain was recorded. */
#define _GNU_SOURCE
#include "glibc/glibc.h"
#include "reach/reach-int.h"
#include "report/rmodel.h"
#include "util/sort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* reach-report.c's summary, shared. */
hi_status hi_reach_summary_table (const struct hi_reach *rc,
                                  const struct hi_reach_totals *shown,
                                  const struct hi_reach_totals *supp,
                                  struct hi_rmodel *r);

static const struct hi_column size_columns[] = {
  { .key = "class", .head = "class", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .key = "blocks", .head = "blocks", .type = HI_CELL_COUNT },
  { .key = "size", .head = "size", .type = HI_CELL_COUNT },
};

struct by_size
{
  uint32_t cls;
  uint64_t size, blocks;
};

static int
size_cmp (const void *x, const void *y)
{
  const struct by_size *a = x, *b = y;
  int c = hi_cmp_u64 (a->cls, b->cls);
  if (c == 0)
    c = hi_cmp_u64 (b->size * b->blocks, a->size * a->blocks);
  return c ? c : hi_cmp_u64 (b->size, a->size);
}

static int
block_cmp (const void *x, const void *y)
{
  const struct hi_reach_block *a = x, *b = y;
  int c = hi_cmp_u64 (a->cls, b->cls);
  return c ? c : hi_cmp_u64 (a->size, b->size);
}

/* Rows per (class, usable size), most bytes first within a class. */
static hi_status
size_table (const struct hi_reach *rc, const struct hi_options *opt,
            struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "leak_sizes", "Leak Check Table",
                                        size_columns, 4);
  if (!t)
    return HI_E_NOMEM;
  t->legend = "live blocks by class, then by usable size (no call chains: "
              "the program ran without the monitor)";
  t->threshold = -1;
  struct hi_reach_block *b = malloc ((rc->n_blocks + 1) * sizeof *b);
  struct by_size *rows = malloc ((rc->n_blocks + 1) * sizeof *rows);
  if (!b || !rows)
    {
      free (b);
      free (rows);
      return HI_E_NOMEM;
    }
  memcpy (b, rc->blocks, rc->n_blocks * sizeof *b);
  qsort (b, rc->n_blocks, sizeof *b, block_cmp);
  size_t n = 0;
  for (uint64_t i = 0; i < rc->n_blocks; i++)
    if (n && rows[n - 1].cls == b[i].cls && rows[n - 1].size == b[i].size)
      rows[n - 1].blocks++;
    else
      rows[n++] = (struct by_size) { b[i].cls, b[i].size, 1 };
  qsort (rows, n, sizeof *rows, size_cmp);
  uint64_t limit = opt->limit ? opt->limit : 20;
  uint64_t shown = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (i && rows[i].cls != rows[i - 1].cls)
        shown = 0;
      if (shown++ >= limit)
        continue;
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      c[0] = hi_cell_text (hi_reach_class_name ((int) rows[i].cls));
      c[1] = hi_cell_bytes (rows[i].size * rows[i].blocks);
      c[2] = hi_cell_count (rows[i].blocks);
      c[3] = hi_cell_count (rows[i].size);
    }
  free (b);
  free (rows);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

hi_status
hi_glibc_leak_report (const struct hi_target *t, const char *name,
                      const struct hi_options *opt, FILE *out,
                      const char **why, struct hi_reach_totals *totals)
{
  *why = NULL;
  if (opt->format != HI_TEXT && opt->format != HI_JSON)
    return HI_E_USAGE;
  if (!t->ops->mapping)
    return HI_E_NO_MEMORY;
  struct hi_glibc *g;
  hi_status s = hi_glibc_load (t, &g, why);
  if (s != HI_OK)
    return s;
  struct hi_reach *rc;
  s = hi_reach_scan_glibc (t, g, &rc);
  if (s != HI_OK)
    {
      hi_glibc_free (g);
      return s;
    }
  if (totals)
    *totals = rc->totals;
  struct hi_reach_totals none;
  memset (&none, 0, sizeof none);
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = name;
  r.incomplete = g->damaged != 0;
  s = hi_reach_summary_table (rc, &rc->totals, &none, &r);
  if (s == HI_OK)
    s = size_table (rc, opt, &r);
  if (s == HI_OK)
    {
      hi_emit_text_or_json (&r, opt, out);
      if (ferror (out))
        s = HI_E_WRITE;
    }
  hi_rmodel_free (&r);
  hi_reach_free (rc);
  hi_glibc_free (g);
  return s;
}
