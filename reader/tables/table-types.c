/* table-types.c - the client API's types: their names (the tags' symbols,
   demangled, or the names the program gave), their sums, the types of a
   chain or a size bin, and the types table (the type-preserving
   profiler's "join by type, sort by occupied memory"). */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"
#include "util/strtab.h"

#define TAG_PREFIX "heapinspect::type_tag<"
#define TAG_SUFFIX ">::id"

/* The name of type record E of A's model into BUF. */
static void
type_name (struct hi_analysis *a, const struct hi_type_rec *e, char *buf,
           size_t size)
{
  if (e->flags & HI_TYPE_NAMED)
    {
      char safe[4 * HI_TYPE_NAME_MAX];
      hi_escape (e->name, safe, sizeof safe);
      snprintf (buf, size, "%s%s", safe,
                e->flags & HI_TYPE_NAME_CUT ? "..." : "");
      return;
    }
  const char *sym = a->sym ? hi_symbolize_data (a->sym, e->key) : NULL;
  size_t pre = strlen (TAG_PREFIX), suf = strlen (TAG_SUFFIX);
  if (sym && strncmp (sym, TAG_PREFIX, pre) == 0 && strlen (sym) > pre + suf
      && strcmp (sym + strlen (sym) - suf, TAG_SUFFIX) == 0)
    {
      /* The demangler writes "type_tag<Box<char> >": no space is T's. */
      size_t len = strlen (sym) - pre - suf;
      while (len && sym[pre + len - 1] == ' ')
        len--;
      snprintf (buf, size, "%.*s", (int) len, sym + pre);
    }
  else if (sym)
    snprintf (buf, size, "%s", sym);
  else
    snprintf (buf, size, "<type at 0x%" PRIx64 ">", e->key);
}

hi_status
hi_types_ready (struct hi_analysis *a)
{
  if (a->types_done)
    return HI_OK;
  const struct hi_model *m = a->m;
  uint64_t n = m->n_type_recs;
  a->types_done = 1;
  if (!n)
    return HI_OK;
  a->type_of_rec = malloc (n * sizeof *a->type_of_rec);
  a->types = calloc (n, sizeof *a->types);
  struct hi_strtab names;
  hi_strtab_init (&names);
  uint32_t *of_name = calloc (n, sizeof *of_name);
  if (!a->type_of_rec || !a->types || !of_name)
    {
      free (of_name);
      return HI_E_NOMEM;
    }
  for (uint64_t i = 0; i < n; i++)
    {
      const struct hi_type_rec *e = &m->type_recs[i];
      a->type_of_rec[i] = UINT32_MAX;
      if (e->kind != HI_TREC_TYPE)
        continue;
      char buf[1024];
      type_name (a, e, buf, sizeof buf);
      uint32_t id = hi_strtab_intern (&names, buf);
      if (id == UINT32_MAX)
        break;
      if (id == a->n_types)
        {
          of_name[id] = a->n_types++;
          struct hi_type_sum *t = &a->types[of_name[id]];
          uint32_t label = hi_strtab_intern (&a->labels, buf);
          t->name = label == UINT32_MAX ? "?" : a->labels.strs[label];
        }
      struct hi_type_sum *t = &a->types[of_name[id]];
      if (!t->elem_size)
        t->elem_size = e->elem_size;
      a->type_of_rec[i] = of_name[id];
    }
  hi_strtab_free (&names);
  free (of_name);
  /* Pairs take their type's entry; each record adds its counters. */
  for (uint64_t i = 0; i < n; i++)
    {
      const struct hi_type_rec *e = &m->type_recs[i];
      if (e->kind == HI_TREC_PAIR)
        a->type_of_rec[i] = a->type_of_rec[e->type];
      if (a->type_of_rec[i] == UINT32_MAX
          || (e->kind == HI_TREC_PAIR
              && (hi_site_flags (a, e->site) & HI_SITE_FILTERED)))
        continue;
      struct hi_type_sum *t = &a->types[a->type_of_rec[i]];
      t->allocs = hi_add_sat (t->allocs, e->allocs);
      t->bytes = hi_add_sat (t->bytes, e->bytes);
      t->frees = hi_add_sat (t->frees, e->frees);
      t->freed = hi_add_sat (t->freed, e->bytes_freed);
    }
  return HI_OK;
}

