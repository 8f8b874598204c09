/* reach-ref.c - `ref ADDR` (gdb's `heap ref`): what holds the block at
   ADDR alive, or that nothing does.  The reachability scan is made as
   --leak-check makes it (reach.c: the same roots, blocks and classes);
   then its edges are walked once more, breadth-first from the roots
   (hi_scan_edges, hi_scan_block_edges: the words the marking reads,
   start and interior pointers alike), each block reached remembering
   the pointer that first reached it, and the blocks no root reaches
   are read last.  On the way every root word and every block word that
   points into the block is kept (the first --limit of each, in address
   order).  The predecessors give one shortest path from a root.  What
   it costs: one more pass over the roots and the blocks' bytes. */
#define _GNU_SOURCE
#include "glibc/glibc.h"
#include "model/model.h"
#include "reach/reach-ref.h"
#include "report/rmodel.h"
#include "tables/tables.h"
#include "util/sort.h"
#include "util/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Rows kept when --limit=0 asks for all: a hostile core's heap full of
   pointers to one block stays bounded. */
#define ALL_ROWS (1u << 20)

static int
hit_cmp (const void *x, const void *y)
{
  const struct hi_ref_hit *a = x, *b = y;
  /* Registers first, then by where the word is. */
  int c = hi_cmp_u64 (b->from == HI_REF_FROM_REGISTER,
                      a->from == HI_REF_FROM_REGISTER);
  if (c == 0)
    c = hi_cmp_u64 (a->thread, b->thread);
  if (c == 0)
    c = hi_cmp_u64 (a->at, b->at);
  return c ? c : hi_cmp_u64 (a->reg, b->reg);
}

/* Keep the KEEP first of H in order (sorted when full). */
static void
hits_trim (struct hi_ref_hits *h)
{
  if (h->n > 1)
    qsort (h->v, h->n, sizeof *h->v, hit_cmp);
  if (h->n > h->keep)
    h->n = h->keep;
}

static void
hits_add (struct hi_ref *f, struct hi_ref_hits *h, struct hi_ref_hit x)
{
  h->all++;
  if (h->n == 2 * h->keep)
    hits_trim (h);
  if (hi_grow ((void **) &h->v, &h->cap, h->n + 1, sizeof *h->v) != 0)
    {
      f->nomem = 1;
      return;
    }
  h->v[h->n++] = x;
}

/* Block I reached through a pointer V at AT from F->from. */
static void
reached (struct hi_ref *f, uint32_t from, uint64_t at, uint64_t v, uint32_t i)
{
  if (!f->bfs || f->seen[i])
    return;
  f->seen[i] = 1;
  f->pred[i] = from;
  f->pred_at[i] = at;
  f->pred_v[i] = v;
  f->next[f->n_next++] = i;
}

static void
on_word (void *ctx, uint64_t at, uint64_t v, uint32_t i)
{
  struct hi_ref *f = ctx;
  if (i == f->target)
    hits_add (f, f->from == HI_REF_FROM_MEMORY ? &f->roots : &f->blocks,
              (struct hi_ref_hit) { at, v, f->from, 0, 0 });
  reached (f, f->from, at, v, i);
}

static void
on_register (void *ctx, size_t thread, unsigned reg, uint64_t v, uint32_t i)
{
  struct hi_ref *f = ctx;
  if (i == f->target)
    hits_add (f, &f->roots, (struct hi_ref_hit) { 0, v, HI_REF_FROM_REGISTER,
                                           (uint32_t) thread, reg });
  reached (f, HI_REF_FROM_REGISTER, (uint64_t) thread << 8 | reg, v, i);
}

static int
index_cmp (const void *x, const void *y)
{
  return hi_cmp_u64 (*(const uint32_t *) x, *(const uint32_t *) y);
}

/* The walk: from the roots, breadth-first, each level in address
   order; then the blocks no root reaches, for their pointers. */
