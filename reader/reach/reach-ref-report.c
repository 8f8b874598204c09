/* reach-ref-report.c - `ref`'s report: the block (its class as the
   leak check gives it, its chain with the monitor), the roots and the
   blocks pointing into it, and the path from a root; text and JSON
   through the report model. */
#define _GNU_SOURCE
#include "reach/reach-ref.h"
#include "model/model.h"
#include "report/rmodel.h"
#include "tables/tables.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows' columns: roots, referring blocks and the path share them. */
enum { C_STEP, C_KIND, C_THREAD, C_AT, C_SIZE, C_OFFSET, C_TO, C_CLASS,
       C_MODULE, C_SYMBOL, C_ALLOC, C_NCOLS };
#define COLUMN_STEP { .key = "step", .head = "step", .type = HI_CELL_COUNT }
#define COLUMN_KIND { .key = "kind", .head = "what", .type = HI_CELL_TEXT, \
                      .left = 1 }
#define COLUMN_THREAD { .key = "thread", .head = "thread", \
                        .type = HI_CELL_COUNT }
#define COLUMN_AT { .key = "at", .head = "at", .type = HI_CELL_TEXT, \
                    .left = 1 }
#define COLUMN_SIZE { .key = "size", .head = "size", .type = HI_CELL_BYTES }
#define COLUMN_OFFSET { .key = "offset", .head = "offset", \
                        .type = HI_CELL_COUNT }
#define COLUMN_TO { .key = "to", .head = "to", .type = HI_CELL_COUNT }
#define COLUMN_CLASS { .key = "class", .head = "class", \
                       .type = HI_CELL_TEXT, .left = 1 }
#define COLUMN_MODULE { .key = "module", .head = "module", \
                        .type = HI_CELL_TEXT, .left = 1 }
#define COLUMN_SYMBOL { .key = "symbol", .head = "symbol", \
                        .type = HI_CELL_TEXT, .left = 1 }
#define COLUMN_ALLOC { .key = "allocated_by", .head = "allocated by", \
                       .type = HI_CELL_PATH, .left = 1 }

/* Each table's columns, and where each of the C_* is among them (-1:
   not there); the allocating chain last, left out without the
   monitor. */
static const struct hi_column root_columns[] = {
  COLUMN_KIND, COLUMN_THREAD, COLUMN_AT, COLUMN_TO, COLUMN_MODULE,
  COLUMN_SYMBOL
};
static const int root_at[C_NCOLS] = { -1, 0, 1, 2, -1, -1, 3, -1, 4, 5, -1 };
static const struct hi_column block_columns[] = {
  COLUMN_AT, COLUMN_SIZE, COLUMN_OFFSET, COLUMN_TO, COLUMN_CLASS,
  COLUMN_ALLOC
};
static const int block_at[C_NCOLS] = { -1, -1, -1, 0, 1, 2, 3, 4, -1, -1,
                                       5 };
static const struct hi_column path_columns[] = {
  COLUMN_STEP, COLUMN_KIND, COLUMN_THREAD, COLUMN_AT, COLUMN_SIZE,
  COLUMN_OFFSET, COLUMN_TO, COLUMN_MODULE, COLUMN_SYMBOL, COLUMN_ALLOC
};
static const int path_at[C_NCOLS] = { 0, 1, 2, 3, 4, 5, 6, -1, 7, 8, 9 };

#define NCOLS(a) (sizeof a / sizeof a[0])

/* What the report is built from. */
struct ref_report
{
  struct hi_ref *f;
  struct hi_analysis *a;     /* NULL without the monitor */
  const struct hi_reach *rc;
  struct hi_rmodel *r;
};

static const char *
hex (struct hi_rmodel *r, uint64_t v)
{
  char s[32];
  snprintf (s, sizeof s, "0x%" PRIx64, v);
  return hi_rmodel_strdup (r, s);
}

static const char *
class_of (const struct ref_report *x, uint32_t i)
{
  return i < x->rc->n_blocks ? hi_reach_class_name ((int) x->rc->blocks[i].cls)
                             : "?";
}

