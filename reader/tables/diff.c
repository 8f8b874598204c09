/* diff.c - what changed between two moments of a program's heap: per
   call chain and per allocating function, the change in live bytes and
   blocks and in allocations, from OLD to NEW.  Chains are matched by
   what the tables show of them, never by addresses, so two processes
   (ASLR) and a rebuilt program compare. */
#define _GNU_SOURCE

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tables/tables.h"
#include "util/num.h"
#include "util/strtab.h"
#include "util/vec.h"
#include "util/sort.h"

#define NO_SITE UINT64_MAX

/* One moment: its model, named. */
struct side
{
  const struct hi_model *m;
  const char *name;
  struct hi_symbolizer *sym;
  struct hi_analysis a;
  int ready;                 /* A was initialized */
};

/* What a chain or function holds at one moment. */
struct fig
{
  uint64_t live_bytes, live_blocks, allocs, bytes;
};

/* A row: one key (chain or function) at both moments. */
struct drow
{
  uint32_t key;              /* id in the table's keys */
  int filtered;              /* --focus, --ignore or --module left it out */
  struct fig f[2];           /* OLD, NEW */
  uint64_t site[2];          /* a site showing it on each side, or NO_SITE */
  /* The changes, NEW minus OLD, saturated to int64_t. */
  int64_t d_live_bytes, d_live_blocks, d_allocs, d_bytes;
};

/* Rows of one table, by key. */
struct rows
{
  struct hi_strtab keys;
  struct drow *v;
  size_t cap;
};

/* A growing key string. */
struct key
{
  char *s;
  size_t n, cap;
  int nomem;
};

static void
key_put (struct key *k, const char *s, size_t len)
{
  if (hi_grow ((void **) &k->s, &k->cap, k->n + len + 1, 1) != 0)
    {
      k->nomem = 1;
      return;
    }
  memcpy (k->s + k->n, s, len);
  k->n += len;
  k->s[k->n] = '\0';
}

