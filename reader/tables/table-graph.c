/* table-graph.c - mprof's allocation call graph as a table of the
   report, gprof style: one entry per function (or <cycle N>) of the call
   graph (callgraph.c), largest first, its callers above and callees
   below.  The threshold and the limit keep it short: entries and their
   caller/callee lines under the threshold are hidden and counted, and
   only shown entries are numbered, so every [N] printed refers to an
   entry printed. */
#include "hi-reader.h"
#include "util/num.h"
#include "analysis/callgraph.h"
#include "report/rmodel.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
  C_J_INDEX, C_J_NAME, C_J_MODULE, C_J_TOTAL, C_J_SELF, C_J_S, C_J_M, C_J_L, C_J_X,
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
  [C_J_MODULE] = { .key = "module", .type = HI_CELL_TEXT },
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

/* Node X's name: a function's, or "<cycle N>" written into BUF. */
static const char *
plain_name (const struct hi_callgraph *gr, uint32_t x, char *buf, size_t size)
{
  if (x < gr->nf)
    return gr->a->funcs.strs[x];
  snprintf (buf, size, "<cycle %u>", x - gr->nf + 1);
  return buf;
}

/* JSON's name of node X (text NAME), and a function's module: the bare
   name, where text adds " (module)" to a name two modules share. */
static void
func_cells (const struct hi_callgraph *gr, struct hi_rmodel *r,
            struct hi_cell *c, uint32_t x, const char *name)
{
  const struct hi_analysis *a = gr->a;
  const struct hi_frame *f = x < gr->nf && gr->fs[x].frame != HI_FRAME_CUT
                             ? &a->frames[gr->fs[x].frame] : NULL;
  if (f && f->name != HI_NONE)
    name = a->strs.strs[f->name];
  c[C_J_NAME] = hi_cell_text (hi_rmodel_strdup (r, name));
  if (f && f->module != HI_NONE)
    c[C_J_MODULE] = hi_cell_text (hi_rmodel_strdup (r, a->strs.strs[f->module]));
}

/* Node X's name cells: "name (file.c:17) [N]" in text (a function's
   places from W if not NULL: where it allocated; the reference only to
   an entry printed), the name and the index apart in JSON. */
static void
name_cells (const struct hi_callgraph *gr, struct hi_rmodel *r,
            struct hi_cell *c, uint32_t x, const struct hi_where *w)
{
  char cyc[32];
  const char *name = plain_name (gr, x, cyc, sizeof cyc);
  uint32_t index = gr->g[x].index;
  func_cells (gr, r, c, x, name);
  if (!index && !w)
    {
      c[C_NAME] = hi_cell_text (hi_rmodel_strdup (r, name));
      return;
    }
  if (index)
    c[C_J_INDEX] = ref_cell (index);
  /* Four places of base names of at most 255 bytes, and the index. */
  size_t len = strlen (name) + 4 * (255 + 24) + 48;
  char *text = malloc (len);
  if (!text)
    {
      r->nomem = 1;
      return;
    }
  if (w && x < gr->nf)
    hi_where_name (gr->a, w, x, text, len);
  else
    snprintf (text, len, "%s", name);
  if (index)
    snprintf (text + strlen (text), len - strlen (text), " [%u]", index);
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
line_row (struct hi_callgraph *gr, struct hi_rmodel *r, struct hi_table *t,
          enum hi_row_role role, uint32_t group, const struct hi_cgpair *p,
          uint32_t o, uint64_t whole, uint64_t of)
{
  struct hi_cell *c = add_row (r, t, role, group, 0, 0);
  if (!c)
    return;
  uint64_t b = hi_sum4 (p->bytes);
  c[C_SELF] = hi_cell_bytes (b);
  for (int k = 0; k < HI_NSIZE_CLASSES; k++)
    c[C_S + k] = hi_cell_pct2 (p->bytes[k], b);
  c[C_FRAC] = hi_cell_pct2 (b, whole);
  c[C_CALLED] = typed_cell (HI_CELL_RATIO, p->calls, of);
  name_cells (gr, r, c, o, NULL);
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
  uint64_t b = hi_sum4 (bytes);
  c[C_SELF] = hi_cell_bytes (b);
  for (int k = 0; k < HI_NSIZE_CLASSES; k++)
    c[C_S + k] = hi_cell_pct2 (bytes[k], b);
  c[C_FRAC] = hi_cell_pct2 (b, b);
  c[C_CALLED] = typed_cell (HI_CELL_RATIO, calls, of);
  c[C_NAME] = hi_cell_text ("all");
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
members_init (struct hi_callgraph *gr, struct members *mb)
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
member_rows (struct hi_callgraph *gr, struct hi_rmodel *r, struct hi_table *t,
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
      const struct hi_cgfunc *fs = &gr->fs[mb->fn[i]];
      cells = add_row (r, t, HI_ROW_MEMBER, group, 0, 1);
      if (!cells)
        return;
      func_cells (gr, r, cells, mb->fn[i], gr->a->funcs.strs[mb->fn[i]]);
      cells[C_J_BYTES] = hi_cell_bytes (fs->bytes);
      cells[C_J_CALLS] = hi_cell_count (fs->called);
    }
}

/* One side of an entry: its caller (callee) pairs, largest first. */
struct side
{
  struct hi_cgpair **p;
  uint32_t n;
  uint64_t bytes[HI_NSIZE_CLASSES], calls;
  uint64_t n_thr, n_lim, hidden_bytes;   /* the lines not shown */
};

static int
by_bytes (const void *x, const void *y)
{
  const struct hi_cgpair *a = *(const struct hi_cgpair *const *) x;
  const struct hi_cgpair *b = *(const struct hi_cgpair *const *) y;
  uint64_t ba = hi_sum4 (a->bytes), bb = hi_sum4 (b->bytes);
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
      const struct hi_cgpair *p = s->p[i];
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        s->bytes[c] = hi_add_sat (s->bytes[c], p->bytes[c]);
      s->calls = hi_add_sat (s->calls, p->calls);
      if (!passes (a, hi_sum4 (p->bytes), p->calls))
        s->n_thr++;
      else if (limit && kept >= limit)
        s->n_lim++;
      else
        {
          s->p[kept++] = s->p[i];
          continue;
        }
      s->hidden_bytes = hi_add_sat (s->hidden_bytes, hi_sum4 (p->bytes));
    }
}

