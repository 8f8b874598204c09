/* reach-report-glibc.c - the --leak-check report of a target without
   the monitor: memcheck's classes over glibc's in-use chunks (a block's
   bytes are its usable size, malloc_usable_size's), then the blocks of
   each class by size, largest first, since no chain was recorded; by C++
   class where a block's first word is a vtable pointer (its `_ZTV`
   symbol names the class); and the largest blocks. */
#define _GNU_SOURCE
#include "analysis/analysis.h"
#include "glibc/glibc.h"
#include "reach/reach-int.h"
#include "report/rmodel.h"
#include "symbols/mapsyms.h"
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

/* Rows per (class, usable size) of RC's blocks of SITE (UINT32_MAX:
   all), most bytes first within a class, as table KEY, TITLE, LEGEND
   of R. */
hi_status
hi_reach_size_table (const struct hi_reach *rc, uint32_t site,
                     const struct hi_options *opt, struct hi_rmodel *r,
                     const char *key, const char *title, const char *legend)
{
  struct hi_table *t = hi_rmodel_table (r, key, title, size_columns, 4);
  if (!t)
    return HI_E_NOMEM;
  t->legend = legend;
  t->threshold = -1;
  struct hi_reach_block *b = malloc ((rc->n_blocks + 1) * sizeof *b);
  struct by_size *rows = malloc ((rc->n_blocks + 1) * sizeof *rows);
  if (!b || !rows)
    {
      free (b);
      free (rows);
      return HI_E_NOMEM;
    }
  uint64_t nb = 0;
  for (uint64_t i = 0; i < rc->n_blocks; i++)
    if (site == UINT32_MAX || rc->blocks[i].site == site)
      b[nb++] = rc->blocks[i];
  qsort (b, nb, sizeof *b, block_cmp);
  size_t n = 0;
  for (uint64_t i = 0; i < nb; i++)
    if (n && rows[n - 1].cls == b[i].cls && rows[n - 1].size == b[i].size)
      rows[n - 1].blocks++;
    else
      rows[n++] = (struct by_size) { b[i].cls, b[i].size, 1 };
  qsort (rows, n, sizeof *rows, size_cmp);
  /* The page's rows per class, as the other tables (20; --limit=0 or
     --verbose: all). */
  uint32_t page = hi_page_rows (opt);
  uint64_t limit = page ? page : UINT64_MAX;
  uint64_t shown = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (i && rows[i].cls != rows[i - 1].cls)
        shown = 0;
      if (shown++ >= limit)
        {
          t->over_limit++;
          continue;
        }
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

static const struct hi_column type_columns[] = {
  { .key = "class", .head = "class", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .key = "blocks", .head = "blocks", .type = HI_CELL_COUNT },
  { .key = "type", .head = "type", .type = HI_CELL_TEXT, .left = 1 },
};

/* A block with its C++ class (NULL if its first word is no vtable
   pointer). */
struct typed
{
  const struct hi_reach_block *b;
  const char *type;
};

static int
typed_cmp (const void *x, const void *y)
{
  const struct typed *a = x, *b = y;
  int c = hi_cmp_u64 (a->b->cls, b->b->cls);
  return c ? c : strcmp (a->type, b->type);
}

struct by_type
{
  uint32_t cls;
  const char *type;
  uint64_t bytes, blocks;
};

static int
by_type_cmp (const void *x, const void *y)
{
  const struct by_type *a = x, *b = y;
  int c = hi_cmp_u64 (a->cls, b->cls);
  if (c == 0)
    c = hi_cmp_u64 (b->bytes, a->bytes);
  return c ? c : strcmp (a->type, b->type);
}

/* Rows per (class, C++ type) of the blocks whose first word is a
   vtable pointer, most bytes first within a class; no table if none
   is.  TYPES[i] is block i's class or NULL. */
static hi_status
type_table (const struct hi_reach *rc, const char *const *types,
            struct hi_rmodel *r)
{
  uint64_t n_typed = 0;
  for (uint64_t i = 0; i < rc->n_blocks; i++)
    n_typed += types[i] != NULL;
  if (!n_typed)
    return HI_OK;
  struct typed *v = malloc (n_typed * sizeof *v);
  struct by_type *rows = malloc (n_typed * sizeof *rows);
  struct hi_table *t = hi_rmodel_table (r, "leak_types", "Leak Check Types",
                                        type_columns, 4);
  if (!v || !rows || !t)
    {
      free (v);
      free (rows);
      return HI_E_NOMEM;
    }
  t->legend = "live blocks by class, then by C++ type: the class whose "
              "vtable the block's first word points into";
  t->threshold = -1;
  size_t k = 0;
  for (uint64_t i = 0; i < rc->n_blocks; i++)
    if (types[i])
      v[k++] = (struct typed) { &rc->blocks[i], types[i] };
  qsort (v, k, sizeof *v, typed_cmp);
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    if (n && rows[n - 1].cls == v[i].b->cls
        && strcmp (rows[n - 1].type, v[i].type) == 0)
      {
        rows[n - 1].blocks++;
        rows[n - 1].bytes += v[i].b->size;
      }
    else
      rows[n++] = (struct by_type) { v[i].b->cls, v[i].type, v[i].b->size,
                                     1 };
  qsort (rows, n, sizeof *rows, by_type_cmp);
  for (size_t i = 0; i < n; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      c[0] = hi_cell_text (hi_reach_class_name ((int) rows[i].cls));
      c[1] = hi_cell_bytes (rows[i].bytes);
      c[2] = hi_cell_count (rows[i].blocks);
      c[3] = hi_cell_text (hi_rmodel_strdup (r, rows[i].type));
    }
  free (v);
  free (rows);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

static const struct hi_column largest_columns[] = {
  { .key = "size", .head = "size", .type = HI_CELL_BYTES },
  { .key = "class", .head = "class", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "address", .head = "address", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "type", .head = "type", .type = HI_CELL_TEXT, .left = 1 },
};

static int
largest_cmp (const void *x, const void *y)
{
  const struct hi_reach_block *const *a = x, *const *b = y;
  int c = hi_cmp_u64 ((*b)->size, (*a)->size);
  return c ? c : hi_cmp_u64 ((*a)->user, (*b)->user);
}

/* The largest blocks (10, or as many as OPT's limit says), largest
   first, then by address. */
static hi_status
largest_table (const struct hi_reach *rc, const char *const *types,
               const struct hi_options *opt, struct hi_rmodel *r)
{
  if (!rc->n_blocks)
    return HI_OK;
  const struct hi_reach_block **v = malloc (rc->n_blocks * sizeof *v);
  struct hi_table *t = hi_rmodel_table (r, "leak_largest",
                                        "Leak Check Largest Blocks",
                                        largest_columns, 4);
  if (!v || !t)
    {
      free (v);
      return HI_E_NOMEM;
    }
  t->legend = "the largest live blocks (usable sizes), their class and "
              "C++ type where a vtable names it";
  t->threshold = -1;
  for (uint64_t i = 0; i < rc->n_blocks; i++)
    v[i] = &rc->blocks[i];
  qsort (v, rc->n_blocks, sizeof *v, largest_cmp);
  /* --limit's rows; 10 by default; --limit=0: every block. */
  uint64_t limit = opt->limit == HI_OPT_LIMIT_AUTO ? 10
                   : opt->limit ? opt->limit : UINT64_MAX;
  for (uint64_t i = 0; i < rc->n_blocks && i < limit; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      char at[32];
      snprintf (at, sizeof at, "0x%" PRIx64, v[i]->user);
      const char *type = types[v[i] - rc->blocks];
      c[0] = hi_cell_bytes (v[i]->size);
      c[1] = hi_cell_text (hi_reach_class_name ((int) v[i]->cls));
      c[2] = hi_cell_text (hi_rmodel_strdup (r, at));
      if (type)
        c[3] = hi_cell_text (hi_rmodel_strdup (r, type));
    }
  free (v);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

/* Each block's C++ class by its first word (as the scan read it), or
   NULL: into *OUT (strings owned by *VT). */
static hi_status
block_types (const struct hi_target *t, const struct hi_reach *rc,
             struct hi_mapsyms **vt, const char ***out)
{
  *vt = hi_mapsyms_new (t, HI_MAPSYMS_VTABLES);
  *out = calloc (rc->n_blocks + 1, sizeof **out);
  if (!*vt || !*out)
    return HI_E_NOMEM;
  for (uint64_t i = 0; rc->first_words && i < rc->n_blocks; i++)
    (*out)[i] = hi_mapsyms_class (*vt, rc->first_words[i]);
  return HI_OK;
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
    s = hi_reach_size_table (rc, UINT32_MAX, opt, &r, "leak_sizes",
                             "Leak Check Table", "live blocks by class, "
                             "then by usable size (no call chains: the "
                             "program ran without the monitor)");
  struct hi_mapsyms *vt = NULL;
  const char **types = NULL;
  if (s == HI_OK)
    s = block_types (t, rc, &vt, &types);
  if (s == HI_OK)
    s = type_table (rc, types, &r);
  if (s == HI_OK)
    s = largest_table (rc, types, opt, &r);
  if (s == HI_OK)
    {
      hi_emit_text_or_json (&r, opt, out);
      if (ferror (out))
        s = HI_E_WRITE;
    }
  hi_rmodel_free (&r);
  free (types);
  hi_mapsyms_free (vt);
  hi_reach_free (rc);
  hi_glibc_free (g);
  return s;
}