hi_status
hi_types_group (struct hi_analysis *a, const uint32_t *row_of, int by_bin,
                uint32_t n_keys, uint32_t **start_out, uint32_t **list_out)
{
  *start_out = *list_out = NULL;
  hi_status st = hi_types_ready (a);
  if (st != HI_OK)
    return st;
  const struct hi_model *m = a->m;
  uint32_t *start = calloc ((size_t) n_keys + 2, sizeof *start);
  uint32_t *list = malloc ((m->n_type_recs ? m->n_type_recs : 1)
                           * sizeof *list);
  if (!start || !list)
    {
      free (start);
      free (list);
      return HI_E_NOMEM;
    }
  /* A counting sort: keys' sizes, their starts, then the records. */
  for (int pass = 0; pass < 2; pass++)
    {
      for (uint64_t i = 0; i < m->n_type_recs; i++)
        {
          const struct hi_type_rec *e = &m->type_recs[i];
          if (e->kind != HI_TREC_PAIR || a->type_of_rec[i] == UINT32_MAX
              || !e->allocs)
            continue;
          uint32_t key = by_bin ? e->bin : row_of ? row_of[e->site] : e->site;
          if (key >= n_keys)
            continue;
          if (pass == 0)
            start[key + 2]++;
          else
            list[start[key + 1]++] = (uint32_t) i;
        }
      if (pass == 0)
        for (uint32_t k = 2; k < n_keys + 2; k++)
          start[k] += start[k - 1];
    }
  *start_out = start;    /* key K's records: list[start[K], start[K + 1]) */
  *list_out = list;
  return HI_OK;
}

struct share
{
  uint32_t type;
  uint64_t bytes;
};

static int
by_share (const void *x, const void *y)
{
  const struct share *a = x, *b = y;
  if (a->bytes != b->bytes)
    return a->bytes < b->bytes ? 1 : -1;
  return a->type < b->type ? -1 : a->type > b->type;
}

void
hi_types_join (struct hi_analysis *a, const uint32_t *recs, size_t n,
               char *buf, size_t size)
{
  buf[0] = '\0';
  /* Few types per row: a short list, searched linearly. */
  enum { MAX = 64 };
  struct share sh[MAX];
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      const struct hi_type_rec *e = &a->m->type_recs[recs[i]];
      uint32_t t = a->type_of_rec[recs[i]];
      size_t j = 0;
      while (j < k && sh[j].type != t)
        j++;
      if (j == k)
        {
          if (k == MAX)
            continue;
          sh[k++] = (struct share) { t, 0 };
        }
      sh[j].bytes = hi_add_sat (sh[j].bytes, e->bytes);
    }
  qsort (sh, k, sizeof *sh, by_share);
  size_t at = 0;
  for (size_t j = 0; j < k && at < size; j++)
    at += (size_t) snprintf (buf + at, size - at, "%s%s", at ? ", " : "",
                             a->types[sh[j].type].name);
}

static const struct hi_column columns[] = {
  { .key = "live_bytes", .head = "live", .type = HI_CELL_BYTES },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "live_blocks", .head = "blocks", .type = HI_CELL_COUNT },
  { .key = "allocs", .head = "allocs", .type = HI_CELL_COUNT },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .key = "frees", .head = "frees", .type = HI_CELL_COUNT },
  { .key = "size", .head = "size", .type = HI_CELL_COUNT, .blank_zero = 1 },
  { .key = "chains", .head = "chains", .type = HI_CELL_COUNT },
  { .key = "type", .head = "type", .type = HI_CELL_TEXT, .left = 1,
    .max_width = 48 },
  { .key = "top_chain", .head = "top chain", .type = HI_CELL_PATH,
    .left = 1 },
};

/* The chains a type's row lists: the most live bytes, else bytes. */
#define TOP_CHAINS 3

struct tchain
{
  uint64_t site;             /* HI_ANY_SITE: none */
  uint64_t live, blocks, allocs, bytes, frees;
};

struct trow
{
  uint32_t type;
  uint64_t live, blocks;
  uint64_t chains;
  struct tchain top[TOP_CHAINS];
};

/* 1 if chain X comes before Y in a type's list. */
static int
before (const struct tchain *x, const struct tchain *y)
{
  if (y->site == HI_ANY_SITE)
    return 1;
  if (x->live != y->live)
    return x->live > y->live;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes;
  return x->site < y->site;
}

static int
by_live (const void *x, const void *y)
{
  const struct trow *a = x, *b = y;
  if (a->live != b->live)
    return a->live < b->live ? 1 : -1;
  if (a->blocks != b->blocks)
    return a->blocks < b->blocks ? 1 : -1;
  return a->type < b->type ? -1 : a->type > b->type;
}

