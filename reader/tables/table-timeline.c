/* table-timeline.c - the timeline (format 4's time data): the monitor's
   points and detailed points merged in clock order, the peak and "now"
   among them, into the report's timeline, on a time axis of the bytes
   allocated and freed; and the `timeline` tables made of it (the points,
   then the chains of the detailed ones, those whose paths read the same
   as one row). */
#include "tables/tables.h"
#include "util/num.h"
#include "util/vec.h"
#include "util/sort.h"
#include "report/timetab.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build
{
  struct hi_analysis *a;
  struct hi_rtimeline *tl;
  struct hi_rmodel *r;
  uint32_t *chain_of;        /* site -> chain + 1; 0: none yet */
  uint32_t *row_of;          /* site -> its path's row (hi_path_rows), or
                                UINT32_MAX */
  uint64_t *chain_of_row;    /* row -> its first chain + 1; 0: none yet */
  size_t cap_points, cap_at, cap_chains;
};

/* Site S's chain in the timeline, made on first use; UINT64_MAX if out
   of memory. */
static uint64_t
chain_for (struct build *b, uint64_t s)
{
  if (b->chain_of[s])
    return b->chain_of[s] - 1;
  struct hi_analysis *a = b->a;
  struct hi_rmodel *r = b->r;
  struct hi_rtimeline *tl = b->tl;
  if (hi_grow ((void **) &tl->chains, &b->cap_chains, tl->n_chains + 1,
               sizeof *tl->chains) != 0)
    return UINT64_MAX;
  struct hi_rchain c = { .site = s, .same = tl->n_chains };
  uint32_t row = b->row_of && b->chain_of_row ? b->row_of[s] : UINT32_MAX;
  if (row != UINT32_MAX && b->chain_of_row[row])
    c.same = b->chain_of_row[row] - 1;
  else if (row != UINT32_MAX)
    b->chain_of_row[row] = tl->n_chains + 1;
  struct hi_cell path = hi_path_cell (a, s, r);
  c.path_first = path.v;
  c.path_n = path.whole;
  c.full_first = r->n_frames;
  for (uint32_t i = a->chain_start[s]; i < a->chain_start[s + 1]; i++)
    {
      struct hi_rframe f = hi_report_frame (a, a->chain_frames[i]);
      if (hi_rmodel_frames (r, &f, 1) == UINT64_MAX)
        return UINT64_MAX;
    }
  c.full_n = r->n_frames - c.full_first;
  if (r->nomem)
    return UINT64_MAX;
  tl->chains[tl->n_chains++] = c;
  b->chain_of[s] = (uint32_t) tl->n_chains;
  return tl->n_chains - 1;
}

/* Append site S's BYTES and BLOCKS to the chains of the last point;
   0, or -1 if out of memory.  Filtered chains are left out. */
static int
add_chain (struct build *b, uint64_t s, uint64_t bytes, uint64_t blocks)
{
  if (hi_site_flags (b->a, s) & HI_SITE_FILTERED)
    return 0;
  uint64_t c = chain_for (b, s);
  struct hi_rtimeline *tl = b->tl;
  if (c == UINT64_MAX
      || hi_grow ((void **) &tl->at, &b->cap_at, tl->n_at + 1,
                  sizeof *tl->at) != 0)
    return -1;
  tl->at[tl->n_at++] = (struct hi_rtchain) { c, bytes, blocks };
  tl->points[tl->n_points - 1].n++;
  return 0;
}

static struct hi_rpoint *
add_point (struct build *b, const struct hi_tpoint *p, enum hi_rpoint_kind k)
{
  struct hi_rtimeline *tl = b->tl;
  if (hi_grow ((void **) &tl->points, &b->cap_points, tl->n_points + 1,
               sizeof *tl->points) != 0)
    return NULL;
  struct hi_rpoint *o = &tl->points[tl->n_points++];
  *o = (struct hi_rpoint) { p->time_ns, p->clock, 0, p->live_bytes,
                            p->live_blocks, k, tl->n_at, 0 };
  return o;
}

