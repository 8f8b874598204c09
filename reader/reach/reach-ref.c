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
#include "reach/reach-int.h"
#include "report/rmodel.h"
#include "symbols/datasym.h"
#include "tables/tables.h"
#include "target/target.h"
#include "util/sort.h"
#include "util/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A block's predecessor when a root reached it. */
#define FROM_MEMORY UINT32_MAX
#define FROM_REGISTER (UINT32_MAX - 1)
/* Rows kept when --limit=0 asks for all: a hostile core's heap full of
   pointers to one block stays bounded. */
#define ALL_ROWS (1u << 20)
/* struct pthread's size in glibc 2.36 (2,304 bytes): the thread
   descriptor at the thread pointer, where the first keys of
   pthread_setspecific live. */
#define DESCRIPTOR_BYTES 2304u
#define RED_ZONE 128u

/* A word that points into the block: a root's (memory at AT, or
   register REG of thread THREAD) or block FROM's at AT. */
struct hit
{
  uint64_t at, v;
  uint32_t from;             /* a block, FROM_MEMORY or FROM_REGISTER */
  uint32_t thread, reg;
};

struct hits
{
  struct hit *v;
  size_t n, cap, keep;
  uint64_t all;
};

/* A thread's TLS block of one module (libthread_db's answer). */
struct tls_range
{
  uint64_t start, end, tid;
  const char *path;          /* the module's, in the scan's maps */
};

struct ref
{
  struct hi_scan *s;
  /* The threads' TLS blocks, found on the first root to name. */
  struct tls_range *tls;
  size_t n_tls, cap_tls;
  int tls_done;
  uint32_t target;
  uint32_t from;             /* the block being read, or FROM_MEMORY */
  int bfs;                   /* predecessors are being recorded */
  uint8_t *seen;
  uint32_t *pred;
  uint64_t *pred_at, *pred_v;
  uint32_t *next;
  uint32_t n_next;
  struct hits roots, blocks;
  int nomem;
};

static int
hit_cmp (const void *x, const void *y)
{
  const struct hit *a = x, *b = y;
  /* Registers first, then by where the word is. */
  int c = hi_cmp_u64 (b->from == FROM_REGISTER, a->from == FROM_REGISTER);
  if (c == 0)
    c = hi_cmp_u64 (a->thread, b->thread);
  if (c == 0)
    c = hi_cmp_u64 (a->at, b->at);
  return c ? c : hi_cmp_u64 (a->reg, b->reg);
}

/* Keep the KEEP first of H in order (sorted when full). */
static void
hits_trim (struct hits *h)
{
  if (h->n > 1)
    qsort (h->v, h->n, sizeof *h->v, hit_cmp);
  if (h->n > h->keep)
    h->n = h->keep;
}

static void
hits_add (struct ref *f, struct hits *h, struct hit x)
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
reached (struct ref *f, uint32_t from, uint64_t at, uint64_t v, uint32_t i)
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
  struct ref *f = ctx;
  if (i == f->target)
    hits_add (f, f->from == FROM_MEMORY ? &f->roots : &f->blocks,
              (struct hit) { at, v, f->from, 0, 0 });
  reached (f, f->from, at, v, i);
}

static void
on_register (void *ctx, size_t thread, unsigned reg, uint64_t v, uint32_t i)
{
  struct ref *f = ctx;
  if (i == f->target)
    hits_add (f, &f->roots, (struct hit) { 0, v, FROM_REGISTER,
                                           (uint32_t) thread, reg });
  reached (f, FROM_REGISTER, (uint64_t) thread << 8 | reg, v, i);
}

static int
index_cmp (const void *x, const void *y)
{
  return hi_cmp_u64 (*(const uint32_t *) x, *(const uint32_t *) y);
}

/* The walk: from the roots, breadth-first, each level in address
   order; then the blocks no root reaches, for their pointers. */
static hi_status
walk (struct ref *f)
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
  f->from = FROM_MEMORY;
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