/* Entry X's rows: its callers above (at --verbose their sum first), the
   entry (named with where it allocated, from WHERE), its members, its callees below (at
   --verbose their sum last).  SCRATCH has room for every pair twice. */
static void
entry_rows (struct hi_callgraph *gr, struct hi_rmodel *r, struct hi_table *t,
            const struct hi_where *where,
            const struct members *mb, uint32_t x, struct hi_cgpair **scratch,
            const char *below)
{
  struct hi_analysis *a = gr->a;
  struct hi_cgnode *g = &gr->g[x];
  uint32_t group = g->index, limit = line_limit (&a->opt);
  struct side in, out;
  memset (&in, 0, sizeof in);
  memset (&out, 0, sizeof out);
  in.p = scratch;
  out.p = scratch + gr->gpairs.n;
  struct hi_cgpair *p;
  HI_FOR_CALLERS (gr, x, p)
    in.p[in.n++] = p;
  HI_FOR_CALLEES (gr, x, p)
    out.p[out.n++] = p;
  side_prepare (a, &in, limit);
  side_prepare (a, &out, limit);
  uint32_t in_shown = in.n - (uint32_t) (in.n_thr + in.n_lim);
  uint32_t out_shown = out.n - (uint32_t) (out.n_thr + out.n_lim);

  /* mprof's "all" lines, the sums of each side, only at --verbose:
     otherwise the lines shown and the "(N more)" line add up to the
     same. */
  int all = a->opt.verbosity == HI_VERBOSE;
  if (all && in.n > 1)
    all_row (r, t, group, in.bytes, in.calls, g->called);
  for (uint32_t i = 0; i < in_shown; i++)
    line_row (gr, r, t, HI_ROW_CALLER, group, in.p[i], in.p[i]->a,
              hi_sum4 (in.bytes), g->called);
  if (in.n_thr + in.n_lim)
    below_row (r, t, HI_ROW_CALLER, group, in.n_thr, in.n_lim,
               in.hidden_bytes, below);

  struct hi_cell *c = add_row (r, t, HI_ROW_ENTRY, group, 0, 0);
  if (!c)
    return;
  uint64_t self = hi_sum4 (g->self), total = hi_sum4 (g->total);
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
  name_cells (gr, r, c, x, where);
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
              hi_sum4 (out.bytes), gr->g[out.p[i]->b].called);
  if (out.n_thr + out.n_lim)
    below_row (r, t, HI_ROW_CALLEE, group, out.n_thr, out.n_lim,
               out.hidden_bytes, below);
  if (all && out.n > 1)
    all_row (r, t, group, out.bytes, out.calls, out.calls);
}

hi_status
hi_table_graph (struct hi_analysis *a, struct hi_rmodel *r)
{
  struct hi_callgraph gr;
  struct members mb = { NULL, NULL };
  struct entry_key *order = NULL;
  struct hi_cgpair **scratch = NULL;
  if (hi_callgraph_build (&gr, a) == 0 && members_init (&gr, &mb) == 0)
    {
      order = malloc (((size_t) gr.nf + gr.ncycles + 1) * sizeof *order);
      scratch = malloc (((size_t) gr.gpairs.n * 2 + 1) * sizeof *scratch);
    }
  struct hi_table *t = order && scratch
                       ? hi_rmodel_table (r, "graph", "Allocation Call Graph",
                                          columns, NCOLS) : NULL;
  if (!t)
    {
      free (order);
      free (scratch);
      free (mb.fn);
      free (mb.from);
      hi_callgraph_free (&gr);
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
      order[n++] = (struct entry_key) { hi_sum4 (gr.g[x].total), x };
  qsort (order, n, sizeof *order, by_total);
  /* Number the entries printed, in order, before any line refers to one:
     a line names an entry's [index] only if that entry is printed. */
  struct hi_options lim = a->opt;
  lim.limit = entry_limit (&a->opt);
  uint64_t shown = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      struct hi_cgnode *g = &gr.g[order[i].x];
      if (hi_keep_row (&lim, t, &shown, passes (a, hi_sum4 (g->total),
                                                g->called)))
        g->index = (uint32_t) shown;
    }
  char below[32];
  hi_threshold_text (hi_threshold (&a->opt), below, sizeof below);
  struct hi_where *where = hi_where_new (a);
  if (!where)
    r->nomem = 1;
  for (uint32_t i = 0; i < n && !r->nomem; i++)
    if (gr.g[order[i].x].index)
      entry_rows (&gr, r, t, where, &mb, order[i].x, scratch, below);
  hi_where_free (where);
  free (order);
  free (scratch);
  free (mb.fn);
  free (mb.from);
  hi_callgraph_free (&gr);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