static int
by_bytes (const void *x, const void *y)
{
  const struct hi_rtchain *a = x, *b = y;
  int c = hi_cmp_u64 (b->bytes, a->bytes);
  if (c == 0)
    c = hi_cmp_u64 (b->blocks, a->blocks);
  return c ? c : hi_cmp_u64 (a->chain, b->chain);
}

static void
sort_last (struct build *b)
{
  const struct hi_rpoint *p = &b->tl->points[b->tl->n_points - 1];
  if (p->n > 1)
    qsort (b->tl->at + p->first, p->n, sizeof *b->tl->at, by_bytes);
}

static int
same_point (const struct hi_tpoint *x, const struct hi_tpoint *y)
{
  return x->time_ns == y->time_ns && x->clock == y->clock
         && x->live_bytes == y->live_bytes && x->live_blocks == y->live_blocks;
}

/* The monitor's points and detailed points in clock order (each list is
   in order already); a detailed point that is also a point is one. */
static int
merge_points (struct build *b)
{
  const struct hi_model *m = b->a->m;
  uint64_t i = 0, j = 0;
  while (i < m->n_points || j < m->n_detailed)
    {
      const struct hi_tpoint *p = i < m->n_points ? &m->points[i] : NULL;
      const struct hi_tdetail *d = j < m->n_detailed ? &m->detailed[j] : NULL;
      int take_d = d && (!p || same_point (p, &d->at)
                         || d->at.clock < p->clock
                         || (d->at.clock == p->clock
                             && d->at.time_ns < p->time_ns));
      if (!take_d)
        {
          if (!add_point (b, p, HI_RPOINT_PLAIN))
            return -1;
          i++;
          continue;
        }
      if (p && same_point (p, &d->at))
        i++;
      j++;
      if (!add_point (b, &d->at, HI_RPOINT_DETAILED))
        return -1;
      for (uint32_t k = 0; k < d->n_chains; k++)
        if (add_chain (b, d->chains[k].site, d->chains[k].live_bytes,
                       d->chains[k].live_blocks) != 0)
          return -1;
      sort_last (b);
    }
  return 0;
}

/* The peak: every chain's bytes then, at its clock among the points
   (the point there if it holds the peak's bytes).  0, or -1. */
static int
add_peak (struct build *b, const struct hi_stat *st)
{
  const struct hi_model *m = b->a->m;
  struct hi_rtimeline *tl = b->tl;
  struct hi_tpoint peak = { m->peak_time_ns, m->root.peak_clock,
                            m->root.totals.peak_bytes, 0 };
  /* root.totals.peak_blocks is the most blocks ever live, maybe at
     another moment: the blocks at the peak are the chains'. */
  peak.live_blocks = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    peak.live_blocks = hi_add_sat (peak.live_blocks,
                                   m->chain_time[s].peak_blocks);
  size_t at = 0;
  if (m->peak_is_live)
    {
      /* The live figures stand for the peak's: it is now. */
      peak.live_bytes = st->live_bytes;
      peak.live_blocks = st->live_blocks;
      peak.clock = m->root.alloc_clock;
      peak.time_ns = m->run_ns;
      at = tl->n_points;
      if (at && tl->points[at - 1].clock > peak.clock)
        peak.clock = tl->points[at - 1].clock;
    }
  else
    while (at < tl->n_points && tl->points[at].clock < peak.clock)
      at++;
  int own = at < tl->n_points && tl->points[at].clock == peak.clock
            && tl->points[at].bytes == peak.live_bytes;
  if (!own)
    {
      if (!add_point (b, &peak, HI_RPOINT_PEAK))
        return -1;
      /* Move it from the end to AT, its time kept between its
         neighbours'. */
      struct hi_rpoint p = tl->points[tl->n_points - 1];
      memmove (&tl->points[at + 1], &tl->points[at],
               (tl->n_points - 1 - at) * sizeof *tl->points);
      if (at > 0 && p.time_ns < tl->points[at - 1].time_ns)
        p.time_ns = tl->points[at - 1].time_ns;
      if (at + 1 < tl->n_points && p.time_ns > tl->points[at + 1].time_ns)
        p.time_ns = tl->points[at + 1].time_ns;
      tl->points[at] = p;
    }
  struct hi_rpoint *p = &tl->points[at];
  p->kind = HI_RPOINT_PEAK;
  tl->peak = at;
  /* Its chains are appended to the timeline's list; a detailed point's
     own are left there unused (the peak's are every chain's). */
  p->first = tl->n_at;
  p->n = 0;
  size_t first = tl->n_at;
  for (uint64_t s = 0; s < m->n_sites; s++)
    if (m->chain_time[s].peak_bytes || m->chain_time[s].peak_blocks)
      {
        if (hi_site_flags (b->a, s) & HI_SITE_FILTERED)
          continue;
        uint64_t c = chain_for (b, s);
        if (c == UINT64_MAX
            || hi_grow ((void **) &tl->at, &b->cap_at, tl->n_at + 1,
                        sizeof *tl->at) != 0)
          return -1;
        tl->at[tl->n_at++] = (struct hi_rtchain) {
          c, m->chain_time[s].peak_bytes, m->chain_time[s].peak_blocks };
      }
  p = &tl->points[at];
  p->first = first;
  p->n = tl->n_at - first;
  if (p->n > 1)
    qsort (tl->at + first, p->n, sizeof *tl->at, by_bytes);
  return 0;
}

