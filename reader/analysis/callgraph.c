/* callgraph.c - the allocation call graph from the chains: every
   function on an allocating chain a node, recursion merged (each strongly
   connected component of two or more functions one <cycle N> node), and
   every distinct caller/callee pair counted once per chain, so recursion
   never inflates a pair or a function.  Chains cut at the depth cap start
   with <deeper>, a caller like any other. */
#include "util/num.h"
#include "analysis/callgraph.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

struct pair_key
{
  const struct hi_cgpairs *p;
  uint32_t a, b;
};

static int
same_pair (const void *ctx, uint32_t i)
{
  const struct pair_key *k = ctx;
  return k->p->v[i].a == k->a && k->p->v[i].b == k->b;
}

/* The pair (A, B), added if new; NULL if out of memory. */
static struct hi_cgpair *
pair_get (struct hi_cgpairs *p, uint32_t a, uint32_t b)
{
  uint64_t h = hi_hash_u64 ((uint64_t) a << 32 | b);
  struct pair_key k = { p, a, b };
  uint32_t i = hi_hash_find (&p->index, h, same_pair, &k);
  if (i != UINT32_MAX)
    return &p->v[i];
  if (p->n == p->cap)
    {
      uint32_t cap = p->cap ? p->cap * 2 : 256;
      struct hi_cgpair *v = cap > p->cap ? realloc (p->v, cap * sizeof *v) : NULL;
      if (!v)
        return NULL;
      p->v = v;
      p->cap = cap;
    }
  if (hi_hash_insert (&p->index, h, p->n) != 0)
    return NULL;
  struct hi_cgpair *e = &p->v[p->n++];
  memset (e, 0, sizeof *e);
  e->a = a;
  e->b = b;
  return e;
}

static void
pairs_free (struct hi_cgpairs *p)
{
  free (p->v);
  hi_hash_free (&p->index);
}

/* Index gpairs by both ends (counting sort). */
static int
index_pairs (struct hi_callgraph *gr)
{
  uint32_t nn = gr->nf + gr->ncycles, ne = gr->gpairs.n;
  gr->from_a = calloc (nn + 2, sizeof *gr->from_a);
  gr->from_b = calloc (nn + 2, sizeof *gr->from_b);
  gr->by_a = malloc ((ne + 1) * sizeof *gr->by_a);
  gr->by_b = malloc ((ne + 1) * sizeof *gr->by_b);
  if (!gr->from_a || !gr->from_b || !gr->by_a || !gr->by_b)
    return -1;
  for (uint32_t e = 0; e < ne; e++)
    {
      gr->from_a[gr->gpairs.v[e].a + 2]++;
      gr->from_b[gr->gpairs.v[e].b + 2]++;
    }
  for (uint32_t x = 0; x < nn; x++)
    {
      gr->from_a[x + 2] += gr->from_a[x + 1];
      gr->from_b[x + 2] += gr->from_b[x + 1];
    }
  for (uint32_t e = 0; e < ne; e++)
    {
      gr->by_a[gr->from_a[gr->gpairs.v[e].a + 1]++] = e;
      gr->by_b[gr->from_b[gr->gpairs.v[e].b + 1]++] = e;
    }
  return 0;
}

/* Function ids of site S's chain into OUT, outermost first; a chain cut
   at the depth cap starts with <deeper>, so the bytes of the callers it
   lost still show, as a caller line.  0 for a chain the filters hid. */
static uint32_t
chain_funcs (struct hi_analysis *a, uint64_t s, uint32_t *out)
{
  uint32_t n = 0;
  if (hi_site_flags (a, s) & HI_SITE_FILTERED)
    return 0;
  for (uint32_t i = a->chain_start[s]; i < a->chain_start[s + 1]; i++)
    out[n++] = hi_chain_frame (a, i)->func;
  return n;
}

/* Tarjan's strongly connected components, without recursion. */
static int
components (struct hi_callgraph *gr)
{
  uint32_t nf = gr->nf, ne = gr->fpairs.n;
  uint32_t *first = calloc (nf + 1, sizeof *first);
  uint32_t *adj = malloc ((ne ? ne : 1) * sizeof *adj);
  uint32_t *idx = malloc (nf * sizeof *idx + 1);
  uint32_t *low = malloc (nf * sizeof *low + 1);
  uint32_t *stack = malloc (nf * sizeof *stack + 1);
  uint32_t *call = malloc (nf * sizeof *call + 1);
  uint32_t *edge = malloc (nf * sizeof *edge + 1);
  char *on = calloc (nf + 1, 1);
  int ok = first && adj && idx && low && stack && call && edge && on;
  if (ok)
    {
      for (uint32_t e = 0; e < ne; e++)
        first[gr->fpairs.v[e].a + 1]++;
      for (uint32_t i = 0; i < nf; i++)
        first[i + 1] += first[i];
      uint32_t *fill = calloc (nf + 1, sizeof *fill);
      ok = fill != NULL;
      for (uint32_t e = 0; ok && e < ne; e++)
        {
          uint32_t a = gr->fpairs.v[e].a;
          adj[first[a] + fill[a]++] = gr->fpairs.v[e].b;
        }
      free (fill);
    }
  if (ok)
    {
      memset (idx, 0xff, nf * sizeof *idx);
      uint32_t counter = 0, sp = 0;
      for (uint32_t root = 0; root < nf; root++)
        {
          if (idx[root] != UINT32_MAX)
            continue;
          uint32_t depth = 0;
          call[depth] = root;
          edge[depth] = first[root];
          idx[root] = low[root] = counter++;
          stack[sp++] = root;
          on[root] = 1;
          while (1)
            {
              uint32_t v = call[depth];
              if (edge[depth] < first[v + 1])
                {
                  uint32_t w = adj[edge[depth]++];
                  if (idx[w] == UINT32_MAX)
                    {
                      call[++depth] = w;
                      edge[depth] = first[w];
                      idx[w] = low[w] = counter++;
                      stack[sp++] = w;
                      on[w] = 1;
                    }
                  else if (on[w] && idx[w] < low[v])
                    low[v] = idx[w];
                  continue;
                }
              if (low[v] == idx[v])
                {
                  uint32_t size = 0, w;
                  do
                    size++;
                  while (stack[sp - size] != v);
                  uint32_t node = size > 1 ? nf + gr->ncycles++ : v;
                  do
                    {
                      w = stack[--sp];
                      on[w] = 0;
                      gr->comp[w] = node;
                    }
                  while (w != v);
                }
              if (depth == 0)
                break;
              uint32_t u = call[--depth];
              if (low[v] < low[u])
                low[u] = low[v];
            }
        }
    }
  free (first);
  free (adj);
  free (idx);
  free (low);
  free (stack);
  free (call);
  free (edge);
  free (on);
  return ok ? 0 : -1;
}

