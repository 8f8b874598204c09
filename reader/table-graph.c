/* table-graph.c - mprof's allocation call graph, gprof style: one entry
   per function on an allocating chain, with the bytes it and its callees
   allocated, its callers above and callees below.  Recursion is merged:
   each strongly connected component of two or more functions becomes one
   <cycle N> node.  Every distinct pair is counted once per chain, so
   recursion never inflates a pair or a function.  The threshold and the
   limit keep it short: entries and their caller/callee lines under the
   threshold are hidden and counted, and only shown entries are numbered,
   so every [N] printed refers to an entry printed. */
#include "analysis.h"
#include "options.h"
#include "rmodel.h"

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

/* A function's own figures: what a <cycle N> entry's members show. */
struct fstat
{
  uint64_t stamp, called, bytes;
};

/* Graph nodes: functions 0..nf-1, then cycles nf..nf+ncycles-1. */
struct gnode
{
  uint64_t total[HI_NSIZE_CLASSES];  /* self + descendants */
  uint64_t self[HI_NSIZE_CLASSES];
  uint64_t called, recursive;
  uint64_t stamp;
  uint32_t index;                    /* [index] as printed; 0: not printed */
  uint32_t count_in_chain;
};

struct graph
{
  struct hi_analysis *a;
  uint32_t nf, ncycles;
  uint32_t *comp;            /* function -> graph node */
  struct gnode *g;
  uint32_t deeper;           /* function id of <deeper> (chains cut at the
                                depth cap): a caller, never an entry */
  struct fstat *fs;          /* per function, for cycle members */
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
  gr->fs = calloc (gr->nf + 1, sizeof *gr->fs);
  if (!gr->g || !gr->fs)
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
          struct fstat *fs = &gr->fs[buf[i]];
          if (fs->stamp != stamp)
            {
              fs->stamp = stamp;
              fs->called = hi_add_sat (fs->called, allocs);
              fs->bytes = hi_add_sat (fs->bytes, sum4 (site->bytes));
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

/* The columns: mprof's, then the exact figures JSON gives instead of
   the text's percentages.  An entry row fills the entry's cells; a
   caller or callee row the line's: the bytes allocated through the pair
   in "self", their split by size in s m l x, their share of all the
   entry's callers' (callees') bytes in "frac", and calls/of in
   "called". */
enum
{
  C_INDEX, C_TOTALP, C_SELF, C_SELFP, C_S, C_M, C_L, C_X, C_FRAC, C_CALLED,
  C_NAME,
  C_J_INDEX, C_J_NAME, C_J_TOTAL, C_J_SELF, C_J_S, C_J_M, C_J_L, C_J_X,
  C_J_CALLED, C_J_RECURSIVE, C_J_BYTES, C_J_CALLS, C_J_CALLERS_BELOW,
  C_J_CALLEES_BELOW,
  NCOLS
};

static const struct hi_column columns[NCOLS] = {
  [C_INDEX] = { .head = "index", .type = HI_CELL_REF },
  [C_TOTALP] = { .head = "self+desc", .type = HI_CELL_PCT2 },
  [C_SELF] = { .head = "self", .type = HI_CELL_BYTES },
  [C_SELFP] = { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  [C_S] = { .head = "size-func", .head2 = "s", .type = HI_CELL_PCT2 },
  [C_M] = { .head2 = "m", .type = HI_CELL_PCT2 },
  [C_L] = { .head2 = "l", .type = HI_CELL_PCT2 },
  [C_X] = { .head2 = "x", .type = HI_CELL_PCT2 },
  [C_FRAC] = { .head = "frac", .type = HI_CELL_PCT2 },
  [C_CALLED] = { .head = "called+recursive", .type = HI_CELL_SUM },
  [C_NAME] = { .head = "name", .type = HI_CELL_TEXT, .left = 1 },
  [C_J_INDEX] = { .key = "index", .type = HI_CELL_REF },
  [C_J_NAME] = { .key = "name", .type = HI_CELL_TEXT },
  [C_J_TOTAL] = { .key = "self_desc", .type = HI_CELL_BYTES },
  [C_J_SELF] = { .key = "self", .type = HI_CELL_BYTES },
  [C_J_S] = { .key = "self_s", .type = HI_CELL_BYTES },
  [C_J_M] = { .key = "self_m", .type = HI_CELL_BYTES },
  [C_J_L] = { .key = "self_l", .type = HI_CELL_BYTES },
  [C_J_X] = { .key = "self_x", .type = HI_CELL_BYTES },
  [C_J_CALLED] = { .key = "called", .type = HI_CELL_COUNT },
  [C_J_RECURSIVE] = { .key = "recursive", .type = HI_CELL_COUNT },
  [C_J_BYTES] = { .key = "bytes", .type = HI_CELL_BYTES },
  [C_J_CALLS] = { .key = "calls", .type = HI_CELL_COUNT },
  [C_J_CALLERS_BELOW] = { .key = "callers_below", .type = HI_CELL_COUNT },
  [C_J_CALLEES_BELOW] = { .key = "callees_below", .type = HI_CELL_COUNT },
};

/* How many member names a cycle's text line gives before "and N more". */
#define MEMBERS_SHOWN 4

/* Entries, and caller (callee) lines per entry, shown (0: all).  With
   no --limit, by verbosity as the threshold is: heaptrack_print's top 10
   and 5 under each, so the graph stays a page long; --limit=N sets both,
   --limit=0 shows all. */
static uint32_t
entry_limit (const struct hi_options *o)
{
  if (o->limit != HI_OPT_LIMIT_AUTO)
    return o->limit;
  return o->verbosity == HI_VERBOSE ? 0 : o->verbosity == HI_TERSE ? 5 : 10;
}

static uint32_t
line_limit (const struct hi_options *o)
{
  if (o->limit != HI_OPT_LIMIT_AUTO)
    return o->limit;
  return o->verbosity == HI_VERBOSE ? 0 : o->verbosity == HI_TERSE ? 3 : 5;
}

static struct hi_cell
ref_cell (uint32_t index)
{
  return (struct hi_cell) { HI_CELL_REF, NULL, index, 0 };
}

static struct hi_cell
typed_cell (enum hi_cell_type type, uint64_t v, uint64_t whole)
{
  return (struct hi_cell) { type, NULL, v, whole };
}

/* A row of T for entry GROUP; NULL if out of memory (R->nomem set). */
static struct hi_cell *
add_row (struct hi_rmodel *r, struct hi_table *t, enum hi_row_role role,
         uint32_t group, int text_only, int json_only)
{
  struct hi_cell *c = hi_rmodel_row (r, t, role);
  if (!c)
    return NULL;
  struct hi_row *row = &t->rows[t->n_rows - 1];
  row->group = group;
  row->text_only = text_only;
  row->json_only = json_only;
  return c;
}

/* Node X's name; NULL if out of memory. */
static const char *
plain_name (const struct graph *gr, uint32_t x, char *buf, size_t size)
{
  if (x < gr->nf)
    return gr->a->funcs.strs[x];
  snprintf (buf, size, "<cycle %u>", x - gr->nf + 1);
  return buf;
}

/* Node X's name cells: "name [N]" in text (the reference only to an
   entry printed), the name and the index apart in JSON. */
static void
name_cells (const struct graph *gr, struct hi_rmodel *r, struct hi_cell *c,
            uint32_t x)
{
  char cyc[32];
  const char *name = plain_name (gr, x, cyc, sizeof cyc);
  uint32_t index = gr->g[x].index;
  c[C_J_NAME] = hi_cell_text (hi_rmodel_strdup (r, name));
  if (!index)
    {
      c[C_NAME] = c[C_J_NAME];
      return;
    }
  c[C_J_INDEX] = ref_cell (index);
  size_t len = strlen (name) + 16;
  char *text = malloc (len);
  if (!text)
    {
      r->nomem = 1;
      return;
    }
  snprintf (text, len, "%s [%u]", name, index);
  c[C_NAME] = hi_cell_text (hi_rmodel_strdup (r, text));
  free (text);
}

/* Whether BYTES (or, for 0 bytes, CALLS of all allocations) reach the
   threshold: one rule for entries and lines. */
static int
passes (const struct hi_analysis *a, uint64_t bytes, uint64_t calls)
{
  return bytes ? hi_shown (&a->opt, bytes, a->total_bytes)
               : hi_shown (&a->opt, calls, a->total_allocs);
}

/* One caller or callee line: pair P, to node O, of WHOLE bytes of all
   the entry's callers (callees), P->calls of OF. */
static void
line_row (struct graph *gr, struct hi_rmodel *r, struct hi_table *t,
          enum hi_row_role role, uint32_t group, const struct pair *p,
          uint32_t o, uint64_t whole, uint64_t of)
{
  struct hi_cell *c = add_row (r, t, role, group, 0, 0);
  if (!c)
    return;
  uint64_t b = sum4 (p->bytes);
  c[C_SELF] = hi_cell_bytes (b);
  for (int k = 0; k < HI_NSIZE_CLASSES; k++)
    c[C_S + k] = hi_cell_pct2 (p->bytes[k], b);
  c[C_FRAC] = hi_cell_pct2 (b, whole);
  c[C_CALLED] = typed_cell (HI_CELL_RATIO, p->calls, of);
  name_cells (gr, r, c, o);
  c[C_J_BYTES] = hi_cell_bytes (b);
  c[C_J_CALLS] = hi_cell_count (p->calls);
}

/* The "all" line: the sums of an entry's callers (callees). */
static void
all_row (struct hi_rmodel *r, struct hi_table *t, uint32_t group,
         const uint64_t *bytes, uint64_t calls, uint64_t of)
{
  struct hi_cell *c = add_row (r, t, HI_ROW_ALL, group, 1, 0);
  if (!c)
    return;
  uint64_t b = sum4 (bytes);
  c[C_SELF] = hi_cell_bytes (b);
  for (int k = 0; k < HI_NSIZE_CLASSES; k++)
    c[C_S + k] = hi_cell_pct2 (bytes[k], b);
  c[C_FRAC] = hi_cell_pct2 (b, b);
  c[C_CALLED] = typed_cell (HI_CELL_RATIO, calls, of);
  c[C_NAME] = hi_cell_text ("all");
}

/* The threshold in effect as text, "0.5%", into OUT. */
static void
threshold_text (const struct hi_options *o, char *out, size_t size)
{
  int32_t thr = hi_threshold (o);
  int n = snprintf (out, size, "%d.%03d", thr / 1000, thr % 1000);
  while (n > 0 && out[n - 1] == '0')
    out[--n] = '\0';
  if (n > 0 && out[n - 1] == '.')
    out[--n] = '\0';
  snprintf (out + n, size - (size_t) n, "%%");
}

/* One line for the lines hidden on one side of an entry, with their
   bytes: N_THR below the threshold BELOW ("0.5%"), N_LIM smaller ones
   past the limit of lines. */
static void
below_row (struct hi_rmodel *r, struct hi_table *t, enum hi_row_role role,
           uint32_t group, uint64_t n_thr, uint64_t n_lim, uint64_t bytes,
           const char *below)
{
  char text[128];
  if (!n_lim)
    snprintf (text, sizeof text, "(%" PRIu64 " more below %s)", n_thr, below);
  else if (!n_thr)
    snprintf (text, sizeof text, "(%" PRIu64 " more, smaller)", n_lim);
  else
    snprintf (text, sizeof text, "(%" PRIu64 " more, smaller; %" PRIu64
              " of them below %s)", n_thr + n_lim, n_thr, below);
  struct hi_cell *c = add_row (r, t, role, group, 1, 0);
  if (!c)
    return;
  c[C_SELF] = hi_cell_bytes (bytes);
  c[C_NAME] = hi_cell_text (hi_rmodel_strdup (r, text));
}

/* Members of cycles, grouped by cycle, heaviest first. */
struct members
{
  uint32_t *fn;              /* function ids */
  uint32_t *from;            /* cycle c's are fn[from[c], from[c + 1]) */
};

/* Sorted as (cycle, bytes, allocations, function) records, so the
   comparison needs no graph. */
struct member_key
{
  uint32_t cycle, fn;
  uint64_t bytes, called;
};

static int
by_member (const void *x, const void *y)
{
  const struct member_key *a = x, *b = y;
  if (a->cycle != b->cycle)
    return a->cycle < b->cycle ? -1 : 1;
  if (a->bytes != b->bytes)
    return a->bytes < b->bytes ? 1 : -1;
  if (a->called != b->called)
    return a->called < b->called ? 1 : -1;
  return a->fn < b->fn ? -1 : a->fn > b->fn;
}

static int
members_init (struct graph *gr, struct members *mb)
{
  uint32_t n = 0;
  mb->fn = malloc (((size_t) gr->nf + 1) * sizeof *mb->fn);
  mb->from = calloc ((size_t) gr->ncycles + 2, sizeof *mb->from);
  struct member_key *k = malloc (((size_t) gr->nf + 1) * sizeof *k);
  if (!mb->fn || !mb->from || !k)
    {
      free (k);
      return -1;
    }
  for (uint32_t f = 0; f < gr->nf; f++)
    if (gr->comp[f] >= gr->nf)
      {
        k[n++] = (struct member_key) { gr->comp[f], f, gr->fs[f].bytes,
                                       gr->fs[f].called };
        mb->from[gr->comp[f] - gr->nf + 1]++;
      }
  for (uint32_t c = 0; c < gr->ncycles; c++)
    mb->from[c + 1] += mb->from[c];
  qsort (k, n, sizeof *k, by_member);
  for (uint32_t i = 0; i < n; i++)
    mb->fn[i] = k[i].fn;
  free (k);
  return 0;
}

/* Cycle X's members: one compact text line, the first MEMBERS_SHOWN
   names and how many more; every member as a row in JSON. */
static void
member_rows (struct graph *gr, struct hi_rmodel *r, struct hi_table *t,
             const struct members *mb, uint32_t x)
{
  uint32_t group = gr->g[x].index, c = x - gr->nf;
  uint32_t from = mb->from[c], to = mb->from[c + 1], n = to - from;
  uint32_t named = n <= MEMBERS_SHOWN + 1 ? n : MEMBERS_SHOWN;
  size_t len = 64;
  for (uint32_t i = from; i < from + named; i++)
    len += strlen (gr->a->funcs.strs[mb->fn[i]]) + 2;
  char *text = malloc (len);
  if (!text)
    {
      r->nomem = 1;
      return;
    }
  size_t at = (size_t) snprintf (text, len, "%u members: ", n);
  for (uint32_t i = from; i < from + named; i++)
    at += (size_t) snprintf (text + at, len - at, "%s%s",
                             gr->a->funcs.strs[mb->fn[i]],
                             i + 1 < from + named ? ", " : "");
  if (named < n)
    snprintf (text + at, len - at, " and %u more", n - named);
  struct hi_cell *cells = add_row (r, t, HI_ROW_MEMBER, group, 1, 0);
  if (cells)
    cells[C_NAME] = hi_cell_text (hi_rmodel_strdup (r, text));
  free (text);
  for (uint32_t i = from; i < to; i++)
    {
      const struct fstat *fs = &gr->fs[mb->fn[i]];
      cells = add_row (r, t, HI_ROW_MEMBER, group, 0, 1);
      if (!cells)
        return;
      cells[C_J_NAME] = hi_cell_text (hi_rmodel_strdup (
        r, gr->a->funcs.strs[mb->fn[i]]));
      cells[C_J_BYTES] = hi_cell_bytes (fs->bytes);
      cells[C_J_CALLS] = hi_cell_count (fs->called);
    }
}

/* One side of an entry: its caller (callee) pairs, largest first. */
struct side
{
  struct pair **p;
  uint32_t n;
  uint64_t bytes[HI_NSIZE_CLASSES], calls;
  uint64_t n_thr, n_lim, hidden_bytes;   /* the lines not shown */
};

static int
by_bytes (const void *x, const void *y)
{
  const struct pair *a = *(const struct pair *const *) x;
  const struct pair *b = *(const struct pair *const *) y;
  uint64_t ba = sum4 (a->bytes), bb = sum4 (b->bytes);
  if (ba != bb)
    return ba < bb ? 1 : -1;
  if (a->calls != b->calls)
    return a->calls < b->calls ? 1 : -1;
  if (a->a != b->a)
    return a->a < b->a ? -1 : 1;
  return a->b < b->b ? -1 : a->b > b->b;
}

/* Sort side S (its P filled) and mark which lines show: the first
   LIMIT (0: all) that reach the threshold.  Shown lines stay first. */
static void
side_prepare (const struct hi_analysis *a, struct side *s, uint32_t limit)
{
  qsort (s->p, s->n, sizeof *s->p, by_bytes);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < s->n; i++)
    {
      const struct pair *p = s->p[i];
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        s->bytes[c] = hi_add_sat (s->bytes[c], p->bytes[c]);
      s->calls = hi_add_sat (s->calls, p->calls);
      if (!passes (a, sum4 (p->bytes), p->calls))
        s->n_thr++;
      else if (limit && kept >= limit)
        s->n_lim++;
      else
        {
          s->p[kept++] = s->p[i];
          continue;
        }
      s->hidden_bytes = hi_add_sat (s->hidden_bytes, sum4 (p->bytes));
    }
}

/* Entry X's rows: the sum of its callers if more than one, its callers
   above, the entry, its members, its callees below, their sum.  SCRATCH
   has room for every pair twice. */
static void
entry_rows (struct graph *gr, struct hi_rmodel *r, struct hi_table *t,
            const struct members *mb, uint32_t x, struct pair **scratch,
            const char *below)
{
  struct hi_analysis *a = gr->a;
  struct gnode *g = &gr->g[x];
  uint32_t group = g->index, limit = line_limit (&a->opt);
  struct side in, out;
  memset (&in, 0, sizeof in);
  memset (&out, 0, sizeof out);
  in.p = scratch;
  out.p = scratch + gr->gpairs.n;
  struct pair *p;
  FOR_CALLERS (gr, x, p)
    in.p[in.n++] = p;
  FOR_CALLEES (gr, x, p)
    out.p[out.n++] = p;
  side_prepare (a, &in, limit);
  side_prepare (a, &out, limit);
  uint32_t in_shown = in.n - (uint32_t) (in.n_thr + in.n_lim);
  uint32_t out_shown = out.n - (uint32_t) (out.n_thr + out.n_lim);

  /* mprof's "all" lines, the sums of each side, only when every line is
     shown (verbose): otherwise the shown lines and the "(N more)" line
     add up to the same. */
  int all = a->opt.verbosity == HI_VERBOSE;
  if (all && in.n > 1)
    all_row (r, t, group, in.bytes, in.calls, g->called);
  for (uint32_t i = 0; i < in_shown; i++)
    line_row (gr, r, t, HI_ROW_CALLER, group, in.p[i], in.p[i]->a,
              sum4 (in.bytes), g->called);
  if (in.n_thr + in.n_lim)
    below_row (r, t, HI_ROW_CALLER, group, in.n_thr, in.n_lim,
               in.hidden_bytes, below);

  struct hi_cell *c = add_row (r, t, HI_ROW_ENTRY, group, 0, 0);
  if (!c)
    return;
  uint64_t self = sum4 (g->self), total = sum4 (g->total);
  c[C_INDEX] = ref_cell (g->index);
  c[C_TOTALP] = hi_cell_pct2 (total, a->total_bytes);
  c[C_SELF] = hi_cell_bytes (self);
  c[C_SELFP] = hi_cell_pct2 (self, a->total_bytes);
  for (int k = 0; k < HI_NSIZE_CLASSES; k++)
    {
      c[C_S + k] = hi_cell_pct2 (g->self[k], self);
      c[C_J_S + k] = hi_cell_bytes (g->self[k]);
    }
  c[C_CALLED] = typed_cell (HI_CELL_SUM, g->called, g->recursive);
  name_cells (gr, r, c, x);
  c[C_J_TOTAL] = hi_cell_bytes (total);
  c[C_J_SELF] = hi_cell_bytes (self);
  c[C_J_CALLED] = hi_cell_count (g->called);
  c[C_J_RECURSIVE] = hi_cell_count (g->recursive);
  c[C_J_CALLERS_BELOW] = hi_cell_count (in.n_thr + in.n_lim);
  c[C_J_CALLEES_BELOW] = hi_cell_count (out.n_thr + out.n_lim);

  if (x >= gr->nf)
    member_rows (gr, r, t, mb, x);
  for (uint32_t i = 0; i < out_shown; i++)
    line_row (gr, r, t, HI_ROW_CALLEE, group, out.p[i], out.p[i]->b,
              sum4 (out.bytes), gr->g[out.p[i]->b].called);
  if (out.n_thr + out.n_lim)
    below_row (r, t, HI_ROW_CALLEE, group, out.n_thr, out.n_lim,
               out.hidden_bytes, below);
  if (all && out.n > 1)
    all_row (r, t, group, out.bytes, out.calls, out.calls);
}

static void
graph_free (struct graph *gr)
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

hi_status
hi_table_graph (struct hi_analysis *a, struct hi_rmodel *r)
{
  struct graph gr;
  struct members mb = { NULL, NULL };
  memset (&gr, 0, sizeof gr);
  gr.a = a;
  gr.nf = a->funcs.n;
  gr.deeper = a->frames[HI_FRAME_CUT].func;
  uint32_t longest = 0;
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    if (a->chain_start[s + 1] - a->chain_start[s] > longest)
      longest = a->chain_start[s + 1] - a->chain_start[s];
  uint32_t *buf = malloc (((size_t) longest + 1) * sizeof *buf);
  struct entry_key *order = NULL;
  struct pair **scratch = NULL;
  if (buf && build (&gr, buf) == 0 && index_pairs (&gr) == 0
      && members_init (&gr, &mb) == 0)
    {
      order = malloc (((size_t) gr.nf + gr.ncycles + 1) * sizeof *order);
      scratch = malloc (((size_t) gr.gpairs.n * 2 + 1) * sizeof *scratch);
    }
  free (buf);
  struct hi_table *t = order && scratch
                       ? hi_rmodel_table (r, "graph", "Allocation Call Graph",
                                          columns, NCOLS) : NULL;
  if (!t)
    {
      free (order);
      free (scratch);
      free (mb.fn);
      free (mb.from);
      graph_free (&gr);
      return HI_E_NOMEM;
    }
  t->threshold = hi_threshold (&a->opt);
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    if (hi_site_flags (a, s) & HI_SITE_FILTERED)
      t->filtered++;         /* left out of the graph by chain_funcs */
  t->legend = "an entry's callers above it, callees below: bytes through "
              "each, frac of the entry's callers' (callees') bytes, "
              "calls/of; [N] is entry N";
  uint32_t n = 0;
  for (uint32_t x = 0; x < gr.nf + gr.ncycles; x++)
    if (gr.g[x].called && (x >= gr.nf || gr.comp[x] == x) && x != gr.deeper)
      order[n++] = (struct entry_key) { sum4 (gr.g[x].total), x };
  qsort (order, n, sizeof *order, by_total);
  /* Number the entries printed, in order, before any line refers to one:
     a line names an entry's [index] only if that entry is printed. */
  struct hi_options lim = a->opt;
  lim.limit = entry_limit (&a->opt);
  uint64_t shown = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      struct gnode *g = &gr.g[order[i].x];
      if (hi_keep_row (&lim, t, &shown, passes (a, sum4 (g->total),
                                                g->called)))
        g->index = (uint32_t) shown;
    }
  char below[32];
  threshold_text (&a->opt, below, sizeof below);
  for (uint32_t i = 0; i < n && !r->nomem; i++)
    if (gr.g[order[i].x].index)
      entry_rows (&gr, r, t, &mb, order[i].x, scratch, below);
  free (order);
  free (scratch);
  free (mb.fn);
  free (mb.from);
  graph_free (&gr);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