static hi_status
walk (struct hi_ref *f)
{
  struct hi_scan *s = f->s;
  uint32_t n = s->n_blocks;
  f->seen = calloc (n + 1, 1);
  f->pred = malloc ((n + 1) * sizeof *f->pred);
  f->pred_at = malloc ((n + 1) * sizeof *f->pred_at);
  f->pred_v = malloc ((n + 1) * sizeof *f->pred_v);
  f->next = malloc ((n + 1) * sizeof *f->next);
  uint32_t *level = malloc ((n + 1) * sizeof *level);
  hi_status st = HI_E_NOMEM;
  if (!f->seen || !f->pred || !f->pred_at || !f->pred_v || !f->next
      || !level)
    goto out;
  s->edge = on_word;
  s->edge_reg = on_register;
  s->edge_ctx = f;
  f->bfs = 1;
  f->from = HI_REF_FROM_MEMORY;
  st = hi_scan_edges (s, 0);
  while (st == HI_OK && f->n_next && !s->stop)
    {
      uint32_t k = f->n_next;
      memcpy (level, f->next, k * sizeof *level);
      f->n_next = 0;
      qsort (level, k, sizeof *level, index_cmp);
      for (uint32_t j = 0; j < k && !hi_scan_stop (s); j++)
        {
          f->from = level[j];
          hi_scan_block_edges (s, level[j]);
        }
    }
  f->bfs = 0;
  for (uint32_t i = 0; st == HI_OK && i < n && !hi_scan_stop (s); i++)
    if (!f->seen[i])
      {
        f->from = i;
        hi_scan_block_edges (s, i);
      }
  s->edge = NULL;
  s->edge_reg = NULL;
  if (st == HI_OK && s->stop)
    st = HI_E_INTERRUPTED;
  if (st == HI_OK && f->nomem)
    st = HI_E_NOMEM;
  if (st == HI_OK)
    {
      hits_trim (&f->roots);
      hits_trim (&f->blocks);
    }
out:
  free (level);
  return st;
}

/* The report of ADDR from scan S (result RC), A the monitor's analysis
   or NULL. */
static hi_status
report (struct hi_scan *s, const struct hi_reach *rc, struct hi_analysis *a,
        const char *name, uint64_t addr, const struct hi_options *opt,
        FILE *out)
{
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = name;
  r.incomplete = s->m && s->m->damaged != 0;
  int64_t target = hi_scan_find (s, addr);
  hi_status st = HI_OK;
  struct hi_ref f = { .s = s };
  if (target < 0)
    hi_ref_none (&r, addr, s->m != NULL, opt);
  else
    {
      uint32_t limit = opt->limit == HI_OPT_LIMIT_AUTO ? 20
                       : opt->limit && opt->limit < ALL_ROWS ? opt->limit
                       : ALL_ROWS;
      f.target = (uint32_t) target;
      f.roots.keep = f.blocks.keep = limit;
      st = walk (&f);
      if (st == HI_OK)
        hi_ref_tables (&f, a, rc, addr, &r);
    }
  if (st == HI_OK && r.nomem)
    st = HI_E_NOMEM;
  if (st == HI_OK)
    {
      hi_emit_text_or_json (&r, opt, out);
      if (ferror (out))
        st = HI_E_WRITE;
      else if (target < 0)
        st = HI_E_NOT_BLOCK;
    }
  free (f.seen);
  free (f.pred);
  free (f.pred_at);
  free (f.pred_v);
  free (f.next);
  free (f.roots.v);
  free (f.blocks.v);
  free (f.tls);
  hi_rmodel_free (&r);
  return st;
}

hi_status
hi_ref_report (const struct hi_target *t, const struct hi_model *m,
               const char *exe, const char *name, uint64_t addr,
               const struct hi_options *opt, FILE *out, const char **why)
{
  *why = NULL;
  if (opt->format != HI_TEXT && opt->format != HI_JSON)
    return HI_E_USAGE;
  if (!t->ops->mapping)
    return HI_E_NO_MEMORY;
  struct hi_glibc *g = NULL;
  hi_status st = m ? HI_OK : hi_glibc_load (t, &g, why);
  if (st != HI_OK)
    return st;
  struct hi_scan s;
  struct hi_reach *rc;
  st = hi_scan_open (&s, t, m, g, 0, &rc);
  if (st != HI_OK)
    {
      hi_glibc_free (g);
      return st;
    }
  struct hi_symbolizer *sym = NULL;
  struct hi_analysis a;
  memset (&a, 0, sizeof a);
  if (m)
    {
      sym = hi_symbolizer_new (m, exe);
      st = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
    }
  if (st == HI_OK)
    {
      st = report (&s, rc, m ? &a : NULL, name, addr, opt, out);
      if (m)
        hi_analysis_free (&a);
    }
  hi_symbolizer_free (sym);
  hi_scan_release (&s);
  hi_reach_free (rc);
  hi_glibc_free (g);
  return st;
}