/* What a root is, for its row. */
struct root_desc
{
  const char *kind;          /* "register", "stack", "tls", "data",
                                "memory" */
  uint64_t tid;              /* its thread, or 0 */
  char at[32];               /* a register's name or the word's address */
  char module[HI_MAP_PATH_MAX];  /* a module's base name (data), or the
                                    mapping's name */
  char symbol[288];          /* the variable (data), or "" */
};

static const char *const reg_names[] = {
  "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
  "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
  "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"
};
/* heapinspect/leak-stop.h's order of exit()'s caller's registers. */
static const char *const exit_reg_names[] = {
  "rbx", "rbp", "r12", "r13", "r14", "r15"
};

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash ? slash + 1 : path;
}

/* The thread whose stack holds AT in mapping E (its stack pointer there,
   at most the red zone above AT; the nearest), or NULL. */
static const struct hi_thread_regs *
stack_thread (const struct hi_scan *s, const struct hi_map_entry *e,
              uint64_t at)
{
  const struct hi_thread_regs *best = NULL;
  for (size_t i = 0; i < s->n_threads; i++)
    {
      uint64_t sp = s->threads[i].sp;
      if (sp < e->start || sp >= e->end || sp > at + RED_ZONE)
        continue;
      if (!best || sp > best->sp)
        best = &s->threads[i];
    }
  return best;
}

/* F's TLS blocks: each thread's of each module with a TLS block (its
   first page's mapping, of the first TLS_FILES files), as the thread
   library gives them (libthread_db: the reader's own targets); none
   where it cannot. */
#define TLS_FILES 512u
static void
tls_ranges (struct ref *f)
{
  const struct hi_scan *s = f->s;
  unsigned files = 0;
  f->tls_done = 1;
  for (size_t i = 0; i < s->n_maps && files < TLS_FILES; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      if (e->file_offset != 0 || e->path[0] != '/')
        continue;
      files++;
      uint64_t memsz, bias, map;
      struct hi_db_thread *th;
      size_t n;
      const char *why;
      if (hi_tls_image (e->path, e->start, &memsz, &bias) != 0
          || hi_target_link_map (s->t, bias, &map) != 0
          || hi_thread_db_list_tls (s->t, map, 0, &th, &n, &why) != 0)
        continue;
      for (size_t k = 0; k < n; k++)
        if (th[k].tls && th[k].tls + memsz > th[k].tls
            && hi_grow ((void **) &f->tls, &f->cap_tls, f->n_tls + 1,
                        sizeof *f->tls) == 0)
          f->tls[f->n_tls++] = (struct tls_range) {
            th[k].tls, th[k].tls + memsz, th[k].tid, e->path };
      free (th);
    }
}

/* AT in a thread's TLS block of a module: D says which, and the TLS
   variable.  1, or 0. */
static int
tls_root (struct ref *f, uint64_t at, struct root_desc *d)
{
  if (!f->tls_done)
    tls_ranges (f);
  for (size_t i = 0; i < f->n_tls; i++)
    {
      const struct tls_range *t = &f->tls[i];
      if (at < t->start || at >= t->end)
        continue;
      char name[256], safe[256];
      uint64_t off;
      d->kind = "tls";
      d->tid = t->tid;
      hi_escape (base_name (t->path), d->module, sizeof d->module);
      if (hi_tls_symbol (t->path, at - t->start, name, sizeof name, &off)
          == 0)
        {
          hi_escape (name, safe, sizeof safe);
          snprintf (d->symbol, sizeof d->symbol, off ? "%s+%" PRIu64 : "%s",
                    safe, off);
        }
      return 1;
    }
  return 0;
}

