/* table-glibc-bins.c - `-t bins` for glibc's own heap (glibc/glibc.h),
   no monitor needed: every chunk by its usable size, in use (as the
   program holds it) and free (in a tcache, a fastbin or a bin), counts
   and bytes.  Usable bytes are what malloc_usable_size() says: the
   chunk less its size word, an mmapped one less both words.  The top
   chunk, the threads' tcache_perthread_structs and chunks free in no
   list are in no row (stat has them). */
#include <inttypes.h>
#include <stdlib.h>

#include "glibc/glibc.h"
#include "report/rmodel.h"
#include "tables/tables.h"
#include "util/num.h"
#include "util/vec.h"

/* One chunk: its usable size, and whether it is free. */
struct seen
{
  uint64_t usable;
  uint64_t free;
};

struct gather
{
  struct seen *v;
  size_t n, cap;
  int nomem;
};

static void
add (struct gather *s, uint64_t usable, int free)
{
  if (hi_grow ((void **) &s->v, &s->cap, s->n + 1, sizeof *s->v) != 0)
    {
      s->nomem = 1;
      return;
    }
  s->v[s->n++] = (struct seen) { usable, (uint64_t) free };
}

static int
in_use (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  (void) chunk;
  add (ctx, mmapped ? hi_sub0 (size, 16) : hi_sub0 (size, 8), 0);
  return ((struct gather *) ctx)->nomem;
}

static int
by_usable (const void *x, const void *y)
{
  const struct seen *a = x, *b = y;
  if (a->usable != b->usable)
    return a->usable < b->usable ? -1 : 1;
  return a->free < b->free ? -1 : a->free > b->free;
}

static const struct hi_column columns[] = {
  { .key = "usable", .head = "usable size", .type = HI_CELL_COUNT },
  { .key = "in_use", .head = "in use", .type = HI_CELL_COUNT },
  { .key = "in_use_bytes", .head = "in use bytes", .type = HI_CELL_COUNT },
  { .key = "free", .head = "free", .type = HI_CELL_COUNT },
  { .key = "free_bytes", .head = "free bytes", .type = HI_CELL_COUNT },
};

static hi_status
build_bins (const struct hi_target *t, const struct hi_glibc *g,
            struct hi_rmodel *r, void *arg)
{
  (void) arg;
  struct gather s = { NULL, 0, 0, 0 };
  hi_glibc_each_in_use (t, g, in_use, NULL, &s);
  for (uint64_t i = 0; i < g->n_frees && !s.nomem; i++)
    {
      uint64_t word;
      if (hi_glibc_word (g, t, g->frees[i].chunk + 8, &word) == 0)
        add (&s, hi_sub0 (word & ~(uint64_t) HI_GLIBC_SIZE_BITS, 8), 1);
    }
  struct hi_table *tb = s.nomem ? NULL
    : hi_rmodel_table (r, "glibc_bins", "glibc Chunks by Size", columns,
                       sizeof columns / sizeof columns[0]);
  if (!tb)
    {
      free (s.v);
      return HI_E_NOMEM;
    }
  tb->legend = "every chunk of glibc's heap by usable size (what "
               "malloc_usable_size says), in use and free in a tcache, "
               "fastbin or bin; the top chunk is in no row";
  tb->threshold = -1;
  if (s.n > 1)
    qsort (s.v, s.n, sizeof *s.v, by_usable);
  uint64_t tot[4] = { 0, 0, 0, 0 };
  for (size_t i = 0; i < s.n;)
    {
      uint64_t usable = s.v[i].usable, n[2] = { 0, 0 };
      for (; i < s.n && s.v[i].usable == usable; i++)
        n[s.v[i].free]++;
      struct hi_cell *c = hi_rmodel_row (r, tb, HI_ROW_PLAIN);
      if (!c)
        break;
      c[0] = hi_cell_count (usable);
      c[1] = hi_cell_count (n[0]);
      c[2] = hi_cell_count (hi_mul_sat (n[0], usable));
      c[3] = hi_cell_count (n[1]);
      c[4] = hi_cell_count (hi_mul_sat (n[1], usable));
      tot[0] = hi_add_sat (tot[0], n[0]);
      tot[1] = hi_add_sat (tot[1], hi_mul_sat (n[0], usable));
      tot[2] = hi_add_sat (tot[2], n[1]);
      tot[3] = hi_add_sat (tot[3], hi_mul_sat (n[1], usable));
    }
  free (s.v);
  struct hi_cell *c = hi_rmodel_row (r, tb, HI_ROW_TOTAL);
  if (c)
    {
      /* Text only, as the chain tables' <TOTAL> row: JSON's rows sum. */
      tb->rows[tb->n_rows - 1].text_only = 1;
      c[0] = hi_cell_text ("<TOTAL>");
      for (int k = 0; k < 4; k++)
        c[k + 1] = hi_cell_count (tot[k]);
    }
  return HI_OK;
}

hi_status
hi_glibc_bins_report (const struct hi_target *t, const char *name,
                      const struct hi_options *opt, FILE *out,
                      const char **why)
{
  return hi_glibc_emit (t, name, opt, out, why, NULL, build_bins, NULL);
}
