/* table-direct.c - mprof's direct allocation table: per function that
   called the allocator, like gprof's flat profile. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"
#include "util/sort.h"

struct direct
{
  uint32_t func;             /* id in funcs, UINT32_MAX for <TOTAL> */
  uint64_t bytes, kept, calls;
  uint64_t cbytes[HI_NSIZE_CLASSES], ckept[HI_NSIZE_CLASSES];
};

static int
by_bytes (const void *x, const void *y)
{
  const struct direct *a = x, *b = y;
  int c = hi_cmp_u64 (b->bytes, a->bytes);
  return c ? c : hi_cmp_u64 (a->func, b->func);
}

static void
add_site (struct direct *d, const struct hi_site *s)
{
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    {
      uint64_t kept = hi_sub0 (s->bytes[c], s->bytes_freed[c]);
      d->bytes = hi_add_sat (d->bytes, s->bytes[c]);
      d->kept = hi_add_sat (d->kept, kept);
      d->calls = hi_add_sat (d->calls, s->allocs[c]);
      d->cbytes[c] = hi_add_sat (d->cbytes[c], s->bytes[c]);
      d->ckept[c] = hi_add_sat (d->ckept[c], kept);
    }
}

static const struct hi_column columns[] = {
  { .key = NULL, .head = "% mem", .type = HI_CELL_PCT2 },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .key = "kept", .head = "kept", .type = HI_CELL_BYTES },
  { .key = "calls", .head = "calls", .type = HI_CELL_COUNT },
  { .head = "% mem(size)", .head2 = "s", .type = HI_CELL_PCT2 },
  { .head2 = "m", .type = HI_CELL_PCT2 },
  { .head2 = "l", .type = HI_CELL_PCT2 },
  { .head2 = "x", .type = HI_CELL_PCT2 },
  { .head = "% all kept", .head2 = "s", .type = HI_CELL_PCT2 },
  { .head2 = "m", .type = HI_CELL_PCT2 },
  { .head2 = "l", .type = HI_CELL_PCT2 },
  { .head2 = "x", .type = HI_CELL_PCT2 },
  { .head = "name", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "bytes_s", .type = HI_CELL_BYTES },
  { .key = "kept_s", .type = HI_CELL_BYTES },
  { .key = "bytes_m", .type = HI_CELL_BYTES },
  { .key = "kept_m", .type = HI_CELL_BYTES },
  { .key = "bytes_l", .type = HI_CELL_BYTES },
  { .key = "kept_l", .type = HI_CELL_BYTES },
  { .key = "bytes_x", .type = HI_CELL_BYTES },
  { .key = "kept_x", .type = HI_CELL_BYTES },
  { .key = "name", .type = HI_CELL_TEXT },
  { .key = "places", .type = HI_CELL_PATH },
};

static void
add_row (struct hi_rmodel *r, struct hi_table *t, const struct direct *d,
         const struct direct *total, const char *name, int is_total)
{
  struct hi_cell *c = hi_rmodel_row (r, t, is_total ? HI_ROW_TOTAL
                                                    : HI_ROW_PLAIN);
  if (!c)
    return;
  c[0] = hi_cell_pct2 (d->bytes, total->bytes);
  c[1] = hi_cell_bytes (d->bytes);
  c[2] = hi_cell_bytes (d->kept);
  c[3] = hi_cell_count (d->calls);
  for (int k = 0; k < HI_NSIZE_CLASSES; k++)
    {
      c[4 + k] = hi_cell_pct2 (d->cbytes[k], total->bytes);
      c[8 + k] = hi_cell_pct2 (d->ckept[k], total->kept);
      c[13 + 2 * k] = hi_cell_bytes (d->cbytes[k]);
      c[14 + 2 * k] = hi_cell_bytes (d->ckept[k]);
    }
  c[12] = hi_cell_text (hi_rmodel_strdup (r, name));
  c[21] = c[12];
}

hi_status
hi_table_direct (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  uint32_t nf = a->funcs.n;
  struct direct *rows = calloc ((size_t) nf + 1, sizeof *rows);
  struct hi_where *where = hi_where_new (a);
  struct hi_table *t = hi_rmodel_table (r, "direct", "Direct Allocation Table",
                                        columns,
                                        sizeof columns / sizeof columns[0]);
  if (!rows || !where || !t)
    {
      free (rows);
      hi_where_free (where);
      return HI_E_NOMEM;
    }
  t->threshold = hi_threshold (&a->opt);
  t->legend = "% of all bytes allocated, by size: s <= 32 < m <= 256 "
              "< l <= 2048 < x; (**) 100%, ( .) under 1%";
  struct direct total;
  memset (&total, 0, sizeof total);
  total.func = UINT32_MAX;
  for (uint32_t i = 0; i <= nf; i++)
    rows[i].func = i;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      uint32_t from = a->chain_start[s], to = a->chain_start[s + 1];
      add_site (&total, &m->sites[s]);
      if (hi_site_flags (a, s) & HI_SITE_FILTERED)
        {
          t->filtered++;
          continue;
        }
      /* Allocations without a chain are counted in the total only. */
      uint32_t fn = from < to ? hi_chain_frame (a, to - 1)->func : nf;
      add_site (&rows[fn], &m->sites[s]);
    }
  add_row (r, t, &total, &total, "<TOTAL>", 1);
  qsort (rows, (size_t) nf + 1, sizeof *rows, by_bytes);
  /* At most a page of rows, the largest (hi_page_rows). */
  struct hi_options page = a->opt;
  page.limit = hi_page_rows (&a->opt);
  uint64_t shown = 0;
  for (uint32_t i = 0; i <= nf && !r->nomem; i++)
    {
      const struct direct *d = &rows[i];
      if (!d->calls)
        continue;
      /* By bytes; a function of 0-byte blocks only by its calls. */
      int above = d->bytes ? hi_shown (&a->opt, d->bytes, total.bytes)
                           : hi_shown (&a->opt, d->calls, total.calls);
      if (!hi_keep_row (&page, t, &shown, above))
        continue;
      char name[2048];
      if (d->func < nf)
        hi_where_name (a, where, d->func, name, sizeof name);
      else
        snprintf (name, sizeof name, "<no call chain recorded>");
      add_row (r, t, d, &total, name, 0);
      /* JSON: the bare name, and the places as frames. */
      if (d->func < nf && !r->nomem)
        {
          struct hi_cell *c = t->rows[t->n_rows - 1].cells;
          c[21] = hi_cell_text (hi_where_bare_name (a, where, d->func));
          c[22] = hi_where_cell (a, where, d->func, r);
        }
    }
  free (rows);
  hi_where_free (where);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