static void
key_str (struct key *k, const char *s)
{
  key_put (k, s, strlen (s));
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* The name frame F shows, without the " (module)" a name two modules
   share gets (which depends on the other modules of one side). */
static const char *
frame_name (const struct hi_analysis *a, const struct hi_frame *f)
{
  return f->name != HI_NONE ? a->strs.strs[f->name] : a->funcs.strs[f->func];
}

/* The key of site S of A in K: "F" when filtered, else "-"; "..." when
   callers were cut; the names of the frames its row shows (its last
   --depth), each after a unit separator; with lines, the innermost
   frame's source file (base name) and line.  What a row of the leak
   table shows, without addresses or offsets: the same in two processes
   and in a rebuilt program. */
static void
chain_key (const struct hi_analysis *a, uint64_t s, struct key *k)
{
  uint32_t from, to;
  int cut = hi_path_span (a, s, &from, &to);
  k->n = 0;
  key_str (k, hi_site_flags (a, s) & HI_SITE_FILTERED ? "F" : "-");
  if (a->chain_start[s] == to)
    return;                  /* no chain recorded: the key "-" */
  if (cut)
    key_str (k, "...");
  for (uint32_t i = from; i < to; i++)
    {
      key_str (k, "\x1f");
      key_str (k, frame_name (a, hi_chain_frame (a, i)));
    }
  const struct hi_frame *last = to > from ? hi_chain_frame (a, to - 1) : NULL;
  if (a->opt.lines && last && last->file != HI_NONE && last->line)
    {
      char line[32];
      snprintf (line, sizeof line, ":%" PRIu32, last->line);
      key_str (k, "\x1e");
      key_str (k, base_name (a->strs.strs[last->file]));
      key_str (k, line);
    }
}

/* The key of the function that called the allocator on site S's chain:
   its name, or "" for a site without a chain. */
static void
function_key (const struct hi_analysis *a, uint64_t s, struct key *k)
{
  uint32_t from = a->chain_start[s], to = a->chain_start[s + 1];
  k->n = 0;
  key_str (k, "-");
  if (from < to)
    key_str (k, frame_name (a, hi_chain_frame (a, to - 1)));
}

static void
rows_init (struct rows *r)
{
  memset (r, 0, sizeof *r);
  hi_strtab_init (&r->keys);
}

static void
rows_free (struct rows *r)
{
  hi_strtab_free (&r->keys);
  free (r->v);
}

/* The row of key K (a new one if unseen), or NULL if out of memory. */
static struct drow *
rows_get (struct rows *r, const char *k)
{
  uint32_t id = hi_strtab_intern (&r->keys, k);
  if (id == UINT32_MAX)
    return NULL;
  size_t old = r->cap;
  if (hi_grow ((void **) &r->v, &r->cap, (size_t) id + 1, sizeof *r->v) != 0)
    return NULL;
  for (size_t i = old; i < r->cap; i++)
    {
      memset (&r->v[i], 0, sizeof r->v[i]);
      r->v[i].key = (uint32_t) i;
      r->v[i].site[0] = r->v[i].site[1] = NO_SITE;
    }
  struct drow *row = &r->v[id];
  row->filtered = k[0] == 'F';
  return row;
}

static void
fig_add (struct fig *f, const struct hi_site_sum *x)
{
  f->live_bytes = hi_add_sat (f->live_bytes, hi_sub0 (x->bytes, x->freed));
  f->live_blocks = hi_add_sat (f->live_blocks,
                               hi_sub0 (x->allocs, x->frees));
  f->allocs = hi_add_sat (f->allocs, x->allocs);
  f->bytes = hi_add_sat (f->bytes, x->bytes);
}

/* Adds site S of side I, with figures X, to the row of key K in R (the
   first site of that side is the row's); the row, or NULL if out of
   memory. */
static struct drow *
add_site (struct rows *r, const struct key *k, int i, uint64_t s,
          const struct hi_site_sum *x)
{
  struct drow *row = k->nomem ? NULL : rows_get (r, k->s);
  if (!row)
    return NULL;
  fig_add (&row->f[i], x);
  if (row->site[i] == NO_SITE)
    row->site[i] = s;
  return row;
}

/* Add side I's sites to the chain rows and the function rows. */
static hi_status
add_side (struct side *sd, int i, struct rows *chains, struct rows *funcs)
{
  const struct hi_analysis *a = &sd->a;
  struct key k = { 0 };
  hi_status st = HI_OK;
  for (uint64_t s = 0; s < sd->m->n_sites && st == HI_OK; s++)
    {
      const struct hi_site_sum *x = &a->sum[s];
      if (x->allocs == 0 && x->bytes == 0 && x->frees == 0 && x->freed == 0)
        continue;
      chain_key (a, s, &k);
      const struct drow *row = add_site (chains, &k, i, s, x);
      /* Functions sum the chains the filters keep. */
      if (row && !row->filtered)
        {
          function_key (a, s, &k);
          row = add_site (funcs, &k, i, s, x);
        }
      if (!row)
        st = HI_E_NOMEM;
    }
  free (k.s);
  return st;
}

/* NEW - OLD as an int64_t, saturated. */
static int64_t
delta (uint64_t old, uint64_t new_v)
{
  if (new_v >= old)
    return new_v - old > (uint64_t) INT64_MAX ? INT64_MAX
                                              : (int64_t) (new_v - old);
  return old - new_v > (uint64_t) INT64_MAX ? INT64_MIN
                                            : -(int64_t) (old - new_v);
}

static uint64_t
mag (int64_t d)
{
  return d < 0 ? (uint64_t) 0 - (uint64_t) d : (uint64_t) d;
}

static int
changed (const struct drow *r)
{
  return r->d_live_bytes || r->d_live_blocks || r->d_allocs || r->d_bytes;
}

/* By the size of the change: live bytes, live blocks, bytes allocated,
   allocations; then by key, so the order is the same whatever order
   the sites were recorded in. */
static int
by_change (const void *x, const void *y, void *ctx)
{
  const struct drow *a = x, *b = y;
  const struct hi_strtab *keys = ctx;
  const int64_t *da[] = { &a->d_live_bytes, &a->d_live_blocks, &a->d_bytes,
                          &a->d_allocs };
  const int64_t *db[] = { &b->d_live_bytes, &b->d_live_blocks, &b->d_bytes,
                          &b->d_allocs };
  int c = 0;
  for (int i = 0; i < 4 && c == 0; i++)
    c = hi_cmp_u64 (mag (*db[i]), mag (*da[i]));
  /* A growth before a shrink of the same size. */
  if (c == 0)
    c = hi_cmp_u64 (a->d_live_bytes < 0, b->d_live_bytes < 0);
  return c ? c : strcmp (keys->strs[a->key], keys->strs[b->key]);
}

/* What a row says of a chain's live blocks: "new" (none in OLD, some in
   NEW), "gone" (some in OLD, none in NEW), or NULL. */
static const char *
status_text (const struct drow *r)
{
  if (r->f[0].live_blocks == 0 && r->f[1].live_blocks > 0)
    return "new";
  if (r->f[0].live_blocks > 0 && r->f[1].live_blocks == 0)
    return "gone";
  return NULL;
}

/* The columns both tables share, then the path or the name. */
enum
{
  C_LIVE, C_BLOCKS, C_ALLOCS, C_BYTES, C_OLD_LIVE, C_NEW_LIVE, C_STATUS,
  C_WHAT, C_STATUS_JSON, C_OLD_BLOCKS, C_NEW_BLOCKS, C_OLD_ALLOCS,
  C_NEW_ALLOCS, C_OLD_BYTES, C_NEW_BYTES, C_N,
  /* Functions only: */
  C_NAME = C_N, C_MODULE, C_N_FUNCTIONS
};

#define SHARED_COLUMNS \
  [C_LIVE] = { .key = "live_bytes", .head = "live", \
               .type = HI_CELL_DELTA_BYTES }, \
  [C_BLOCKS] = { .key = "live_blocks", .head = "blocks", \
                 .type = HI_CELL_DELTA }, \
  [C_ALLOCS] = { .key = "allocs", .head = "allocs", .type = HI_CELL_DELTA }, \
  [C_BYTES] = { .key = "bytes", .head = "allocated", \
                .type = HI_CELL_DELTA_BYTES }, \
  [C_OLD_LIVE] = { .key = "old_live_bytes", .head = "old live", \
                   .type = HI_CELL_BYTES }, \
  [C_NEW_LIVE] = { .key = "new_live_bytes", .head = "new live", \
                   .type = HI_CELL_BYTES }, \
  [C_STATUS] = { .head = "", .type = HI_CELL_TEXT, .left = 1 }, \
  [C_STATUS_JSON] = { .key = "status", .type = HI_CELL_TEXT }, \
  [C_OLD_BLOCKS] = { .key = "old_live_blocks", .type = HI_CELL_COUNT }, \
  [C_NEW_BLOCKS] = { .key = "new_live_blocks", .type = HI_CELL_COUNT }, \
  [C_OLD_ALLOCS] = { .key = "old_allocs", .type = HI_CELL_COUNT }, \
  [C_NEW_ALLOCS] = { .key = "new_allocs", .type = HI_CELL_COUNT }, \
  [C_OLD_BYTES] = { .key = "old_bytes", .type = HI_CELL_BYTES }, \
  [C_NEW_BYTES] = { .key = "new_bytes", .type = HI_CELL_BYTES }

static const struct hi_column chain_columns[C_N] = {
  SHARED_COLUMNS,
  [C_WHAT] = { .key = "path", .head = "path", .type = HI_CELL_PATH,
               .left = 1 },
};

/* Text shows the name as the tables do (with " (module)" when two
   modules share it); JSON the bare name and the module apart. */
static const struct hi_column function_columns[C_N_FUNCTIONS] = {
  SHARED_COLUMNS,
  [C_WHAT] = { .head = "function", .type = HI_CELL_TEXT, .left = 1 },
  [C_NAME] = { .key = "name", .type = HI_CELL_TEXT },
  [C_MODULE] = { .key = "module", .type = HI_CELL_TEXT },
};

/* A table's changed rows, before thresholds and limits. */
struct changes
{
  struct drow *v;            /* the changed rows the filters keep, by the
                                size of their change */
  size_t n;
  uint64_t whole[4];         /* sums of |change|: live bytes, live blocks,
                                bytes allocated, allocations */
  uint64_t filtered;         /* changed rows the filters left out */
  uint64_t new_rows, gone;   /* rows of v marked new, gone */
};

/* ROWS' changes into *C (free C->v). */
static hi_status
changes (struct rows *rows, struct changes *c)
{
  uint32_t n = rows->keys.n;
  memset (c, 0, sizeof *c);
  c->v = malloc ((n ? n : 1) * sizeof *c->v);
  if (!c->v)
    return HI_E_NOMEM;
  for (uint32_t i = 0; i < n; i++)
    {
      struct drow *x = &rows->v[i];
      x->d_live_bytes = delta (x->f[0].live_bytes, x->f[1].live_bytes);
      x->d_live_blocks = delta (x->f[0].live_blocks, x->f[1].live_blocks);
      x->d_allocs = delta (x->f[0].allocs, x->f[1].allocs);
      x->d_bytes = delta (x->f[0].bytes, x->f[1].bytes);
      if (!changed (x))
        continue;
      if (x->filtered)
        {
          c->filtered++;
          continue;
        }
      const char *st = status_text (x);
      if (st && st[0] == 'n')
        c->new_rows++;
      else if (st)
        c->gone++;
      c->whole[0] = hi_add_sat (c->whole[0], mag (x->d_live_bytes));
      c->whole[1] = hi_add_sat (c->whole[1], mag (x->d_live_blocks));
      c->whole[2] = hi_add_sat (c->whole[2], mag (x->d_bytes));
      c->whole[3] = hi_add_sat (c->whole[3], mag (x->d_allocs));
      c->v[c->n++] = *x;
    }
  qsort_r (c->v, c->n, sizeof *c->v, by_change, &rows->keys);
  return HI_OK;
}

/* Table NAME of R from the changes C: as far as --threshold and --limit
   let.  CHAINS: rows are chains (a path), else functions (a name).
   FILTERED: the changed chains the filters left out. */
static hi_status
diff_table (struct side *sides, const struct changes *c, int chains,
            const char *name, const char *title, uint64_t filtered,
            struct hi_rmodel *r)
{
  const struct hi_options *o = &sides[1].a.opt;
  struct hi_table *t = hi_rmodel_table (r, name, title,
                                        chains ? chain_columns
                                               : function_columns,
                                        chains ? C_N : C_N_FUNCTIONS);
  if (!t)
    return HI_E_NOMEM;
  t->threshold = hi_threshold (o);
  t->filtered = filtered;
  t->legend = !c->n ? "nothing changed"
              : chains ? "NEW minus OLD: live bytes, live blocks, "
                         "allocations, bytes allocated; new: no live block "
                         "in OLD, gone: none left in NEW"
                       : "NEW minus OLD, per function that called the "
                         "allocator: live bytes, live blocks, allocations, "
                         "bytes allocated; new, gone: as chains";
  uint64_t shown = 0;
  for (size_t i = 0; i < c->n && !r->nomem; i++)
    {
      const struct drow *x = &c->v[i];
      /* Weighed by the live bytes' change; else by the next figure that
         changed. */
      int above = x->d_live_bytes
                    ? hi_shown (o, mag (x->d_live_bytes), c->whole[0])
                  : x->d_live_blocks
                    ? hi_shown (o, mag (x->d_live_blocks), c->whole[1])
                  : x->d_bytes ? hi_shown (o, mag (x->d_bytes), c->whole[2])
                               : hi_shown (o, mag (x->d_allocs), c->whole[3]);
      if (!hi_keep_row (o, t, &shown, above))
        continue;
      struct hi_cell *cell = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!cell)
        break;
      cell[C_LIVE] = hi_cell_delta_bytes (x->d_live_bytes);
      cell[C_BLOCKS] = hi_cell_delta (x->d_live_blocks);
      cell[C_ALLOCS] = hi_cell_delta (x->d_allocs);
      cell[C_BYTES] = hi_cell_delta_bytes (x->d_bytes);
      cell[C_OLD_LIVE] = hi_cell_bytes (x->f[0].live_bytes);
      cell[C_NEW_LIVE] = hi_cell_bytes (x->f[1].live_bytes);
      const char *st = status_text (x);
      if (st)
        cell[C_STATUS] = hi_cell_text (st);
      cell[C_STATUS_JSON] = hi_cell_text (st ? st : "changed");
      cell[C_OLD_BLOCKS] = hi_cell_count (x->f[0].live_blocks);
      cell[C_NEW_BLOCKS] = hi_cell_count (x->f[1].live_blocks);
      cell[C_OLD_ALLOCS] = hi_cell_count (x->f[0].allocs);
      cell[C_NEW_ALLOCS] = hi_cell_count (x->f[1].allocs);
      cell[C_OLD_BYTES] = hi_cell_bytes (x->f[0].bytes);
      cell[C_NEW_BYTES] = hi_cell_bytes (x->f[1].bytes);
      /* Shown as the newer side shows it, if it has the row. */
      int i_side = x->site[1] != NO_SITE ? 1 : 0;
      struct hi_analysis *a = &sides[i_side].a;
      uint64_t s = x->site[i_side];
      if (chains)
        {
          cell[C_WHAT] = hi_path_cell (a, s, r);
          continue;
        }
      uint32_t from = a->chain_start[s], to = a->chain_start[s + 1];
      if (from == to)
        {
          cell[C_WHAT] = hi_cell_text ("<no call chain recorded>");
          cell[C_NAME] = cell[C_WHAT];
          continue;
        }
      const struct hi_frame *f = hi_chain_frame (a, to - 1);
      cell[C_WHAT] = hi_cell_text (a->funcs.strs[f->func]);
      cell[C_NAME] = hi_cell_text (frame_name (a, f));
      if (f->module != HI_NONE)
        cell[C_MODULE] = hi_cell_text (a->strs.strs[f->module]);
    }
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

static const struct hi_column total_columns[] = {
  { .key = "key", .head = "key", .type = HI_CELL_TEXT },
  { .key = "value", .head = "value", .type = HI_CELL_DELTA_BYTES },
};

/* The totals of the two moments: whole-process figures (every chain,
   filtered or not) and the counts of changed rows. */
static hi_status
totals_table (struct side *sides, const struct changes *chains,
              struct hi_rmodel *r)
{
  struct hi_stat s[2];
  hi_stat_compute (sides[0].m, &s[0]);
  hi_stat_compute (sides[1].m, &s[1]);
  struct hi_table *t = hi_rmodel_table (r, "diff_totals", "Heap Diff Totals",
                                        total_columns, 2);
  if (!t)
    return HI_E_NOMEM;
  t->keyvalue = 1;
  t->threshold = -1;
  t->legend = "NEW minus OLD, of the whole process";
  const struct
  {
    const char *key;
    struct hi_cell v;
  } keys[] = {
    { "old", hi_cell_text (sides[0].name) },
    { "new", hi_cell_text (sides[1].name) },
    { "live_bytes", hi_cell_delta_bytes (delta (s[0].live_bytes,
                                                s[1].live_bytes)) },
    { "live_blocks", hi_cell_delta (delta (s[0].live_blocks,
                                           s[1].live_blocks)) },
    { "allocations", hi_cell_delta (delta (s[0].allocations,
                                           s[1].allocations)) },
    { "bytes_allocated", hi_cell_delta_bytes (delta (s[0].bytes_allocated,
                                                     s[1].bytes_allocated)) },
    { "frees", hi_cell_delta (delta (s[0].frees, s[1].frees)) },
    { "bytes_freed", hi_cell_delta_bytes (delta (s[0].bytes_freed,
                                                 s[1].bytes_freed)) },
    { "old_live_bytes", hi_cell_bytes (s[0].live_bytes) },
    { "new_live_bytes", hi_cell_bytes (s[1].live_bytes) },
    { "old_live_blocks", hi_cell_count (s[0].live_blocks) },
    { "new_live_blocks", hi_cell_count (s[1].live_blocks) },
    { "chains_changed", hi_cell_count (chains->n) },
    { "chains_new", hi_cell_count (chains->new_rows) },
    { "chains_gone", hi_cell_count (chains->gone) },
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return HI_E_NOMEM;
      c[0] = hi_cell_text (keys[i].key);
      c[1] = keys[i].v;
    }
  return HI_OK;
}

static hi_status
side_init (struct side *sd, const struct hi_model *m, const char *exe,
           const char *name, const struct hi_options *opt)
{
  memset (sd, 0, sizeof *sd);
  sd->m = m;
  sd->name = name ? name : "?";
  sd->sym = hi_symbolizer_new (m, exe);
  if (!sd->sym)
    return HI_E_NOMEM;
  hi_status s = hi_analysis_init (&sd->a, m, sd->sym, opt);
  sd->ready = s == HI_OK;
  return s;
}

static void
side_free (struct side *sd)
{
  if (sd->ready)
    hi_analysis_free (&sd->a);
  hi_symbolizer_free (sd->sym);
}

hi_status
hi_diff_report (const struct hi_model *old, const char *old_exe,
                const char *old_name, const struct hi_model *new_m,
                const char *new_exe, const char *new_name,
                const struct hi_options *opt, FILE *out)
{
  if (opt->format != HI_TEXT && opt->format != HI_JSON)
    return HI_E_USAGE;
  /* Offsets differ between builds: rows are matched, and shown, by
     names. */
  struct hi_options o = *opt;
  o.offsets = 0;
  struct side sides[2];
  hi_status s = side_init (&sides[0], old, old_exe, old_name, &o);
  if (s == HI_OK)
    s = side_init (&sides[1], new_m, new_exe, new_name, &o);
  else
    memset (&sides[1], 0, sizeof sides[1]);
  struct rows chains, funcs;
  rows_init (&chains);
  rows_init (&funcs);
  for (int i = 0; i < 2 && s == HI_OK; i++)
    s = add_side (&sides[i], i, &chains, &funcs);
  struct changes cc = { 0 }, fc = { 0 };
  if (s == HI_OK)
    s = changes (&chains, &cc);
  if (s == HI_OK)
    s = changes (&funcs, &fc);
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  char source[1024];
  snprintf (source, sizeof source, "%s -> %s", sides[0].name, sides[1].name);
  r.source = source;
  r.incomplete = old->damaged || new_m->damaged;
  if (s == HI_OK)
    s = totals_table (sides, &cc, &r);
  if (s == HI_OK)
    s = diff_table (sides, &cc, 1, "diff_chains", "Heap Diff by Chain",
                    cc.filtered, &r);
  /* Functions count the chains the filters left out, as chains. */
  if (s == HI_OK)
    s = diff_table (sides, &fc, 0, "diff_functions", "Heap Diff by Function",
                    cc.filtered, &r);
  if (s == HI_OK)
    hi_emit_text_or_json (&r, &o, out);
  hi_rmodel_free (&r);
  free (cc.v);
  free (fc.v);
  rows_free (&chains);
  rows_free (&funcs);
  side_free (&sides[1]);
  side_free (&sides[0]);
  return s;
}