/* Now: the live totals (stat's) and every live chain, last. */
static int
add_now (struct build *b, const struct hi_stat *st)
{
  const struct hi_model *m = b->a->m;
  struct hi_rtimeline *tl = b->tl;
  /* Without time data the clock is the bytes allocated, which it
     counts. */
  struct hi_tpoint now = { m->run_ns, m->has_time ? m->root.alloc_clock
                                                  : st->bytes_allocated,
                           st->live_bytes, st->live_blocks };
  if (tl->n_points)
    {
      const struct hi_rpoint *last = &tl->points[tl->n_points - 1];
      if (now.time_ns < last->time_ns)
        now.time_ns = last->time_ns;
      if (now.clock < last->clock)
        now.clock = last->clock;
    }
  if (!add_point (b, &now, HI_RPOINT_NOW))
    return -1;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      const struct hi_site_sum *sum = &b->a->sum[s];
      uint64_t bytes = hi_sub0 (sum->bytes, sum->freed);
      uint64_t blocks = hi_sub0 (sum->allocs, sum->frees);
      if ((bytes || blocks) && add_chain (b, s, bytes, blocks) != 0)
        return -1;
    }
  sort_last (b);
  return 0;
}

/* Every point's place on the time axis: the bytes allocated and freed
   by then, 2 * clock - live bytes (the clock counts the bytes allocated,
   and those freed are the clock less the live ones), never going back
   (threads' batches: the two figures are read apart). */
static void
set_moved (struct hi_rtimeline *tl)
{
  uint64_t last = 0;
  for (size_t i = 0; i < tl->n_points; i++)
    {
      struct hi_rpoint *p = &tl->points[i];
      uint64_t v = hi_sub0 (hi_add_sat (p->clock, p->clock), p->bytes);
      p->moved = v > last ? v : last;
      last = p->moved;
    }
}

