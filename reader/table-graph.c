/* table-graph.c - mprof's allocation call graph, gprof style: one entry
   per function on an allocating chain, with the bytes it and its callees
   allocated, its callers above and callees below.  Recursion is merged:
   each strongly connected component of two or more functions becomes one
   <cycle N> node.  Every distinct pair is counted once per chain, so
   recursion never inflates a pair or a function. */
#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A hash set of directed pairs (a, b) with per-pair counters. */
struct pair
{
  uint32_t a, b;
  uint64_t stamp;            /* last chain that counted it, + 1 */
  uint64_t calls;
  uint64_t bytes[HI_NSIZE_CLASSES];
};

struct pairs
{
  struct pair *v;
  uint32_t n, cap;
  struct hi_hash index;
};

struct pair_key
{
  const struct pairs *p;
  uint32_t a, b;
};

static int
same_pair (const void *ctx, uint32_t i)
{
  const struct pair_key *k = ctx;
  return k->p->v[i].a == k->a && k->p->v[i].b == k->b;
}

/* The pair (A, B), added if new; NULL if out of memory. */
static struct pair *
pair_get (struct pairs *p, uint32_t a, uint32_t b)
{
  uint64_t h = hi_hash_u64 ((uint64_t) a << 32 | b);
  struct pair_key k = { p, a, b };
  uint32_t i = hi_hash_find (&p->index, h, same_pair, &k);
  if (i != UINT32_MAX)
    return &p->v[i];
  if (p->n == p->cap)
    {
      uint32_t cap = p->cap ? p->cap * 2 : 256;
      struct pair *v = cap > p->cap ? realloc (p->v, cap * sizeof *v) : NULL;
      if (!v)
        return NULL;
      p->v = v;
      p->cap = cap;
    }
  if (hi_hash_insert (&p->index, h, p->n) != 0)
    return NULL;
  struct pair *e = &p->v[p->n++];
  memset (e, 0, sizeof *e);
  e->a = a;
  e->b = b;
  return e;
}

static void
pairs_free (struct pairs *p)
{
  free (p->v);
  hi_hash_free (&p->index);
}

/* Graph nodes: functions 0..nf-1, then cycles nf..nf+ncycles-1. */
struct gnode
{
  uint64_t total[HI_NSIZE_CLASSES];  /* self + descendants */
  uint64_t self[HI_NSIZE_CLASSES];
  uint64_t called, recursive;
  uint64_t stamp;
  uint32_t index;                    /* rank in the table, + 1 */
  uint32_t count_in_chain;
};

struct graph
{
  struct hi_analysis *a;
  uint32_t nf, ncycles;
  uint32_t *comp;            /* function -> graph node */
  struct gnode *g;
  struct pairs fpairs;       /* function pairs, for the components */
  struct pairs gpairs;       /* graph-node pairs, with counters */
  /* gpairs by caller and by callee: node x's are by_a[from_a[x] ..
     from_a[x + 1]) and likewise by_b. */
  uint32_t *from_a, *by_a, *from_b, *by_b;
};

/* Index gpairs by both ends (counting sort). */
static int
index_pairs (struct graph *gr)
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

#define FOR_CALLERS(gr, x, p) \
  for (uint32_t i_ = (gr)->from_b[x]; i_ < (gr)->from_b[(x) + 1] \
       && ((p) = &(gr)->gpairs.v[(gr)->by_b[i_]]); i_++)
#define FOR_CALLEES(gr, x, p) \
  for (uint32_t i_ = (gr)->from_a[x]; i_ < (gr)->from_a[(x) + 1] \
       && ((p) = &(gr)->gpairs.v[(gr)->by_a[i_]]); i_++)

static uint64_t
sum4 (const uint64_t *v)
{
  return hi_add_sat (hi_add_sat (v[0], v[1]), hi_add_sat (v[2], v[3]));
}

/* Function ids of site S's chain (no "..." marker), into OUT. */
static uint32_t
chain_funcs (struct hi_analysis *a, uint64_t s, uint32_t *out)
{
  uint32_t n = 0;
  for (uint32_t i = a->chain_start[s]; i < a->chain_start[s + 1]; i++)
    if (a->chain_frames[i] != HI_FRAME_CUT)
      out[n++] = hi_chain_frame (a, i)->func;
  return n;
}

/* Tarjan's strongly connected components, without recursion. */
static int
components (struct graph *gr)
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
build (struct graph *gr, uint32_t *buf)
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
  if (!gr->g)
    return -1;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      const struct hi_site *site = &m->sites[s];
      uint64_t allocs = sum4 (site->allocs), stamp = s + 1;
      uint32_t n = chain_funcs (a, s, buf);
      if (n == 0 || allocs == 0)
        continue;
      for (uint32_t i = 0; i < n; i++)
        gr->g[gr->comp[buf[i]]].count_in_chain = 0;
      uint32_t prev = UINT32_MAX;
      for (uint32_t i = 0; i < n; i++)
        {
          uint32_t x = gr->comp[buf[i]];
          struct gnode *g = &gr->g[x];
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
              struct pair *e = pair_get (&gr->gpairs, prev, x);
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
          struct gnode *g = &gr->g[gr->comp[buf[i]]];
          if (g->count_in_chain > 1)
            g->recursive = hi_add_sat (g->recursive,
                                       hi_mul_sat (allocs,
                                                   g->count_in_chain - 1));
          g->count_in_chain = 0;
        }
      struct gnode *leaf = &gr->g[gr->comp[buf[n - 1]]];
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        leaf->self[c] = hi_add_sat (leaf->self[c], site->bytes[c]);
    }
  return 0;
}

