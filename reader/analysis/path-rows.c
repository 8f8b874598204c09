/* path-rows.c - the rows of the per-chain tables (leaks, peak, temporary,
   lifetimes): chains grouped by the path they show, so two chains that
   print alike are one row in every table. */
#include "analysis/analysis.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

/* 1 if sites X and Y show the same path (same labels, same cut). */
static int
same_path (const struct hi_analysis *a, uint64_t x, uint64_t y)
{
  uint32_t fx, tx, fy, ty;
  int cx = hi_path_span (a, x, &fx, &tx), cy = hi_path_span (a, y, &fy, &ty);
  if (tx - fx != ty - fy || cx != cy)
    return 0;
  for (uint32_t i = 0; i < tx - fx; i++)
    if (hi_chain_frame (a, fx + i)->label
        != hi_chain_frame (a, fy + i)->label)
      return 0;
  /* With lines shown, the row says where its blocks were allocated. */
  if (a->opt.lines && tx > fx)
    {
      const struct hi_frame *lx = hi_chain_frame (a, tx - 1);
      const struct hi_frame *ly = hi_chain_frame (a, ty - 1);
      return lx->file == ly->file && lx->line == ly->line;
    }
  return 1;
}

static uint64_t
path_hash (const struct hi_analysis *a, uint64_t s)
{
  uint32_t from, to;
  uint64_t h = hi_path_span (a, s, &from, &to) ? 7 : 3;
  for (uint32_t i = from; i < to; i++)
    h = hi_hash_u64 (h ^ hi_chain_frame (a, i)->label);
  if (a->opt.lines && to > from)
    h = hi_hash_u64 (h ^ hi_chain_frame (a, to - 1)->line);
  return h;
}

struct path_key
{
  const struct hi_analysis *a;
  const uint64_t *first_site;
  uint64_t s;
  unsigned split;
};

static int
same_row (const void *ctx, uint32_t row)
{
  const struct path_key *k = ctx;
  uint64_t f = k->first_site[row];
  return same_path (k->a, f, k->s)
         && (hi_site_flags (k->a, f) & k->split)
            == (hi_site_flags (k->a, k->s) & k->split);
}

hi_status
hi_path_rows (const struct hi_analysis *a, unsigned split,
              uint32_t **row_of_out, uint64_t **first_out, size_t *n_out,
              uint64_t *filtered)
{
  const struct hi_model *m = a->m;
  struct hi_hash index;      /* path -> row */
  hi_hash_init (&index);
  size_t cap = m->n_sites ? m->n_sites : 1;
  uint32_t *row_of = malloc (cap * sizeof *row_of);
  uint64_t *first_site = calloc (cap, sizeof *first_site);
  size_t n = 0;
  hi_status st = row_of && first_site ? HI_OK : HI_E_NOMEM;
  for (uint64_t s = 0; st == HI_OK && s < m->n_sites; s++)
    {
      const struct hi_site_sum *x = &a->sum[s];
      row_of[s] = UINT32_MAX;
      if (x->allocs == 0 && x->bytes == 0 && x->frees == 0 && x->freed == 0)
        continue;
      if (hi_site_flags (a, s) & HI_SITE_FILTERED)
        {
          (*filtered)++;
          continue;
        }
      uint64_t h = path_hash (a, s);
      struct path_key k = { a, first_site, s, split };
      uint32_t row = hi_hash_find (&index, h, same_row, &k);
      if (row == UINT32_MAX)
        {
          if (hi_hash_insert (&index, h, (uint32_t) n) != 0)
            {
              st = HI_E_NOMEM;
              break;
            }
          first_site[n] = s;
          row = (uint32_t) n++;
        }
      row_of[s] = row;
    }
  hi_hash_free (&index);
  if (st != HI_OK)
    {
      free (row_of);
      free (first_site);
      return st;
    }
  *row_of_out = row_of;
  *first_out = first_site;
  *n_out = n;
  return HI_OK;
}

hi_status
hi_path_rows_new (const struct hi_analysis *a, unsigned split, size_t size,
                  size_t path_at, void **rows_out, uint32_t **row_of,
                  uint64_t **first_site, size_t *n, uint64_t *filtered)
{
  hi_status st = hi_path_rows (a, split, row_of, first_site, n, filtered);
  if (st != HI_OK)
    return st;
  char *rows = calloc (*n ? *n : 1, size);
  if (!rows)
    {
      free (*row_of);
      free (*first_site);
      return HI_E_NOMEM;
    }
  for (size_t i = 0; i < *n; i++)
    {
      uint32_t path = (uint32_t) i;
      memcpy (rows + i * size + path_at, &path, sizeof path);
    }
  *rows_out = rows;
  return HI_OK;
}