hi_status
hi_timeline_build (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct hi_rtimeline *tl = &r->timeline;
  if (tl->n_points)
    return HI_OK;             /* built already */
  /* Without time data, now alone (no peak): what massif's file can
     still show. */
  int time = m->has_time && m->chain_time;
  struct build b = { .a = a, .tl = tl, .r = r };
  b.chain_of = calloc (m->n_sites ? m->n_sites : 1, sizeof *b.chain_of);
  /* Chains whose paths read the same share a row, as in the leak table. */
  uint64_t *first_site = NULL, filtered = 0;
  size_t n_rows = 0;
  if (hi_path_rows (a, 0, &b.row_of, &first_site, &n_rows, &filtered)
      == HI_OK)
    b.chain_of_row = calloc (n_rows ? n_rows : 1, sizeof *b.chain_of_row);
  free (first_site);
  struct hi_stat st;
  hi_stat_compute (m, &st);
  tl->top = HI_TIMELINE_TOP;
  tl->peak = SIZE_MAX;
  int bad = !b.chain_of || !b.chain_of_row
            || (time && (merge_points (&b) != 0 || add_peak (&b, &st) != 0))
            || add_now (&b, &st) != 0;
  free (b.chain_of);
  free (b.row_of);
  free (b.chain_of_row);
  if (bad || r->nomem)
    return HI_E_NOMEM;
  set_moved (tl);
  tl->has = time;
  return HI_OK;
}

static const struct hi_column point_columns[] = {
  { .key = "point", .head = "n", .type = HI_CELL_COUNT },
  { .key = "time_ns", .head = "time(ms)", .type = HI_CELL_MS },
  { .key = "clock", .head = "clock", .head2 = "(bytes allocated)",
    .type = HI_CELL_BYTES },
  { .key = "alloc_free", .head = "alloc+free", .head2 = "(bytes)",
    .type = HI_CELL_BYTES },
  { .key = "live_bytes", .head = "live bytes", .type = HI_CELL_BYTES },
  { .key = "live_blocks", .head = "live blocks", .type = HI_CELL_COUNT },
  { .key = "kind", .head = "", .type = HI_CELL_TEXT, .left = 1 },
};

