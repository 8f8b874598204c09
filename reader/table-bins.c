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

void
hi_table_bins (struct hi_analysis *a, FILE *f)
{
  const struct hi_bin *bins = a->m->bins;
  uint64_t bytes = 0, kept = 0;
  for (unsigned i = 0; i < HI_NBINS; i++)
    {
      bytes += bins[i].bytes;
      kept += bins[i].bytes - bins[i].bytes_freed;
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
      uint64_t k = b->bytes - b->bytes_freed;
      if (!b->allocs
          || !(hi_shown (&a->opt, b->bytes, bytes) || hi_shown (&a->opt, k, kept)))
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
}