/* Cell C (a C_*) of a row whose columns are placed by AT. */
#define CELL(cells, at, c) (at[c] >= 0 ? &cells[at[c]] : &scratch)

static void
root_cells (const struct ref_report *x, const struct hi_ref_hit *h,
            struct hi_cell *c, const int *at)
{
  struct hi_cell scratch;
  struct hi_ref_root d;
  hi_ref_describe_root (x->f, h, &d);
  *CELL (c, at, C_KIND) = hi_cell_text (d.kind);
  if (d.tid)
    *CELL (c, at, C_THREAD) = hi_cell_count (d.tid);
  *CELL (c, at, C_AT) = hi_cell_text (hi_rmodel_strdup (x->r, d.at));
  if (d.module[0])
    *CELL (c, at, C_MODULE) = hi_cell_text (hi_rmodel_strdup (x->r,
                                                              d.module));
  if (d.symbol[0])
    *CELL (c, at, C_SYMBOL) = hi_cell_text (hi_rmodel_strdup (x->r,
                                                              d.symbol));
}

static void
block_cells (const struct ref_report *x, uint32_t i, struct hi_cell *c,
             const int *at)
{
  struct hi_cell scratch;
  const struct hi_sblock *b = &x->f->s->b[i];
  *CELL (c, at, C_KIND) = hi_cell_text ("block");
  *CELL (c, at, C_AT) = hi_cell_text (hex (x->r, b->start));
  *CELL (c, at, C_SIZE) = hi_cell_bytes (b->size);
  *CELL (c, at, C_CLASS) = hi_cell_text (class_of (x, i));
  if (x->a)
    *CELL (c, at, C_ALLOC) = hi_site_cell (x->a, b->site, x->r);
}

/* Table NAME with columns COLS (N of them; none when it will have no
   rows, EMPTY its legend then). */
static struct hi_table *
table (const struct ref_report *x, const char *name, const char *title,
       const char *legend, const struct hi_column *cols, size_t n,
       uint64_t rows, const char *empty)
{
  /* Without the monitor, no chains: the last column is left out. */
  if (!x->a && cols[n - 1].type == HI_CELL_PATH)
    n--;
  if (!rows)
    {
      n = 0;
      legend = empty;
    }
  struct hi_table *t = hi_rmodel_table (x->r, name, title, cols, n);
  if (t)
    {
      t->legend = legend;
      t->threshold = -1;
    }
  return t;
}

static void
roots_table (const struct ref_report *x)
{
  const struct hi_ref_hits *h = &x->f->roots;
  struct hi_table *t = table (x, "ref_roots", "Roots", "roots holding a "
                              "pointer into the block (to: where it points "
                              "in it): registers, stack slots, TLS, "
                              "modules' data and bss, other memory",
                              root_columns, NCOLS (root_columns), h->n,
                              "no root holds a pointer into it");
  for (size_t k = 0; t && k < h->n; k++)
    {
      struct hi_cell *c = hi_rmodel_row (x->r, t, HI_ROW_PLAIN);
      if (!c)
        return;
      root_cells (x, &h->v[k], c, root_at);
      c[root_at[C_TO]] = hi_cell_count (h->v[k].v
                                        - x->f->s->b[x->f->target].start);
    }
  if (t)
    t->over_limit = h->all - h->n;
}

static void
blocks_table (const struct ref_report *x)
{
  const struct hi_ref_hits *h = &x->f->blocks;
  struct hi_table *t = table (x, "ref_blocks", "Referring Blocks",
                              "blocks holding a pointer into the block: "
                              "where the pointer is in each (offset) and "
                              "where it points in the block (to)",
                              block_columns, NCOLS (block_columns), h->n,
                              "no block holds a pointer into it");
  const struct hi_sblock *b = x->f->s->b;
  for (size_t k = 0; t && k < h->n; k++)
    {
      struct hi_cell *c = hi_rmodel_row (x->r, t, HI_ROW_PLAIN);
      if (!c)
        return;
      uint32_t from = h->v[k].from;
      block_cells (x, from, c, block_at);
      c[block_at[C_OFFSET]] = hi_cell_count (h->v[k].at - b[from].start);
      c[block_at[C_TO]] = hi_cell_count (h->v[k].v - b[x->f->target].start);
    }
  if (t)
    t->over_limit = h->all - h->n;
}

