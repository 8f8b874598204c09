/* table-leaks.c - mprof's memory leak table: partial call chains that
   allocated memory never freed, largest first. */
#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct leak
{
  uint32_t path;             /* index in first_site: the row's first site */
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

/* The part of site S's chain a leak path shows: [*FROM, TO) in
   chain_nodes, and whether callers were cut. */
static void
path_span (struct hi_analysis *a, uint64_t s, uint32_t *from, uint32_t *to)
{
  uint32_t f = a->chain_start[s], t = a->chain_start[s + 1];
  uint32_t depth = a->opt.depth > 0 ? (uint32_t) a->opt.depth : 1;
  *from = t - f > depth ? t - depth : f;
  *to = t;
}

/* 1 if sites X and Y show the same path (same labels, same cut). */
static int
same_path (struct hi_analysis *a, uint64_t x, uint64_t y)
{
  uint32_t fx, tx, fy, ty;
  path_span (a, x, &fx, &tx);
  path_span (a, y, &fy, &ty);
  if (tx - fx != ty - fy || (fx > a->chain_start[x]) != (fy > a->chain_start[y]))
    return 0;
  for (uint32_t i = 0; i < tx - fx; i++)
    if (a->node_label[a->chain_nodes[fx + i]]
        != a->node_label[a->chain_nodes[fy + i]])
      return 0;
  return 1;
}

static uint64_t
path_hash (struct hi_analysis *a, uint64_t s)
{
  uint32_t from, to;
  path_span (a, s, &from, &to);
  uint64_t h = from > a->chain_start[s] ? 7 : 3;
  for (uint32_t i = from; i < to; i++)
    h = hi_hash_u64 (h ^ a->node_label[a->chain_nodes[i]]);
  return h;
}

struct path_key
{
  struct hi_analysis *a;
  const uint64_t *first_site;
  uint64_t s;
};

static int
same_row (const void *ctx, uint32_t row)
{
  const struct path_key *k = ctx;
  return same_path (k->a, k->first_site[row], k->s);
}

void
hi_table_leaks (struct hi_analysis *a, FILE *f)
{
  const struct hi_model *m = a->m;
  /* Group the sites that show the same path, without formatting it. */
  struct hi_hash index;      /* path -> row */
  hi_hash_init (&index);
  struct leak *rows = calloc (m->n_sites ? m->n_sites : 1, sizeof *rows);
  uint64_t *first_site = calloc (m->n_sites ? m->n_sites : 1, sizeof *first_site);
  size_t n = 0;
  uint64_t kept_all = a->total_bytes - a->total_freed;
  for (uint64_t s = 0; rows && first_site && s < m->n_sites; s++)
    {
      const struct hi_site_sum *x = &a->sum[s];
      if (x->bytes == x->freed && x->allocs == x->frees)
        continue;
      uint64_t h = path_hash (a, s);
      struct path_key k = { a, first_site, s };
      uint32_t row = hi_hash_find (&index, h, same_row, &k);
      if (row == UINT32_MAX)
        {
          if (hi_hash_insert (&index, h, (uint32_t) n) != 0)
            break;
          first_site[n] = s;
          rows[n].path = (uint32_t) n;
          row = (uint32_t) n++;
        }
      struct leak *r = &rows[row];
      r->kept += x->bytes - x->freed;
      r->allocs += x->allocs;
      r->bytes += x->bytes;
      r->frees += x->frees;
      r->freed += x->freed;
    }
  hi_hash_free (&index);
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
      char path[8192];
      hi_site_path (a, first_site[r->path], path, sizeof path);
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
  free (first_site);
}
