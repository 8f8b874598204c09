/* table-lifetimes.c - the lifetime table (format 4 on, recorded with
   HEAPINSPECT_LIFETIMES=1): per chain, how long its freed blocks lived
   (on the allocation clock: bytes the process allocated meanwhile; and
   in time) and how old its live blocks are, most frees first. */
#include "tables/tables.h"
#include "util/num.h"
#include "report/timetab.h"
#include "util/sort.h"

#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct life
{
  uint32_t path;             /* index in first_site: the row's first site */
  uint64_t hist[HI_LIFE_BUCKETS];
  uint64_t freed, freed_ns, live, live_clock_sum, live_ns_sum;
};

static int
by_frees (const void *x, const void *y)
{
  const struct life *a = x, *b = y;
  int c = hi_cmp_u64 (b->freed, a->freed);
  if (c == 0)
    c = hi_cmp_u64 (b->live, a->live);
  return c ? c : hi_cmp_u64 (a->path, b->path);
}

/* Text columns first: a heading spans the columns after it up to the
   next one with a heading of its own, and the JSON-only ones at the end
   stay out of the way. */
enum
{
  C_FREES, C_MEDIAN, C_P90, C_MEAN, C_LIVE, C_AGE, C_AGE_TIME, C_PATH,
  C_MEDIAN_LO, C_MEDIAN_HI, C_P90_LO, C_P90_HI, C_MEAN_NS, C_AGE_NS,
  C_HISTOGRAM, N_COLUMNS
};

static const struct hi_column columns[N_COLUMNS] = {
  [C_FREES] = { .key = "frees", .head = "frees", .type = HI_CELL_COUNT },
  [C_MEDIAN] = { .head = "lifetime", .head2 = "median",
                 .type = HI_CELL_TEXT },
  [C_P90] = { .head2 = "90%", .type = HI_CELL_TEXT },
  [C_MEAN] = { .head2 = "mean", .type = HI_CELL_TEXT },
  [C_LIVE] = { .key = "live", .head = "live", .type = HI_CELL_COUNT },
  [C_AGE] = { .key = "mean_age_bytes", .head = "mean age",
              .head2 = "clock", .type = HI_CELL_BYTES },
  [C_AGE_TIME] = { .head2 = "time", .type = HI_CELL_TEXT },
  [C_PATH] = { .key = "path", .head = "path", .type = HI_CELL_PATH,
               .left = 1 },
  [C_MEDIAN_LO] = { .key = "median_lo", .type = HI_CELL_BYTES },
  [C_MEDIAN_HI] = { .key = "median_hi", .type = HI_CELL_BYTES },
  [C_P90_LO] = { .key = "p90_lo", .type = HI_CELL_BYTES },
  [C_P90_HI] = { .key = "p90_hi", .type = HI_CELL_BYTES },
  [C_MEAN_NS] = { .key = "mean_lifetime_ns", .type = HI_CELL_COUNT },
  [C_AGE_NS] = { .key = "mean_age_ns", .type = HI_CELL_COUNT },
  [C_HISTOGRAM] = { .key = "histogram", .type = HI_CELL_JSON },
};

/* X's histogram as a JSON array, bucket k at index k, up to its last
   bucket in use: a string R owns. */
static struct hi_cell
histogram (struct hi_rmodel *r, const struct life *x)
{
  char buf[HI_LIFE_BUCKETS * 22 + 4];
  unsigned last = 0;
  for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
    if (x->hist[k])
      last = k + 1;
  size_t at = (size_t) snprintf (buf, sizeof buf, "[");
  for (unsigned k = 0; k < last; k++)
    at += (size_t) snprintf (buf + at, sizeof buf - at, "%s%" PRIu64,
                             k ? ", " : "", x->hist[k]);
  snprintf (buf + at, sizeof buf - at, "]");
  return (struct hi_cell) { HI_CELL_JSON, hi_rmodel_strdup (r, buf), 0, 0 };
}

/* The quantile PERMILLE of X's histogram: its text in C[TEXT], its
   bounds in C[LO] and C[HI] (the last bucket's HI empty). */
static void
quantile (struct hi_analysis *a, struct hi_rmodel *r, const struct life *x,
          unsigned permille, struct hi_cell *c, int text, int lo, int hi)
{
  unsigned k = hi_life_quantile (x->hist, permille);
  if (k >= HI_LIFE_BUCKETS)
    return;
  char buf[64];
  uint64_t l, h;
  hi_life_bounds (k, &l, &h);
  hi_life_bucket_text (k, a->opt.exact_bytes, buf, sizeof buf);
  c[text] = hi_cell_text (hi_rmodel_strdup (r, buf));
  c[lo] = hi_cell_bytes (l);
  if (h)
    c[hi] = hi_cell_bytes (h);
}

/* X's cells into C (a row of R), with PATH; each figure only where it
   has blocks to speak of. */
