/* table-leaks.c - mprof's memory leak table: partial call chains that
   allocated memory never freed, largest first. */
#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct leak
{
  uint32_t path;             /* id in the paths table */
  uint64_t kept, allocs, bytes, frees, freed;
};

static int
by_kept (const void *x, const void *y)
{
  const struct leak *a = x, *b = y;
  if (a->kept != b->kept)
    return a->kept < b->kept ? 1 : -1;
  return a->path < b->path ? -1 : a->path > b->path;
}

void
hi_table_leaks (struct hi_analysis *a, FILE *f)
{
  const struct hi_model *m = a->m;
  struct hi_strtab paths;
  hi_strtab_init (&paths);
  struct leak *rows = calloc (m->n_sites ? m->n_sites : 1, sizeof *rows);
  size_t n = 0;
  uint64_t kept_all = a->total_bytes - a->total_freed;
  for (uint64_t s = 0; rows && s < m->n_sites; s++)
    {
      const struct hi_site_sum *x = &a->sum[s];
      if (x->bytes == x->freed && x->allocs == x->frees)
        continue;
      char buf[8192];
      hi_site_path (a, s, buf, sizeof buf);
      uint32_t id = hi_strtab_intern (&paths, buf);
      if (id == UINT32_MAX)
        break;
      if (id == n)
        rows[n++].path = id;
      struct leak *r = &rows[id];
      r->kept += x->bytes - x->freed;
      r->allocs += x->allocs;
      r->bytes += x->bytes;
      r->frees += x->frees;
      r->freed += x->freed;
    }
  if (rows)
    qsort (rows, n, sizeof *rows, by_kept);
  int json = a->opt.format == HI_JSON;
  if (json)
    fputs ("\"leaks\": [", f);
  else
    fputs ("--------- Partial Memory Leak Table ---------\n\n"
           "   kept bytes (%)    allocs       bytes (%)    frees  bytes freed  path\n",
           f);
  int first = 1;
  for (size_t i = 0; i < n; i++)
    {
      const struct leak *r = &rows[i];
      if (!hi_shown (&a->opt, r->kept, kept_all))
        continue;
      const char *path = paths.strs[r->path];
      if (json)
        {
          fprintf (f, "%s\n  {\"kept\": %" PRIu64 ", \"allocs\": %" PRIu64
                   ", \"bytes\": %" PRIu64 ", \"frees\": %" PRIu64
                   ", \"bytes_freed\": %" PRIu64 ", \"path\": ",
                   first ? "" : ",", r->kept, r->allocs, r->bytes, r->frees,
                   r->freed);
          hi_json_string (f, path);
          fputc ('}', f);
        }
      else
        {
          char p1[3], p2[3], freed[24] = "";
          hi_pct2 (p1, r->kept, kept_all);
          hi_pct2 (p2, r->bytes, a->total_bytes);
          if (r->freed)
            snprintf (freed, sizeof freed, "%" PRIu64, r->freed);
          fprintf (f, "%12" PRIu64 " (%s) %9" PRIu64 " %11" PRIu64 " (%s) %8"
                   PRIu64 " %12s  %s\n", r->kept, p1, r->allocs, r->bytes, p2,
                   r->frees, freed, path);
        }
      first = 0;
    }
  fputs (json ? "\n]" : "\n", f);
  free (rows);
  hi_strtab_free (&paths);
}
