/* table-bins.c - mprof's allocation bin table: per requested size. */
#include "analysis.h"

#include <inttypes.h>

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

hi_status
hi_table_bins (struct hi_analysis *a, FILE *f)
{
  const struct hi_bin *bins = a->m->bins;
  uint64_t bytes = 0, kept = 0, allocs = 0;
  for (unsigned i = 0; i < HI_NBINS; i++)
    {
      bytes = hi_add_sat (bytes, bins[i].bytes);
      kept = hi_add_sat (kept, hi_sub0 (bins[i].bytes, bins[i].bytes_freed));
      allocs = hi_add_sat (allocs, bins[i].allocs);
    }
  int json = a->opt.format == HI_JSON;
  if (json)
    fputs ("\"bins\": [", f);
  else
    fputs ("--------- Allocation Bins with possible Types ---------\n\n"
           "   size   allocs       bytes (%)    frees        kept (%)  types\n",
           f);
  int first = 1;
  for (unsigned i = 0; i < HI_NBINS; i++)
    {
      const struct hi_bin *b = &bins[i];
      uint64_t k = hi_sub0 (b->bytes, b->bytes_freed);
      if (!bin_shown (&a->opt, b, bytes, kept, allocs))
        continue;
      const char *types = i <= HI_BIN_MAX ? hi_types_of_size (a->sym, i) : NULL;
      char size[16], p1[3], p2[3];
      size_label (size, sizeof size, i);
      if (json)
        {
          fprintf (f, "%s\n  {\"size\": \"%s\", \"allocs\": %" PRIu64
                   ", \"bytes\": %" PRIu64 ", \"frees\": %" PRIu64
                   ", \"kept\": %" PRIu64 ", \"types\": ",
                   first ? "" : ",", size, b->allocs, b->bytes, b->frees, k);
          hi_json_string (f, types ? types : "");
          fputc ('}', f);
        }
      else
        {
          hi_pct2 (p1, b->bytes, bytes);
          hi_pct2 (p2, k, kept);
          fprintf (f, "%7s %8" PRIu64 " %11" PRIu64 " (%s) %8" PRIu64
                   " %11" PRIu64 " (%s)  %s\n", size, b->allocs, b->bytes, p1,
                   b->frees, k, p2, types ? types : "");
        }
      first = 0;
    }
  fputs (json ? "\n]" : "\n", f);
  return HI_OK;
}