/* One shortest path from a root, or the line saying there is none. */
static void
path_table (const struct ref_report *x)
{
  struct hi_ref *f = x->f;
  const struct hi_sblock *b = f->s->b;
  if (!f->seen[f->target])
    {
      char line[160];
      snprintf (line, sizeof line, "no root reaches it: %s, as --leak-check "
                "classes it", class_of (x, f->target));
      struct hi_table *t = hi_rmodel_table (x->r, "ref_path",
                                            "Path from a Root", NULL, 0);
      if (t)
        {
          t->legend = hi_rmodel_strdup (x->r, line);
          hi_table_flag (t, "reachable", 0);
        }
      return;
    }
  /* The blocks from the target back to the one a root points into. */
  uint32_t *chain = malloc ((f->s->n_blocks + 1) * sizeof *chain);
  if (!chain)
    {
      x->r->nomem = 1;
      return;
    }
  uint32_t n = 0, i = f->target;
  chain[n++] = i;
  while (f->pred[i] < HI_REF_FROM_REGISTER && n < f->s->n_blocks)
    chain[n++] = i = f->pred[i];
  struct hi_table *t = table (x, "ref_path", "Path from a Root",
                              "one shortest chain of pointers from a root "
                              "to the block, breadth-first over the start "
                              "and interior pointers the leak check "
                              "follows; offset: where the pointer to the "
                              "next is, to: where it points in it",
                              path_columns, NCOLS (path_columns), 1, NULL);
  hi_table_flag (t, "reachable", 1);
  struct hi_cell *c = hi_rmodel_row (x->r, t, HI_ROW_PLAIN);
  if (c)
    {
      uint64_t at = f->pred_at[i];
      struct hi_ref_hit root = { at, f->pred_v[i], f->pred[i], 0, 0 };
      if (f->pred[i] == HI_REF_FROM_REGISTER)
        root = (struct hi_ref_hit) { 0, f->pred_v[i], HI_REF_FROM_REGISTER,
                              (uint32_t) (at >> 8), (uint32_t) (at & 255) };
      c[path_at[C_STEP]] = hi_cell_count (0);
      root_cells (x, &root, c, path_at);
      c[path_at[C_TO]] = hi_cell_count (f->pred_v[i] - b[i].start);
    }
  for (uint32_t k = n; k-- > 0 && !x->r->nomem; )
    {
      uint32_t blk = chain[k];
      c = hi_rmodel_row (x->r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      c[path_at[C_STEP]] = hi_cell_count (n - k);
      block_cells (x, blk, c, path_at);
      if (k > 0)
        {
          uint32_t to = chain[k - 1];
          c[path_at[C_OFFSET]] = hi_cell_count (f->pred_at[to]
                                                - b[blk].start);
          c[path_at[C_TO]] = hi_cell_count (f->pred_v[to] - b[to].start);
        }
    }
  free (chain);
}

/* The block itself: one prose row. */
enum { P_T0, P_ALLOC, P_T1, P_ADDRESS, P_BLOCK, P_SIZE, P_OFFSET, P_CLASS,
       P_ROOTS, P_BLOCKS, P_CHUNK, P_NCOLS };
static const struct hi_column prose_columns[P_NCOLS] = {
  [P_T0] = { .head = "" },
  [P_ALLOC] = { .key = "allocated_by", .head = "", .type = HI_CELL_PATH },
  [P_T1] = { .head = "" },
  [P_ADDRESS] = { .key = "address", .type = HI_CELL_TEXT },
  [P_BLOCK] = { .key = "block", .type = HI_CELL_TEXT },
  [P_SIZE] = { .key = "size", .type = HI_CELL_BYTES },
  [P_OFFSET] = { .key = "offset", .type = HI_CELL_COUNT },
  [P_CLASS] = { .key = "class", .type = HI_CELL_TEXT },
  [P_ROOTS] = { .key = "roots", .type = HI_CELL_COUNT },
  [P_BLOCKS] = { .key = "referring_blocks", .type = HI_CELL_COUNT },
  [P_CHUNK] = { .key = "chunk", .type = HI_CELL_TEXT },
};

static const char *
plural (uint64_t n, const char *one, const char *many)
{
  return n == 1 ? one : many;
}

static void
block_table (const struct ref_report *x, uint64_t addr)
{
  struct hi_ref *f = x->f;
  const struct hi_sblock *b = &f->s->b[f->target];
  struct hi_table *t = hi_rmodel_table (x->r, "ref", NULL, prose_columns,
                                        P_NCOLS);
  struct hi_cell *c = hi_rmodel_row (x->r, t, HI_ROW_PLAIN);
  if (!c)
    return;
  t->prose = 1;
  char s[512], skipped[400];
  uint64_t off = addr - b->start;
  c[P_ADDRESS] = hi_cell_text (hex (x->r, addr));
  c[P_BLOCK] = hi_cell_text (hex (x->r, b->start));
  c[P_SIZE] = hi_cell_bytes (b->size);
  c[P_OFFSET] = hi_cell_count (off);
  c[P_CLASS] = hi_cell_text (class_of (x, f->target));
  c[P_ROOTS] = hi_cell_count (f->roots.all);
  c[P_BLOCKS] = hi_cell_count (f->blocks.all);
  if (x->a)
    {
      snprintf (s, sizeof s, "0x%" PRIx64 " is %" PRIu64 " %s into the %"
                PRIu64 "-byte block at 0x%" PRIx64 ", allocated by ", addr,
                off, plural (off, "byte", "bytes"), b->size, b->start);
      c[P_ALLOC] = hi_site_cell (x->a, b->site, x->r);
    }
  else
    {
      snprintf (s, sizeof s, "0x%" PRIx64 " is %" PRIu64 " %s into the %"
                PRIu64 "-byte block at 0x%" PRIx64 " (glibc's in-use chunk "
                "at 0x%" PRIx64 ", its usable size; no heapinspect data: "
                "glibc's heap was read)", addr, off,
                plural (off, "byte", "bytes"), b->size, b->start,
                b->start - 16);
      c[P_CHUNK] = hi_cell_text (hex (x->r, b->start - 16));
    }
  c[P_T0] = hi_cell_text (hi_rmodel_strdup (x->r, s));
  hi_reach_skipped_text (x->rc, skipped, sizeof skipped);
  snprintf (s, sizeof s, "; %s, as --leak-check classes it: %" PRIu64
            " %s and %" PRIu64 " %s point into it%s%s",
            class_of (x, f->target),
            f->roots.all, plural (f->roots.all, "root", "roots"),
            f->blocks.all, plural (f->blocks.all, "block", "blocks"),
            skipped[0] ? "; the scan skipped " : "", skipped);
  c[P_T1] = hi_cell_text (hi_rmodel_strdup (x->r, s));
}

void
hi_ref_none (struct hi_rmodel *r, uint64_t addr, int monitor,
             const struct hi_options *opt)
{
  static const struct hi_column cols[] = {
    { .head = "" }, { .key = "address", .type = HI_CELL_TEXT },
  };
  struct hi_table *t = hi_rmodel_table (r, "ref", NULL, cols, 2);
  struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
  if (!c)
    return;
  t->prose = 1;
  char s[256];
  snprintf (s, sizeof s, "0x%" PRIx64 ": in no live block%s; `%s 0x%"
            PRIx64 "` says what it is", addr,
            monitor ? "" : " (no heapinspect data: glibc's in-use chunks "
            "were searched)",
            opt->gdb ? "heap block" : "heapinspect block", addr);
  c[0] = hi_cell_text (hi_rmodel_strdup (r, s));
  c[1] = hi_cell_text (hex (r, addr));
}

void
hi_ref_tables (struct hi_ref *f, struct hi_analysis *a,
               const struct hi_reach *rc, uint64_t addr, struct hi_rmodel *r)
{
  struct ref_report x = { f, a, rc, r };
  block_table (&x, addr);
  roots_table (&x);
  blocks_table (&x);
  path_table (&x);
}
