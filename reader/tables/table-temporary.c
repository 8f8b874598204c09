/* table-temporary.c - the temporary allocation table (format 4 on): per
   chain, its allocations and how many were temporary (freed by the thread
   that allocated them with no other allocation or free by that thread in
   between, as the monitor counts them), most temporaries first.  This is
   heaptrack's idea, not its figure: heaptrack also counts a realloc right
   after the allocation (a free and an allocation to it) and a free of any
   block of the size and chain last allocated, in the whole process's
   order; the legend and heapinspect(1) say so. */
#include "tables/tables.h"
#include "util/num.h"
#include "report/timetab.h"
#include "util/sort.h"

#include <stddef.h>

struct temp
{
  uint32_t path;             /* index in first_site: the row's first site */
  uint64_t allocs, temporaries;
};

static int
by_temporaries (const void *x, const void *y)
{
  const struct temp *a = x, *b = y;
  int c = hi_cmp_u64 (b->temporaries, a->temporaries);
  if (c == 0)
    c = hi_cmp_u64 (b->allocs, a->allocs);
  return c ? c : hi_cmp_u64 (a->path, b->path);
}

static const struct hi_column columns[] = {
  { .key = "allocs", .head = "allocs", .type = HI_CELL_COUNT },
  { .key = "temporaries", .head = "temporary", .type = HI_CELL_COUNT },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

static void
add_site (const struct hi_analysis *a, uint64_t s, void *row)
{
  struct temp *x = row;
  x->allocs = hi_add_sat (x->allocs, a->sum[s].allocs);
  x->temporaries = hi_add_sat (x->temporaries,
                               a->m->chain_time[s].temporaries);
}

static void
add (void *sum, const void *row)
{
  struct temp *y = sum;
  const struct temp *x = row;
  y->allocs = hi_add_sat (y->allocs, x->allocs);
  y->temporaries = hi_add_sat (y->temporaries, x->temporaries);
}

/* Weighed by temporaries; chains without any by their allocations, so
   that a table of none still lists where allocations were. */
static int
above (const struct hi_analysis *a, const void *row, const void *total)
{
  const struct temp *x = row, *all = total;
  return x->temporaries
         ? hi_shown (&a->opt, x->temporaries, all->temporaries)
         : hi_shown (&a->opt, x->allocs, all->allocs);
}

static void
cells (struct hi_analysis *a, struct hi_rmodel *r, const void *row,
       struct hi_cell *c, struct hi_cell path)
{
  const struct temp *x = row;
  (void) a, (void) r;
  c[0] = hi_cell_count (x->allocs);
  c[1] = hi_cell_count (x->temporaries);
  c[2] = hi_cell_pct2 (x->temporaries, x->allocs);
  c[3] = path;
}

static void
facts (struct hi_table *t, const void *total, const struct hi_cell *c)
{
  const struct temp *all = total;
  (void) c;
  hi_table_fact (t, "allocs", hi_cell_count (all->allocs));
  hi_table_fact (t, "temporaries", hi_cell_count (all->temporaries));
}

static const struct hi_chain_table temporary_table = {
  .size = sizeof (struct temp), .path_at = offsetof (struct temp, path),
  .add_site = add_site, .add = add, .order = by_temporaries,
  .above = above, .cells = cells, .total_row = 1, .facts = facts,
};

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
  t->legend = "temporary: blocks freed by the thread that allocated them "
              "with no other allocation or free by it in between, (%) of "
              "the chain's allocs; (**) 100%, ( .) under 1%; heaptrack "
              "counts more: also a realloc right after the allocation, and "
              "the free of any block of the size and chain just allocated";
  hi_table_flag (t, "time_data", 1);
  return hi_chain_table (a, r, t, &temporary_table);
}