static const struct hi_column chain_columns[] = {
  { .key = "point", .head = "n", .type = HI_CELL_COUNT },
  { .key = "live_bytes", .head = "live bytes", .type = HI_CELL_BYTES },
  { .key = NULL, .head = "%", .type = HI_CELL_PCT2 },
  { .key = "live_blocks", .head = "blocks", .type = HI_CELL_COUNT },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

static const char *const kind_names[] = {
  [HI_RPOINT_PLAIN] = NULL, [HI_RPOINT_DETAILED] = "detailed",
  [HI_RPOINT_PEAK] = "peak", [HI_RPOINT_NOW] = "now",
};

/* Point P's chains into ROWS, those whose paths read the same (their
   `same`) summed into one entry named by that chain, the most bytes
   first; how many.  SLOT (per chain, UINT32_MAX) is scratch, left as
   it was found. */
static size_t
merge_rows (const struct hi_rtimeline *tl, const struct hi_rpoint *p,
            struct hi_rtchain *rows, uint32_t *slot)
{
  size_t n = 0;
  for (uint64_t k = 0; k < p->n; k++)
    {
      const struct hi_rtchain *ch = &tl->at[p->first + k];
      uint64_t same = tl->chains[ch->chain].same;
      if (slot[same] == UINT32_MAX)
        {
          slot[same] = (uint32_t) n;
          rows[n++] = (struct hi_rtchain) { same, 0, 0 };
        }
      struct hi_rtchain *row = &rows[slot[same]];
      row->bytes = hi_add_sat (row->bytes, ch->bytes);
      row->blocks = hi_add_sat (row->blocks, ch->blocks);
    }
  for (size_t k = 0; k < n; k++)
    slot[rows[k].chain] = UINT32_MAX;
  if (n > 1)
    qsort (rows, n, sizeof *rows, by_bytes);
  return n;
}

hi_status
hi_table_timeline (struct hi_analysis *a, struct hi_rmodel *r)
{
  hi_status s = hi_timeline_build (a, r);
  if (s != HI_OK)
    return s;
  const struct hi_rtimeline *tl = &r->timeline;
  struct hi_table *t = hi_rmodel_table (r, "timeline", "Timeline",
                                        point_columns, 7);
  if (!t)
    return HI_E_NOMEM;
  if (!tl->has)
    {
      /* The line the other time tables give, and time_data false. */
      hi_table_no_time (a->m, t);
      return r->nomem ? HI_E_NOMEM : HI_OK;
    }
  t->chart = 1;
  hi_table_flag (t, "time_data", 1);
  /* Unless --verbose, the rows are the detailed points, the peak and
     now (the chart draws every point). */
  int all = a->opt.verbosity == HI_VERBOSE;
  uint64_t left_out = 0;
  for (size_t i = 0; i < tl->n_points; i++)
    {
      const struct hi_rpoint *p = &tl->points[i];
      if (!all && p->kind == HI_RPOINT_PLAIN)
        {
          left_out++;
          continue;
        }
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_count (i);
      c[1] = (struct hi_cell) { HI_CELL_MS, NULL, p->time_ns, 0 };
      c[2] = hi_cell_bytes (p->clock);
      c[3] = hi_cell_bytes (p->moved);
      c[4] = hi_cell_bytes (p->bytes);
      c[5] = hi_cell_count (p->blocks);
      if (kind_names[p->kind])
        c[6] = hi_cell_text (kind_names[p->kind]);
    }
  char head[400];
  if (left_out)
    snprintf (head, sizeof head, "live bytes over the bytes allocated and "
              "freed (alloc+free, massif's time unit B): the detailed points "
              "the monitor kept, the peak, and now (the live totals when "
              "read); %" PRIu64 " other points in the chart, --verbose lists "
              "them", left_out);
  else
    snprintf (head, sizeof head, "live bytes over the bytes allocated and "
              "freed (alloc+free, massif's time unit B): the points the "
              "monitor kept, the peak, and now (the live totals when "
              "read)");
  t->legend = hi_rmodel_strdup (r, head);
  hi_table_fact (t, "points_left_out", hi_cell_count (left_out));
  t = hi_rmodel_table (r, "timeline_chains",
                       "Timeline: Chains at the Detailed Points, the Peak "
                       "and Now", chain_columns, 5);
  if (!t)
    return HI_E_NOMEM;
  char legend[400];
  snprintf (legend, sizeof legend, "at each, the %u chains with the most "
            "live bytes (n: the point above; %%: of its live bytes; chains "
            "whose paths read the same are one row, --offsets tells their "
            "call sites apart; --threshold and --limit apply at each "
            "point; --format=massif has all of the peak's and now's)",
            (unsigned) tl->top);
  t->legend = hi_rmodel_strdup (r, legend);
  struct hi_rtchain *rows = malloc ((tl->n_at + 1) * sizeof *rows);
  uint32_t *slot = malloc ((tl->n_chains + 1) * sizeof *slot);
  if (!rows || !slot)
    {
      free (rows);
      free (slot);
      return HI_E_NOMEM;
    }
  for (size_t c = 0; c < tl->n_chains; c++)
    slot[c] = UINT32_MAX;
  for (size_t i = 0; i < tl->n_points && !r->nomem; i++)
    {
      const struct hi_rpoint *p = &tl->points[i];
      size_t n = merge_rows (tl, p, rows, slot);
      uint64_t shown = 0;
      for (size_t k = 0; k < n && k < tl->top; k++)
        {
          const struct hi_rtchain *ch = &rows[k];
          const struct hi_rchain *chain = &tl->chains[ch->chain];
          if (!hi_keep_row (&a->opt, t, &shown,
                            hi_shown (&a->opt, ch->bytes, p->bytes)))
            continue;
          struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
          if (!c)
            break;
          t->rows[t->n_rows - 1].group = (uint32_t) i;
          c[0] = hi_cell_count (i);
          c[1] = hi_cell_bytes (ch->bytes);
          c[2] = hi_cell_pct2 (ch->bytes, p->bytes);
          c[3] = hi_cell_count (ch->blocks);
          c[4] = hi_cell_path (chain->path_first, chain->path_n);
        }
    }
  free (rows);
  free (slot);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