/* The root H as its row says it. */
static void
describe_root (struct ref *f, const struct hit *h, struct root_desc *d)
{
  const struct hi_scan *s = f->s;
  memset (d, 0, sizeof *d);
  if (h->from == FROM_REGISTER)
    {
      d->kind = "register";
      if (h->thread < s->n_threads)
        d->tid = s->threads[h->thread].tid;
      if (h->reg >= HI_SCAN_EXIT_REG
          && h->reg - HI_SCAN_EXIT_REG < sizeof exit_reg_names
                                         / sizeof *exit_reg_names)
        snprintf (d->at, sizeof d->at, "%s (exit's caller)",
                  exit_reg_names[h->reg - HI_SCAN_EXIT_REG]);
      else if (h->reg < sizeof reg_names / sizeof *reg_names)
        snprintf (d->at, sizeof d->at, "%s", reg_names[h->reg]);
      else
        snprintf (d->at, sizeof d->at, "r#%" PRIu32, h->reg);
      return;
    }
  snprintf (d->at, sizeof d->at, "0x%" PRIx64, h->at);
  d->kind = "memory";
  if (tls_root (f, h->at, d))
    return;
  for (size_t i = 0; i < s->n_threads; i++)
    {
      uint64_t tp = s->threads[i].fs_base;
      if (tp && h->at >= tp && h->at - tp < DESCRIPTOR_BYTES)
        {
          d->kind = "tls";
          d->tid = s->threads[i].tid;
          snprintf (d->symbol, sizeof d->symbol, "thread descriptor+%" PRIu64,
                    h->at - tp);
          return;
        }
    }
  const struct hi_map_entry *e = hi_scan_mapping_of (s, h->at);
  if (!e)
    return;
  const struct hi_thread_regs *th = stack_thread (s, e, h->at);
  if (th)
    {
      d->kind = "stack";
      d->tid = th->tid;
      return;
    }
  hi_escape (base_name (e->path), d->module, sizeof d->module);
  if (!e->path[0] || e->path[0] != '/')
    return;
  d->kind = "data";
  /* The file's first page gives its load bias. */
  for (size_t i = 0; i < s->n_maps; i++)
    if (s->maps[i].file_offset == 0
        && strcmp (s->maps[i].path, e->path) == 0)
      {
        char name[256];
        uint64_t off;
        if (hi_data_symbol (e->path, s->maps[i].start, h->at, name,
                            sizeof name, &off) == 0)
          {
            char safe[256];
            hi_escape (name, safe, sizeof safe);
            if (off)
              snprintf (d->symbol, sizeof d->symbol, "%s+%" PRIu64, safe,
                        off);
            else
              snprintf (d->symbol, sizeof d->symbol, "%s", safe);
          }
        break;
      }
}

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
  struct ref *f;
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
root_cells (const struct ref_report *x, const struct hit *h,
            struct hi_cell *c, const int *at)
{
  struct hi_cell scratch;
  struct root_desc d;
  describe_root (x->f, h, &d);
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
  const struct hits *h = &x->f->roots;
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
  const struct hits *h = &x->f->blocks;
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
  struct ref *f = x->f;
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
  while (f->pred[i] < FROM_REGISTER && n < f->s->n_blocks)
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
      struct hit root = { at, f->pred_v[i], f->pred[i], 0, 0 };
      if (f->pred[i] == FROM_REGISTER)
        root = (struct hit) { 0, f->pred_v[i], FROM_REGISTER,
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
  struct ref *f = x->f;
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
            " %s and %" PRIu64 " %s point into it%s%s", class_of (x, f->target),
            f->roots.all, plural (f->roots.all, "root", "roots"),
            f->blocks.all, plural (f->blocks.all, "block", "blocks"),
            skipped[0] ? "; the scan skipped " : "", skipped);
  c[P_T1] = hi_cell_text (hi_rmodel_strdup (x->r, s));
}

/* ADDR in no live block: the one line that says so. */
static void
none_table (struct hi_rmodel *r, uint64_t addr, int monitor,
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
  struct ref f = { .s = s };
  if (target < 0)
    none_table (&r, addr, s->m != NULL, opt);
  else
    {
      uint32_t limit = opt->limit == HI_OPT_LIMIT_AUTO ? 20
                       : opt->limit && opt->limit < ALL_ROWS ? opt->limit
                       : ALL_ROWS;
      f.target = (uint32_t) target;
      f.roots.keep = f.blocks.keep = limit;
      st = walk (&f);
      if (st == HI_OK)
        {
          struct ref_report x = { &f, a, rc, &r };
          block_table (&x, addr);
          roots_table (&x);
          blocks_table (&x);
          path_table (&x);
        }
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
