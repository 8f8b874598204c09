/* table-bins.c - mprof's allocation bin table: per requested size. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"

static void
size_label (char *buf, size_t n, unsigned bin)
{
  if (bin > HI_BIN_MAX)
    snprintf (buf, n, ">%u", HI_BIN_MAX);
  else
    snprintf (buf, n, "%u", bin);
}

/* Whether bin B is a row: by its share of the bytes or of the kept
   bytes; a bin without bytes (size 0) by its share of the allocations,
   its only measure. */
static int
bin_shown (const struct hi_options *o, const struct hi_bin *b,
           uint64_t bytes, uint64_t kept, uint64_t allocs)
{
  if (!b->allocs)
    return 0;
  if (!b->bytes)
    return hi_shown (o, b->allocs, allocs);
  return hi_shown (o, b->bytes, bytes)
         || hi_shown (o, hi_sub0 (b->bytes, b->bytes_freed), kept);
}

/* Bin B's weight for the page limit: the larger of its two shares
   (bin_shown's), or its share of the allocations for a bin without
   bytes. */
static double
bin_weight (const struct hi_bin *b, uint64_t bytes, uint64_t kept,
            uint64_t allocs)
{
  if (!b->bytes)
    return allocs ? (double) b->allocs / (double) allocs : 0;
  double w = bytes ? (double) b->bytes / (double) bytes : 0;
  double k = kept ? (double) hi_sub0 (b->bytes, b->bytes_freed)
                    / (double) kept : 0;
  return k > w ? k : w;
}

/* For qsort: bins by weight, largest first; ties by size. */
struct ranked
{
  double weight;
  unsigned bin;
};

static int
by_weight (const void *x, const void *y)
{
  const struct ranked *a = x, *b = y;
  if (a->weight != b->weight)
    return a->weight < b->weight ? 1 : -1;
  return a->bin < b->bin ? -1 : a->bin > b->bin;
}

/* Which bins reaching the threshold are shown, into SHOWN: all, or the
   LIMIT largest (hi_page_rows) when more reach it; the table stays in
   the order of sizes.  -1 if out of memory. */
static int
choose_bins (const struct hi_options *o, const struct hi_bin *bins,
             uint64_t bytes, uint64_t kept, uint64_t allocs, uint32_t limit,
             unsigned char *shown)
{
  struct ranked *rank = malloc (HI_NBINS * sizeof *rank);
  if (!rank)
    return -1;
  size_t n = 0;
  for (unsigned i = 0; i < HI_NBINS; i++)
    if (bin_shown (o, &bins[i], bytes, kept, allocs))
      rank[n++] = (struct ranked) { bin_weight (&bins[i], bytes, kept,
                                                allocs), i };
  if (limit && n > limit)
    qsort (rank, n, sizeof *rank, by_weight);
  for (size_t i = 0; i < n && (!limit || i < limit); i++)
    shown[rank[i].bin] = 1;
  free (rank);
  return 0;
}

/* Each of TYPES (", "-separated) with a "?": they are guesses. */
static const char *
guesses (struct hi_rmodel *r, const char *types)
{
  char buf[1024];
  size_t at = 0;
  const char *p = types;
  while (*p && at < sizeof buf)
    {
      size_t len = strcspn (p, ",");
      at += (size_t) snprintf (buf + at, sizeof buf - at, "%s%.*s?",
                               at ? ", " : "", (int) len, p);
      p += len;
      while (*p == ',' || *p == ' ')
        p++;
    }
  return hi_rmodel_strdup (r, buf);
}

static const struct hi_column columns[] = {
  { .key = "size", .head = "size", .type = HI_CELL_TEXT },
  { .key = "allocs", .head = "allocs", .type = HI_CELL_COUNT },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "frees", .head = "frees", .type = HI_CELL_COUNT },
  { .key = "kept", .head = "kept", .type = HI_CELL_BYTES },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "types", .head = "types", .type = HI_CELL_TEXT, .left = 1,
    .max_width = 72 },
};

hi_status
hi_table_bins (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_bin *bins = a->m->bins;
  uint64_t bytes = 0, kept = 0, allocs = 0;
  for (unsigned i = 0; i < HI_NBINS; i++)
    {
      bytes = hi_add_sat (bytes, bins[i].bytes);
      kept = hi_add_sat (kept, hi_sub0 (bins[i].bytes, bins[i].bytes_freed));
      allocs = hi_add_sat (allocs, bins[i].allocs);
    }
  struct hi_table *t = hi_rmodel_table (r, "bins", "Allocation Bins with "
                                        "possible Types", columns,
                                        sizeof columns / sizeof columns[0]);
  if (!t)
    return HI_E_NOMEM;
  t->threshold = hi_threshold (&a->opt);
  t->legend = "size: bytes asked for; (%) of all bytes, of all kept; "
              "types: the program's types of that size";
  /* With the client API's types, a bin's types are those the program
     named for its blocks; the program's types of that size (DWARF)
     stand in for them where it named none, marked as guesses. */
  if (hi_types_ready (a) != HI_OK)
    return HI_E_NOMEM;
  int typed = a->n_types > 0;
  uint32_t *tstart = NULL, *tlist = NULL;
  if (typed && hi_types_group (a, NULL, 1, HI_NBINS, &tstart, &tlist) != HI_OK)
    return HI_E_NOMEM;
  if (typed)
    t->legend = "size: bytes asked for; (%) of all bytes, of all kept; "
                "types: the types the program named for these blocks, "
                "else (guess?) its types of that size";
  /* At most a page of rows (hi_page_rows): the largest bins, by the
     larger of their shares, shown in the order of sizes. */
  unsigned char chosen[HI_NBINS] = { 0 };
  if (choose_bins (&a->opt, bins, bytes, kept, allocs,
                   hi_page_rows (&a->opt), chosen) != 0)
    {
      free (tstart);
      free (tlist);
      return HI_E_NOMEM;
    }
  for (unsigned i = 0; i < HI_NBINS && !r->nomem; i++)
    {
      const struct hi_bin *b = &bins[i];
      if (!b->allocs)
        continue;
      if (!bin_shown (&a->opt, b, bytes, kept, allocs))
        {
          t->below_threshold++;
          continue;
        }
      if (!chosen[i])
        {
          t->over_limit++;
          continue;
        }
      uint64_t k = hi_sub0 (b->bytes, b->bytes_freed);
      const char *types = i <= HI_BIN_MAX ? hi_types_of_size (a->sym, i) : NULL;
      char size[16];
      size_label (size, sizeof size, i);
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      c[0] = hi_cell_text (hi_rmodel_strdup (r, size));
      c[1] = hi_cell_count (b->allocs);
      c[2] = hi_cell_bytes (b->bytes);
      c[3] = hi_cell_pct2 (b->bytes, bytes);
      c[4] = hi_cell_count (b->frees);
      c[5] = hi_cell_bytes (k);
      c[6] = hi_cell_pct2 (k, kept);
      char exact[512];
      if (typed)
        {
          hi_types_join (a, tlist + tstart[i], tstart[i + 1] - tstart[i],
                         exact, sizeof exact);
          if (exact[0])
            types = hi_rmodel_strdup (r, exact);
          else if (types)
            types = guesses (r, types);
        }
      c[7] = hi_cell_text (types ? types : "");
    }
  free (tstart);
  free (tlist);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