/* Entries in table order: largest self+descendants first.  Sorted as
   (key, node) records, so the comparison needs no graph. */
struct entry_key
{
  uint64_t total;
  uint32_t x;
};

static int
by_total (const void *x, const void *y)
{
  const struct entry_key *a = x, *b = y;
  if (a->total != b->total)
    return a->total < b->total ? 1 : -1;
  return a->x < b->x ? -1 : a->x > b->x;
}

static void
node_name (struct graph *gr, uint32_t x, char *buf, size_t size)
{
  if (x < gr->nf)
    snprintf (buf, size, "%s", gr->a->funcs.strs[x]);
  else
    snprintf (buf, size, "<cycle %u>", x - gr->nf + 1);
}

static void
print_line (struct graph *gr, FILE *f, const uint64_t *bytes, uint64_t whole,
            uint64_t calls, uint64_t of, uint32_t x, const char *label)
{
  char name[1200], sz[HI_NSIZE_CLASSES][3], fr[3];
  uint64_t b = sum4 (bytes);
  if (label)
    snprintf (name, sizeof name, "%s", label);
  else
    {
      node_name (gr, x, name, sizeof name - 16);
      snprintf (name + strlen (name), 16, " [%u]", gr->g[x].index);
    }
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    hi_pct2 (sz[c], bytes[c], b);
  hi_pct2 (fr, b, whole);
  char cl[48];
  snprintf (cl, sizeof cl, "%" PRIu64 "/%" PRIu64, calls, of);
  fprintf (f, "               %12" PRIu64 "       %s %s %s %s   %s %17s      %s\n",
           b, sz[0], sz[1], sz[2], sz[3], fr, cl, name);
}

static void
print_text_entry (struct graph *gr, FILE *f, uint32_t x)
{
  struct hi_analysis *a = gr->a;
  struct gnode *g = &gr->g[x];
  uint64_t in[HI_NSIZE_CLASSES] = { 0 }, out[HI_NSIZE_CLASSES] = { 0 };
  uint64_t in_calls = 0, out_calls = 0;
  unsigned n_in = 0, n_out = 0;
  struct pair *p;
  FOR_CALLERS (gr, x, p)
    {
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        in[c] = hi_add_sat (in[c], p->bytes[c]);
      in_calls = hi_add_sat (in_calls, p->calls);
      n_in++;
    }
  FOR_CALLEES (gr, x, p)
    {
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        out[c] = hi_add_sat (out[c], p->bytes[c]);
      out_calls = hi_add_sat (out_calls, p->calls);
      n_out++;
    }
  if (n_in > 1)
    print_line (gr, f, in, sum4 (in), in_calls, g->called, x, "all");
  FOR_CALLERS (gr, x, p)
    print_line (gr, f, p->bytes, sum4 (in), p->calls, g->called, p->a, NULL);
  char name[1200], idx[16], pct[3], selfp[3], sz[HI_NSIZE_CLASSES][3];
  node_name (gr, x, name, sizeof name);
  snprintf (idx, sizeof idx, "[%u]", g->index);
  hi_pct2 (pct, sum4 (g->total), a->total_bytes);
  hi_pct2 (selfp, sum4 (g->self), a->total_bytes);
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    hi_pct2 (sz[c], g->self[c], sum4 (g->self));
  fprintf (f, "%6s    %s  %12" PRIu64 " (%s)  %s %s %s %s      %12" PRIu64
           "+%-8" PRIu64 " %s %s\n", idx, pct, sum4 (g->self), selfp, sz[0],
           sz[1], sz[2], sz[3], g->called, g->recursive, name, idx);
  if (x >= gr->nf)
    for (uint32_t fn = 0; fn < gr->nf; fn++)
      if (gr->comp[fn] == x)
        fprintf (f, "%74s%s %s\n", "", gr->a->funcs.strs[fn], name);
  FOR_CALLEES (gr, x, p)
    print_line (gr, f, p->bytes, sum4 (out), p->calls, gr->g[p->b].called,
                p->b, NULL);
  if (n_out > 1)
    print_line (gr, f, out, sum4 (out), out_calls, out_calls, x, "all");
  fputs ("------------------------------------------------------------------"
         "----------------------------\n", f);
}

