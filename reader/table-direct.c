/* table-direct.c - mprof's direct allocation table: per function that
   called the allocator, like gprof's flat profile. */
#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
  if (a->bytes != b->bytes)
    return a->bytes < b->bytes ? 1 : -1;
  return a->func < b->func ? -1 : a->func > b->func;
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

static void
print_row (struct hi_analysis *a, FILE *f, const struct direct *d,
           const struct direct *total, const char *name, int first)
{
  static const char cls[] = "smlx";
  if (a->opt.format == HI_JSON)
    {
      fprintf (f, "%s\n  {\"name\": ", first ? "" : ",");
      hi_json_string (f, name);
      fprintf (f, ", \"bytes\": %" PRIu64 ", \"kept\": %" PRIu64
               ", \"calls\": %" PRIu64, d->bytes, d->kept, d->calls);
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        fprintf (f, ", \"bytes_%c\": %" PRIu64 ", \"kept_%c\": %" PRIu64,
                 cls[c], d->cbytes[c], cls[c], d->ckept[c]);
      fputc ('}', f);
      return;
    }
  char p[3], s[HI_NSIZE_CLASSES][3], k[HI_NSIZE_CLASSES][3];
  hi_pct2 (p, d->bytes, total->bytes);
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    {
      hi_pct2 (s[c], d->cbytes[c], total->bytes);
      hi_pct2 (k[c], d->ckept[c], total->kept);
    }
  fprintf (f, "   %s %12" PRIu64 " %12" PRIu64 " %9" PRIu64
           "  %s %s %s %s   %s %s %s %s  %s\n", p, d->bytes, d->kept,
           d->calls, s[0], s[1], s[2], s[3], k[0], k[1], k[2], k[3], name);
}

hi_status
hi_table_direct (struct hi_analysis *a, FILE *f)
{
  const struct hi_model *m = a->m;
  uint32_t nf = a->funcs.n;
  struct direct *rows = calloc ((size_t) nf + 1, sizeof *rows);
  if (!rows)
    return HI_E_NOMEM;
  struct direct total;
  memset (&total, 0, sizeof total);
  total.func = UINT32_MAX;
  for (uint32_t i = 0; i <= nf; i++)
    rows[i].func = i;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      uint32_t from = a->chain_start[s], to = a->chain_start[s + 1];
      /* Allocations without a chain are counted in the total only. */
      uint32_t fn = from < to ? hi_chain_frame (a, to - 1)->func : nf;
      add_site (&rows[fn], &m->sites[s]);
      add_site (&total, &m->sites[s]);
    }
  int json = a->opt.format == HI_JSON;
  fputs (json ? "\"direct\": [" :
         "--------- Direct Allocation Table ---------\n\n"
         " % mem        bytes   bytes kept     calls  % mem(size)   % all kept  name\n"
         "                                             s  m  l  x    s  m  l  x\n", f);
  print_row (a, f, &total, &total, "<TOTAL>", 1);
  qsort (rows, (size_t) nf + 1, sizeof *rows, by_bytes);
  for (uint32_t i = 0; i <= nf; i++)
    if (rows[i].calls)
      print_row (a, f, &rows[i], &total,
                 rows[i].func < nf ? a->funcs.strs[rows[i].func]
                                   : "<no call chain recorded>", 0);
  fputs (json ? "\n]" : "\n", f);
  free (rows);
  return HI_OK;
}