static void
cells (struct hi_analysis *a, struct hi_rmodel *r, const void *row,
       struct hi_cell *c, struct hi_cell path)
{
  const struct hi_model *m = a->m;
  const struct life *x = row;
  char buf[32];
  c[C_FREES] = hi_cell_count (x->freed);
  c[C_LIVE] = hi_cell_count (x->live);
  c[C_PATH] = path;
  c[C_HISTOGRAM] = histogram (r, x);
  if (x->freed)
    {
      quantile (a, r, x, 500, c, C_MEDIAN, C_MEDIAN_LO, C_MEDIAN_HI);
      quantile (a, r, x, 900, c, C_P90, C_P90_LO, C_P90_HI);
      uint64_t mean = x->freed_ns / x->freed;
      hi_duration_text (mean, buf, sizeof buf);
      c[C_MEAN] = hi_cell_text (hi_rmodel_strdup (r, buf));
      c[C_MEAN_NS] = hi_cell_count (mean);
    }
  if (x->live)
    {
      /* Ages at the read: the clock then less the mean birth clock; the
         run time then less the mean birth time (none if the input does
         not say how long the process had run). */
      c[C_AGE] = hi_cell_bytes (hi_sub0 (m->root.alloc_clock,
                                         x->live_clock_sum / x->live));
      if (m->run_ns)
        {
          uint64_t age = hi_sub0 (m->run_ns, x->live_ns_sum / x->live);
          hi_duration_text (age, buf, sizeof buf);
          c[C_AGE_TIME] = hi_cell_text (hi_rmodel_strdup (r, buf));
          c[C_AGE_NS] = hi_cell_count (age);
        }
    }
}

/* X into Y, saturating. */
static void
add (void *sum, const void *row)
{
  struct life *y = sum;
  const struct life *x = row;
  for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
    y->hist[k] = hi_add_sat (y->hist[k], x->hist[k]);
  y->freed = hi_add_sat (y->freed, x->freed);
  y->freed_ns = hi_add_sat (y->freed_ns, x->freed_ns);
  y->live = hi_add_sat (y->live, x->live);
  y->live_clock_sum = hi_add_sat (y->live_clock_sum, x->live_clock_sum);
  y->live_ns_sum = hi_add_sat (y->live_ns_sum, x->live_ns_sum);
}

/* The JSON facts of the totals row C. */
static void
facts (struct hi_table *t, const void *total, const struct hi_cell *c)
{
  static const struct
  {
    int column;
    const char *key;
  } keys[] = {
    { C_FREES, "frees" }, { C_LIVE, "live" },
    { C_MEDIAN_LO, "median_lo" }, { C_MEDIAN_HI, "median_hi" },
    { C_P90_LO, "p90_lo" }, { C_P90_HI, "p90_hi" },
    { C_MEAN_NS, "mean_lifetime_ns" }, { C_AGE, "mean_age_bytes" },
    { C_AGE_NS, "mean_age_ns" }, { C_HISTOGRAM, "histogram" },
  };
  (void) total;
  for (size_t i = 0; c && i < sizeof keys / sizeof keys[0]; i++)
    if (c[keys[i].column].type != HI_CELL_EMPTY)
      hi_table_fact (t, keys[i].key, c[keys[i].column]);
}

static void
add_site (const struct hi_analysis *a, uint64_t s, void *row)
{
  const struct hi_chain_time *ct = &a->m->chain_time[s];
  struct life x;
  memcpy (x.hist, ct->life, sizeof x.hist);
  x.freed = ct->freed;
  x.freed_ns = ct->freed_ns;
  x.live = ct->live;
  x.live_clock_sum = ct->live_clock_sum;
  x.live_ns_sum = ct->live_ns_sum;
  add (row, &x);
}

/* Rows are the chains with blocks that carry a birth stamp. */
static int
stamped (const void *row)
{
  const struct life *x = row;
  return x->freed || x->live;
}

static int
above (const struct hi_analysis *a, const void *row, const void *total)
{
  const struct life *x = row, *all = total;
  return hi_shown (&a->opt, hi_add_sat (x->freed, x->live),
                   hi_add_sat (all->freed, all->live));
}

static const struct hi_chain_table lifetime_table = {
  .size = sizeof (struct life), .path_at = offsetof (struct life, path),
  .add_site = add_site, .add = add, .in_table = stamped, .order = by_frees,
  .above = above, .cells = cells, .total_row = 1, .facts = facts,
};

hi_status
hi_table_lifetimes (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct hi_table *t = hi_rmodel_table (r, "lifetimes", "Lifetime Table",
                                        columns, N_COLUMNS);
  if (!t)
    return HI_E_NOMEM;
  if (!m->has_time || !m->chain_time)
    {
      hi_table_no_time (m, t);
      return r->nomem ? HI_E_NOMEM : HI_OK;
    }
  hi_table_flag (t, "time_data", 1);
  hi_table_flag (t, "lifetimes", m->lifetimes);
  if (!m->lifetimes)
    {
      t->n_columns = 0;
      t->legend = "no lifetimes: the process did not record them; "
                  "HEAPINSPECT_LIFETIMES=1 in its environment does";
      hi_table_fact (t, "note", hi_cell_text (t->legend));
      return r->nomem ? HI_E_NOMEM : HI_OK;
    }
  t->legend = "lifetime of freed blocks in bytes the process allocated "
              "meanwhile: the median's and 90th percentile's log2 bucket "
              "(LO-HI: at least LO, under HI), the mean in time; live "
              "blocks' mean age in bytes allocated since and in time";
  return hi_chain_table (a, r, t, &lifetime_table);
}