static void
json_link (struct graph *gr, FILE *f, const struct pair *p, uint32_t o,
           int first)
{
  char name[1200];
  node_name (gr, o, name, sizeof name);
  fprintf (f, "%s{\"index\": %u, \"name\": ", first ? "" : ", ",
           gr->g[o].index);
  hi_json_string (f, name);
  fprintf (f, ", \"bytes\": %" PRIu64 ", \"calls\": %" PRIu64 "}",
           sum4 (p->bytes), p->calls);
}

static void
print_json_entry (struct graph *gr, FILE *f, uint32_t x, int first)
{
  struct gnode *g = &gr->g[x];
  char name[1200];
  node_name (gr, x, name, sizeof name);
  fprintf (f, "%s\n  {\"index\": %u, \"name\": ", first ? "" : ",", g->index);
  hi_json_string (f, name);
  fprintf (f, ", \"self_desc\": %" PRIu64 ", \"self\": %" PRIu64
           ", \"self_s\": %" PRIu64 ", \"self_m\": %" PRIu64
           ", \"self_l\": %" PRIu64 ", \"self_x\": %" PRIu64
           ", \"called\": %" PRIu64 ", \"recursive\": %" PRIu64
           ", \"members\": [", sum4 (g->total), sum4 (g->self), g->self[0],
           g->self[1], g->self[2], g->self[3], g->called, g->recursive);
  int mfirst = 1;
  for (uint32_t fn = 0; x >= gr->nf && fn < gr->nf; fn++)
    if (gr->comp[fn] == x)
      {
        fputs (mfirst ? "" : ", ", f);
        hi_json_string (f, gr->a->funcs.strs[fn]);
        mfirst = 0;
      }
  struct pair *p;
  int lfirst = 1;
  fputs ("], \"ancestors\": [", f);
  FOR_CALLERS (gr, x, p)
    json_link (gr, f, p, p->a, lfirst), lfirst = 0;
  lfirst = 1;
  fputs ("], \"descendants\": [", f);
  FOR_CALLEES (gr, x, p)
    json_link (gr, f, p, p->b, lfirst), lfirst = 0;
  fputs ("]}", f);
}

/* Whether entry X is shown at this verbosity: by its bytes; one that
   allocated only 0-byte blocks by its allocations, its only measure. */
static int
entry_shown (const struct graph *gr, uint32_t x)
{
  const struct hi_analysis *a = gr->a;
  uint64_t bytes = sum4 (gr->g[x].total);
  return a->opt.verbosity == HI_VERBOSE
         || (bytes ? hi_shown (&a->opt, bytes, a->total_bytes)
                   : hi_shown (&a->opt, gr->g[x].called, a->total_allocs));
}

static void
graph_free (struct graph *gr)
{
  free (gr->comp);
  free (gr->g);
  free (gr->from_a);
  free (gr->from_b);
  free (gr->by_a);
  free (gr->by_b);
  pairs_free (&gr->fpairs);
  pairs_free (&gr->gpairs);
}

hi_status
hi_table_graph (struct hi_analysis *a, FILE *f)
{
  struct graph gr;
  memset (&gr, 0, sizeof gr);
  gr.a = a;
  gr.nf = a->funcs.n;
  int json = a->opt.format == HI_JSON;
  uint32_t longest = 0;
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    if (a->chain_start[s + 1] - a->chain_start[s] > longest)
      longest = a->chain_start[s + 1] - a->chain_start[s];
  uint32_t *buf = malloc (((size_t) longest + 1) * sizeof *buf);
  struct entry_key *order = NULL;
  if (buf && build (&gr, buf) == 0 && index_pairs (&gr) == 0)
    order = malloc (((size_t) gr.nf + gr.ncycles + 1) * sizeof *order);
  free (buf);
  if (!order)
    {
      graph_free (&gr);
      return HI_E_NOMEM;
    }
  uint32_t n = 0;
  for (uint32_t x = 0; x < gr.nf + gr.ncycles; x++)
    if (gr.g[x].called && (x >= gr.nf || gr.comp[x] == x))
      order[n++] = (struct entry_key) { sum4 (gr.g[x].total), x };
  qsort (order, n, sizeof *order, by_total);
  for (uint32_t i = 0; i < n; i++)
    gr.g[order[i].x].index = i;
  fputs (json ? "\"graph\": [" :
         "--------- Allocation Call Graph ---------\n\n"
         " index  self+desc          self (%)  size-func           called+recursive  name\n"
         "                                     s  m  l  x\n"
         "       (ancestors:          bytes     size-ances   frac           calls  name)\n"
         "       (descendants:        bytes     size-desc    frac           calls  name)\n"
         "------------------------------------------------------------------"
         "----------------------------\n", f);
  for (uint32_t i = 0; i < n; i++)
    {
      if (!json && !entry_shown (&gr, order[i].x))
        continue;
      if (json)
        print_json_entry (&gr, f, order[i].x, i == 0);
      else
        print_text_entry (&gr, f, order[i].x);
    }
  fputs (json ? "\n]" : "\n", f);
  free (order);
  graph_free (&gr);
  return HI_OK;
}