hi_status
hi_table_types (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct hi_table *t = hi_rmodel_table (r, "types", "Allocations by Type",
                                        columns,
                                        sizeof columns / sizeof columns[0]);
  if (!t)
    return HI_E_NOMEM;
  t->threshold = hi_threshold (&a->opt);
  if (hi_types_ready (a) != HI_OK)
    return HI_E_NOMEM;
  if (!a->n_types)
    {
      t->n_columns = 0;
      t->legend = "no types: the program named none (include "
                  "<heapinspect/typed.h>, libheapinspect(7))";
      hi_table_fact (t, "note", hi_cell_text (t->legend));
      return r->nomem ? HI_E_NOMEM : HI_OK;
    }
  t->legend = "live: bytes of the type's blocks not freed, (%) of all "
              "live typed bytes; size: sizeof the type; chains: chains "
              "that allocated it; top chain: the one with the most live "
              "bytes (else bytes), the next two below it";
  struct trow *rows = calloc (a->n_types, sizeof *rows);
  if (!rows)
    return HI_E_NOMEM;
  uint64_t live_all = 0, blocks_all = 0, bytes_all = 0;
  for (uint32_t i = 0; i < a->n_types; i++)
    {
      const struct hi_type_sum *x = &a->types[i];
      rows[i].type = i;
      rows[i].live = hi_sub0 (x->bytes, x->freed);
      rows[i].blocks = hi_sub0 (x->allocs, x->frees);
      for (int k = 0; k < TOP_CHAINS; k++)
        rows[i].top[k].site = HI_ANY_SITE;
      live_all = hi_add_sat (live_all, rows[i].live);
      bytes_all = hi_add_sat (bytes_all, x->bytes);
      blocks_all = hi_add_sat (blocks_all, rows[i].blocks);
    }
  /* Chains per type: each site's pairs, by type, over their bins. */
  uint32_t *start, *list;
  if (hi_types_group (a, NULL, 0, (uint32_t) m->n_sites, &start, &list)
      != HI_OK)
    {
      free (rows);
      return HI_E_NOMEM;
    }
  const struct hi_type_rec *recs = m->type_recs;
  for (uint64_t site = 0; site < m->n_sites; site++)
    {
      if (hi_site_flags (a, site) & HI_SITE_FILTERED)
        continue;
      for (uint32_t i = start[site]; i < start[site + 1]; i++)
        {
          uint32_t type = a->type_of_rec[list[i]];
          int seen = 0;
          for (uint32_t j = start[site]; j < i && !seen; j++)
            seen = a->type_of_rec[list[j]] == type;
          if (seen)
            continue;
          struct tchain c = { site, 0, 0, 0, 0, 0 };
          for (uint32_t j = i; j < start[site + 1]; j++)
            if (a->type_of_rec[list[j]] == type)
              {
                const struct hi_type_rec *f = &recs[list[j]];
                c.allocs = hi_add_sat (c.allocs, f->allocs);
                c.bytes = hi_add_sat (c.bytes, f->bytes);
                c.frees = hi_add_sat (c.frees, f->frees);
                c.live = hi_add_sat (c.live, hi_sub0 (f->bytes,
                                                      f->bytes_freed));
              }
          c.blocks = hi_sub0 (c.allocs, c.frees);
          struct trow *row = &rows[type];
          row->chains++;
          /* Into the type's short list, kept in order. */
          for (int k = 0; k < TOP_CHAINS; k++)
            if (before (&c, &row->top[k]))
              {
                struct tchain out = row->top[k];
                row->top[k] = c;
                c = out;
                if (c.site == HI_ANY_SITE)
                  break;
              }
        }
    }
  free (start);
  free (list);
  qsort (rows, a->n_types, sizeof *rows, by_live);
  uint64_t shown = 0;
  for (uint32_t i = 0; i < a->n_types && !r->nomem; i++)
    {
      const struct trow *row = &rows[i];
      const struct hi_type_sum *x = &a->types[row->type];
      if (!x->allocs)
        continue;
      /* By live bytes or all bytes; 0-byte blocks by their number. */
      int above = hi_shown (&a->opt, row->live, live_all)
                  || hi_shown (&a->opt, x->bytes, bytes_all)
                  || hi_shown (&a->opt, row->blocks, blocks_all)
                  || (!x->bytes && !bytes_all);
      if (!hi_keep_row (&a->opt, t, &shown, above))
        continue;
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_ENTRY);
      if (!c)
        break;
      uint32_t group = (uint32_t) t->n_rows;   /* the entry's rows' */
      t->rows[t->n_rows - 1].group = group;
      c[0] = hi_cell_bytes (row->live);
      c[1] = hi_cell_pct2 (row->live, live_all);
      c[2] = hi_cell_count (row->blocks);
      c[3] = hi_cell_count (x->allocs);
      c[4] = hi_cell_bytes (x->bytes);
      c[5] = hi_cell_count (x->frees);
      c[6] = hi_cell_count (x->elem_size);
      c[7] = hi_cell_count (row->chains);
      c[8] = hi_cell_text (x->name);
      if (row->top[0].site != HI_ANY_SITE)
        c[9] = hi_path_cell (a, row->top[0].site, r);
      /* Its top chains with their own figures, under it (in JSON its
         "members"; the first is the row's own in text). */
      for (int k = 0; k < TOP_CHAINS && !r->nomem; k++)
        {
          const struct tchain *tc = &row->top[k];
          if (tc->site == HI_ANY_SITE)
            break;
          struct hi_cell *m = hi_rmodel_row (r, t, HI_ROW_MEMBER);
          if (!m)
            break;
          t->rows[t->n_rows - 1].json_only = k == 0;
          t->rows[t->n_rows - 1].group = group;
          m[0] = hi_cell_bytes (tc->live);
          m[1] = hi_cell_pct2 (tc->live, live_all);
          m[2] = hi_cell_count (tc->blocks);
          m[3] = hi_cell_count (tc->allocs);
          m[4] = hi_cell_bytes (tc->bytes);
          m[5] = hi_cell_count (tc->frees);
          m[9] = hi_path_cell (a, tc->site, r);
        }
    }
  free (rows);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