static int
build (struct hi_callgraph *gr, uint32_t *buf)
{
  struct hi_analysis *a = gr->a;
  const struct hi_model *m = a->m;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      uint32_t n = chain_funcs (a, s, buf);
      for (uint32_t i = 0; i + 1 < n; i++)
        if (buf[i] != buf[i + 1] && !pair_get (&gr->fpairs, buf[i], buf[i + 1]))
          return -1;
    }
  gr->comp = malloc ((gr->nf + 1) * sizeof *gr->comp);
  if (!gr->comp || components (gr) != 0)
    return -1;
  gr->g = calloc (gr->nf + gr->ncycles + 1, sizeof *gr->g);
  gr->fs = calloc (gr->nf + 1, sizeof *gr->fs);
  if (!gr->g || !gr->fs)
    return -1;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      const struct hi_site *site = &m->sites[s];
      uint64_t allocs = hi_sum4 (site->allocs), stamp = s + 1;
      uint32_t n = chain_funcs (a, s, buf);
      if (n == 0 || allocs == 0)
        continue;
      for (uint32_t i = 0; i < n; i++)
        gr->g[gr->comp[buf[i]]].count_in_chain = 0;
      uint32_t prev = UINT32_MAX;
      for (uint32_t i = 0; i < n; i++)
        {
          uint32_t x = gr->comp[buf[i]];
          struct hi_cgnode *g = &gr->g[x];
          struct hi_cgfunc *fs = &gr->fs[buf[i]];
          if (fs->stamp != stamp)
            {
              fs->stamp = stamp;
              fs->called = hi_add_sat (fs->called, allocs);
              fs->bytes = hi_add_sat (fs->bytes, hi_sum4 (site->bytes));
            }
          g->count_in_chain++;
          if (g->stamp != stamp)
            {
              g->stamp = stamp;
              g->called = hi_add_sat (g->called, allocs);
              for (int c = 0; c < HI_NSIZE_CLASSES; c++)
                g->total[c] = hi_add_sat (g->total[c], site->bytes[c]);
            }
          if (prev != UINT32_MAX && prev != x)
            {
              struct hi_cgpair *e = pair_get (&gr->gpairs, prev, x);
              if (!e)
                return -1;
              if (e->stamp != stamp)
                {
                  e->stamp = stamp;
                  e->calls = hi_add_sat (e->calls, allocs);
                  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
                    e->bytes[c] = hi_add_sat (e->bytes[c], site->bytes[c]);
                }
            }
          prev = x;
        }
      for (uint32_t i = 0; i < n; i++)
        {
          struct hi_cgnode *g = &gr->g[gr->comp[buf[i]]];
          if (g->count_in_chain > 1)
            g->recursive = hi_add_sat (g->recursive,
                                       hi_mul_sat (allocs,
                                                   g->count_in_chain - 1));
          g->count_in_chain = 0;
        }
      struct hi_cgnode *leaf = &gr->g[gr->comp[buf[n - 1]]];
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        leaf->self[c] = hi_add_sat (leaf->self[c], site->bytes[c]);
    }
  return 0;
}

int
hi_callgraph_build (struct hi_callgraph *gr, struct hi_analysis *a)
{
  memset (gr, 0, sizeof *gr);
  gr->a = a;
  gr->nf = a->funcs.n;
  gr->deeper = a->frames[HI_FRAME_CUT].func;
  uint32_t longest = 0;
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    if (a->chain_start[s + 1] - a->chain_start[s] > longest)
      longest = a->chain_start[s + 1] - a->chain_start[s];
  uint32_t *buf = malloc (((size_t) longest + 1) * sizeof *buf);
  int ok = buf && build (gr, buf) == 0 && index_pairs (gr) == 0;
  free (buf);
  for (uint32_t f = a->n_frames; ok && f-- > 1;)
    gr->fs[a->frames[f].func].frame = f;   /* the first, in the end */
  return ok ? 0 : -1;
}

void
hi_callgraph_free (struct hi_callgraph *gr)
{
  free (gr->comp);
  free (gr->g);
  free (gr->fs);
  free (gr->from_a);
  free (gr->from_b);
  free (gr->by_a);
  free (gr->by_b);
  pairs_free (&gr->fpairs);
  pairs_free (&gr->gpairs);
}
