/* time-tables-unit.c - unit tests of the time tables (peak, temporary,
   lifetimes) on hand-built models that skip the model's validation:
   lifetime quantiles against a sorted list of the lifetimes, bucket
   bounds and texts, durations, inputs without time data or without
   lifetimes, and each table's rows, order, merging, thresholds, limits
   and JSON figures.  Prints "PASS: name" or "FAIL: name: why" per check
   (time-tables-unit.exp turns them into DejaGnu results); exit status 1
   if any failed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"
#include "report/rmodel.h"
#include "report/timetab.h"
#include "unit-check.h"
#include "unit-rows.h"
#include "util/text.h"

/* A model built by hand: nodes 0 and 1 are the root and the cut node;
   version 4 with time data, every chain's time figures 0. */
struct model
{
  struct hi_model m;
  struct hi_node nodes[32];
  struct hi_site sites[8];
  struct hi_chain_time ct[8];
  struct hi_thread *thread;
};

static void
model_init (struct model *x)
{
  memset (x, 0, sizeof *x);
  x->m.root.version = 4;
  x->m.nodes = x->nodes;
  x->m.n_nodes = 2;
  x->m.sites = x->sites;
  x->m.n_sites = 1;
  x->thread = calloc (1, sizeof *x->thread);
  x->m.threads = x->thread;
  x->m.n_threads = 1;
  x->m.bins = x->thread->bins;
  x->m.has_time = 1;
  x->m.chain_time = x->ct;
}

/* A node for return address RET under PARENT. */
static uint32_t
node (struct model *x, uint32_t parent, uint64_t ret)
{
  uint32_t i = (uint32_t) x->m.n_nodes++;
  x->nodes[i] = (struct hi_node) { ret, parent, 0 };
  return i;
}

/* A site at LEAF (DEPTH frames) of ALLOCS blocks of SIZE bytes, FREES of
   them freed; its time figures are x->ct[returned index]. */
static uint32_t
site (struct model *x, uint32_t leaf, uint32_t depth, uint64_t allocs,
      uint64_t size, uint64_t frees)
{
  uint32_t s = (uint32_t) x->m.n_sites++;
  struct hi_site *st = &x->sites[s];
  unsigned c = hi_size_class (size);
  st->node = leaf;
  st->depth = depth;
  st->allocs[c] = allocs;
  st->bytes[c] = allocs * size;
  st->frees[c] = frees;
  st->bytes_freed[c] = frees * size;
  x->nodes[leaf].site = s;
  return s;
}

static struct hi_options
options (enum hi_verbosity verbosity, int depth, uint32_t limit, int exact)
{
  return (struct hi_options) { .depth = depth, .verbosity = verbosity,
                               .format = HI_TEXT, .threshold = -1,
                               .limit = limit, .exact_bytes = exact,
                               .lines = 1, .default_suppressions = 1 };
}

/* Report LIST of X with OPT in FORMAT into a new string. */
static char *
report (struct model *x, const char *list, struct hi_options opt,
        enum hi_format format)
{
  opt.format = format;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);
  if (!f)
    return NULL;
  hi_status s = hi_report (&x->m, NULL, "unit", list, &opt, f, NULL);
  fclose (f);
  if (s != HI_OK)
    {
      free (text);
      return NULL;
    }
  return text;
}

static int
has (const char *text, const char *what)
{
  return text && strstr (text, what) != NULL;
}


/* One table of X built alone into a report model. */
struct built
{
  struct hi_symbolizer *sym;
  struct hi_analysis a;
  struct hi_rmodel r;
  struct hi_table *t;
  hi_status s;
};

static void
build (struct built *b, struct model *x,
       hi_status (*table) (struct hi_analysis *, struct hi_rmodel *),
       struct hi_options opt)
{
  memset (b, 0, sizeof *b);
  hi_rmodel_init (&b->r);
  b->sym = hi_symbolizer_new (&x->m, NULL);
  b->s = b->sym ? hi_analysis_init (&b->a, &x->m, b->sym, &opt) : HI_E_NOMEM;
  if (b->s == HI_OK)
    b->s = table (&b->a, &b->r);
  b->t = b->s == HI_OK && b->r.n_tables == 1 ? &b->r.tables[0] : NULL;
}

static void
built_free (struct built *b)
{
  hi_rmodel_free (&b->r);
  if (b->sym)
    hi_analysis_free (&b->a);
  hi_symbolizer_free (b->sym);
}

/* The column of T with JSON key KEY, or with text heading HEAD if KEY is
   NULL; -1 if none. */
static int
col (const struct hi_table *t, const char *key, const char *head2)
{
  for (size_t c = 0; t && c < t->n_columns; c++)
    {
      const struct hi_column *k = &t->columns[c];
      if (key ? k->key && strcmp (k->key, key) == 0
              : (k->head2 && strcmp (k->head2, head2) == 0))
        return (int) c;
    }
  return -1;
}

/* Cell KEY of row I of T: its number (UINT64_MAX if none or EMPTY). */
static uint64_t
val (const struct hi_table *t, size_t i, const char *key)
{
  int c = col (t, key, NULL);
  if (c < 0 || !t || i >= t->n_rows || t->rows[i].cells[c].type == HI_CELL_EMPTY)
    return UINT64_MAX;
  return t->rows[i].cells[c].v;
}

/* The text of the TEXT cell under heading HEAD2 of row I ("" if none). */
static const char *
text (const struct hi_table *t, size_t i, const char *head2)
{
  int c = col (t, NULL, head2);
  if (c < 0 || !t || i >= t->n_rows || t->rows[i].cells[c].type != HI_CELL_TEXT
      || !t->rows[i].cells[c].text)
    return "";
  return t->rows[i].cells[c].text;
}

/* The path of row I of T as "a > b", "..." for a cut. */
static void
path (const struct built *b, size_t i, char *out, size_t size)
{
  int c = col (b->t, "path", NULL);
  out[0] = '\0';
  if (c < 0 || i >= b->t->n_rows)
    return;
  const struct hi_cell *cell = &b->t->rows[i].cells[c];
  size_t at = 0;
  for (uint64_t k = cell->v; cell->type == HI_CELL_PATH
       && k < cell->v + cell->whole && at < size; k++)
    at += (size_t) snprintf (out + at, size - at, "%s%s",
                             k > cell->v ? " > " : "",
                             b->r.frames[k].cut ? "..."
                             : b->r.frames[k].label);
}

/* The fact KEY of T: its value, UINT64_MAX if absent. */
static uint64_t
fact (const struct hi_table *t, const char *key)
{
  for (size_t i = 0; t && i < t->n_facts; i++)
    if (strcmp (t->facts[i].key, key) == 0)
      return t->facts[i].cell.type == HI_CELL_EMPTY ? UINT64_MAX
             : t->facts[i].cell.v;
  return UINT64_MAX;
}

/* --- pure parts ---------------------------------------------------- */

static int
cmp_u64 (const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;
  return a < b ? -1 : a > b;
}

/* The quantiles of histograms made of known lifetimes, against the
   sorted lifetimes themselves: the bucket of the element of rank
   ceil(n * q). */
static void
test_quantiles (void)
{
  static const unsigned sizes[] = { 1, 2, 3, 9, 10, 11, 100, 999, 1000 };
  static const unsigned qs[] = { 0, 1, 100, 500, 900, 999, 1000 };
  uint64_t seed = 12345;
  int ok = 1;
  char why[256] = "";
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    {
      unsigned n = sizes[si];
      uint64_t *v = calloc (n, sizeof *v), hist[HI_LIFE_BUCKETS] = { 0 };
      for (unsigned i = 0; i < n; i++)
        {
          seed = seed * UINT64_C (6364136223846793005)
                 + UINT64_C (1442695040888963407);
          /* Lifetimes of every bit length, 0 and the last bucket's too. */
          unsigned bits = (unsigned) (seed >> 58) + (seed >> 57 & 1);
          seed = seed * UINT64_C (6364136223846793005)
                 + UINT64_C (1442695040888963407);
          v[i] = bits ? (seed >> (64 - bits)) | (UINT64_C (1) << (bits - 1))
                      : 0;
          hist[hi_life_bucket (v[i])]++;
        }
      qsort (v, n, sizeof *v, cmp_u64);
      for (size_t qi = 0; qi < sizeof qs / sizeof qs[0]; qi++)
        {
          uint64_t rank = ((uint64_t) n * qs[qi] + 999) / 1000;
          if (rank == 0)
            rank = 1;
          unsigned want = hi_life_bucket (v[rank - 1]);
          unsigned got = hi_life_quantile (hist, qs[qi]);
          if (got != want && ok)
            {
              ok = 0;
              snprintf (why, sizeof why, "n %u q %u: bucket %u, expected %u",
                        n, qs[qi], got, want);
            }
        }
      free (v);
    }
  check (ok, "quantiles: the bucket of the sorted lifetimes' element of "
         "rank ceil(n q)", "%s", why);

  uint64_t none[HI_LIFE_BUCKETS] = { 0 };
  check (hi_life_quantile (none, 500) == HI_LIFE_BUCKETS,
         "quantiles: an empty histogram has none", "got %u",
         hi_life_quantile (none, 500));
  uint64_t huge[HI_LIFE_BUCKETS] = { 0 };
  huge[3] = UINT64_MAX;
  huge[9] = UINT64_MAX;
  unsigned q = hi_life_quantile (huge, 900);
  check (q == 3 || q == 9, "quantiles: counts past 2^64 saturate, no wrap",
         "got %u", q);
}

/* Every bucket's bounds hold exactly the lifetimes hi_life_bucket puts
   in it. */
static void
test_bounds (void)
{
  int ok = 1;
  unsigned bad = 0;
  for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
    {
      uint64_t lo, hi;
      hi_life_bounds (k, &lo, &hi);
      int last = k == HI_LIFE_BUCKETS - 1;
      if (hi_life_bucket (lo) != k || (lo > 0 && hi_life_bucket (lo - 1) == k)
          || (last ? hi != 0 || hi_life_bucket (UINT64_MAX) != k
                   : hi_life_bucket (hi - 1) != k || hi_life_bucket (hi) == k))
        ok = 0, bad = k;
    }
  check (ok, "bucket bounds: [lo, hi) is the bucket's lifetimes, the last "
         "unbounded", "bucket %u", bad);
}

static void
test_texts (void)
{
  char b[64], want[64], lo[32], hi[32];
  hi_life_bucket_text (0, 0, b, sizeof b);
  check (strcmp (b, "0") == 0, "bucket text: bucket 0 is 0", "'%s'", b);
  hi_life_bucket_text (1, 0, b, sizeof b);
  check (strcmp (b, "1B") == 0, "bucket text: bucket 1 is one byte", "'%s'",
         b);
  hi_life_bucket_text (10, 0, b, sizeof b);
  hi_human_bytes (512, lo, sizeof lo);
  hi_human_bytes (1024, hi, sizeof hi);
  snprintf (want, sizeof want, "%s-%s", lo, hi);
  check (strcmp (b, want) == 0, "bucket text: lo-hi in human units", "'%s'",
         b);
  hi_life_bucket_text (10, 1, b, sizeof b);
  check (strcmp (b, "512-1024") == 0, "bucket text: lo-hi exact with --bytes",
         "'%s'", b);
  hi_life_bucket_text (HI_LIFE_BUCKETS - 1, 0, b, sizeof b);
  hi_human_bytes (UINT64_C (1) << (HI_LIFE_BUCKETS - 2), lo, sizeof lo);
  snprintf (want, sizeof want, ">=%s", lo);
  check (strcmp (b, want) == 0, "bucket text: the last bucket is >=lo",
         "'%s'", b);
  hi_life_bucket_text (HI_LIFE_BUCKETS, 0, b, sizeof b);
  check (strcmp (b, "-") == 0, "bucket text: no bucket is -", "'%s'", b);

  static const struct
  {
    uint64_t ns;
    const char *text;
  } d[] = {
    { 0, "0" }, { 999, "999ns" }, { 1000, "1.00us" }, { 1999, "1.99us" },
    { 12345678, "12.3ms" }, { 999999999, "999ms" }, { 1500000000, "1.50s" },
    { UINT64_C (59999999999), "59.9s" }, { UINT64_C (61000000000), "1m01s" },
    { UINT64_C (3661000000000), "1h01m" },
  };
  int ok = 1;
  char bad[128] = "";
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    {
      hi_duration_text (d[i].ns, b, sizeof b);
      if (strcmp (b, d[i].text) != 0 && ok)
        {
          ok = 0;
          snprintf (bad, sizeof bad, "%" PRIu64 ": '%.32s'", d[i].ns, b);
        }
    }
  check (ok, "durations: three figures cut, then minutes and hours", "%s",
         bad);
  hi_duration_text (UINT64_MAX, b, sizeof b);
  check (b[0] != '\0', "durations: 2^64 - 1 ns prints", "'%s'", b);
}

/* --- inputs without time data -------------------------------------- */

/* The lines of table TITLE of TEXT after its title line, up to the next
   table, without the newlines at their end: into OUT. */
static void
table_lines (const char *text, const char *title, char *out, size_t size)
{
  char head[128];
  snprintf (head, sizeof head, "--------- %s ---------\n", title);
  out[0] = '\0';
  const char *p = text ? strstr (text, head) : NULL;
  if (!p)
    return;
  p += strlen (head);
  const char *end = strstr (p, "\n--------- ");
  size_t len = end ? (size_t) (end - p) + 1 : strlen (p);
  while (len > 0 && p[len - 1] == '\n')
    len--;
  snprintf (out, size, "%.*s", (int) len, p);
}

static void
test_no_time (void)
{
  static const struct
  {
    int version, damaged;
    const char *line, *what;
  } cases[] = {
    { 3, 0, "no time data: this input was written before format 4",
      "a format-3 input" },
    { 4, 0, "no time data: the monitor recorded none in this input",
      "format 4 without time arenas" },
    { 4, 1, "no time data: this input's time data is damaged beyond use",
      "damaged time arenas" },
  };
  static const char *const titles[] = { "Peak Table",
    "Temporary Allocation Table", "Lifetime Table" };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct model x;
      model_init (&x);
      x.m.root.version = (uint32_t) cases[i].version;
      x.m.has_time = 0;
      x.m.chain_time = NULL;
      x.m.damage.time = (uint64_t) cases[i].damaged;
      uint32_t a = node (&x, 0, 0xa000);
      site (&x, a, 1, 4, 100, 1);
      x.m.root.totals.peak_bytes = 400;
      char *t = report (&x, "peak,temporary,lifetimes",
                        options (HI_VERBOSE, 5, 0, 0), HI_TEXT);
      char want[256], got[1024], name[160];
      snprintf (want, sizeof want, "%s", cases[i].line);
      int ok = t != NULL;
      for (int k = 0; k < 3; k++)
        {
          table_lines (t, titles[k], got, sizeof got);
          ok &= strcmp (got, want) == 0;
        }
      snprintf (name, sizeof name, "no time data, %s: each table is one line "
                "saying so", cases[i].what);
      check (ok, name, "%s", t ? t : "(no report)");
      free (t);
      char *j = report (&x, "peak,temporary,lifetimes",
                        options (HI_VERBOSE, 5, 0, 0), HI_JSON);
      int n = 0;
      for (const char *p = j; p && (p = strstr (p, "\"rows\": [\n ], ")); p++)
        n++;
      snprintf (want, sizeof want, "\"time_data\": false, \"note\": \"%s\"}",
                cases[i].line);
      int notes = 0;
      for (const char *p = j; p && (p = strstr (p, want)); p++)
        notes++;
      snprintf (name, sizeof name, "no time data, %s: JSON tables without "
                "rows, time_data false and the note", cases[i].what);
      check (n == 3 && notes == 3, name, "%s", j ? j : "(no report)");
      free (j);
      free (x.thread);
    }
}

/* --- the peak table ------------------------------------------------ */

static void
test_peak (void)
{
  struct model x;
  model_init (&x);
  uint32_t m_ = node (&x, 0, 0x1000);
  uint32_t a = node (&x, m_, 0xa000), b = node (&x, m_, 0xb000);
  uint32_t c = node (&x, m_, 0xc000), d = node (&x, m_, 0xd000);
  uint32_t z = node (&x, 0, 0x9000), a2 = node (&x, z, 0xa000);
  uint32_t sa = site (&x, a, 2, 10, 100, 5);   /* main > a */
  uint32_t sb = site (&x, b, 2, 100, 10, 0);   /* main > b: under 0.5% */
  uint32_t sc = site (&x, c, 2, 3, 0, 0);      /* 0-byte blocks */
  uint32_t sd = site (&x, d, 2, 7, 64, 7);     /* all freed before the peak */
  uint32_t sa2 = site (&x, a2, 2, 2, 100, 0);  /* 0x9000 > a */
  x.ct[sa] = (struct hi_chain_time) { .peak_bytes = 1000, .peak_blocks = 10 };
  x.ct[sb] = (struct hi_chain_time) { .peak_bytes = 4, .peak_blocks = 1 };
  x.ct[sc] = (struct hi_chain_time) { .peak_bytes = 0, .peak_blocks = 3 };
  x.ct[sd] = (struct hi_chain_time) { 0 };
  x.ct[sa2] = (struct hi_chain_time) { .peak_bytes = 200, .peak_blocks = 2 };
  uint64_t peak = 0, blocks = 0;
  for (uint32_t s = 0; s < x.m.n_sites; s++)
    peak += x.ct[s].peak_bytes, blocks += x.ct[s].peak_blocks;
  x.m.root.totals.peak_bytes = peak;
  x.m.root.totals.peak_blocks = blocks + 100;   /* most blocks: another moment */
  x.m.root.peak_clock = 123456;
  x.m.peak_time_ns = 1500000000;

  struct built g;
  build (&g, &x, hi_table_peak, options (HI_VERBOSE, 5, 0, 0));
  char p0[256], p1[256], p2[256], p3[256];
  path (&g, 0, p0, sizeof p0);
  path (&g, 1, p1, sizeof p1);
  path (&g, 2, p2, sizeof p2);
  path (&g, 3, p3, sizeof p3);
  check (g.t && g.t->n_rows == 4
         && val (g.t, 0, "bytes") == x.ct[sa].peak_bytes
         && val (g.t, 0, "blocks") == x.ct[sa].peak_blocks
         && strcmp (p0, "0x1000 > 0xa000") == 0
         && val (g.t, 1, "bytes") == x.ct[sa2].peak_bytes
         && strcmp (p1, "0x9000 > 0xa000") == 0
         && val (g.t, 2, "bytes") == x.ct[sb].peak_bytes
         && val (g.t, 3, "bytes") == 0 && val (g.t, 3, "blocks") == 3
         && strcmp (p3, "0x1000 > 0xc000") == 0,
         "peak: a row per chain live at the peak, most bytes first, 0-byte "
         "blocks too, none for chains freed before it",
         "%zu rows: %s / %s / %s / %s", g.t ? g.t->n_rows : 0, p0, p1, p2,
         p3);
  check (g.t && g.t->rows[0].cells[1].type == HI_CELL_PCT2
         && g.t->rows[0].cells[1].v == x.ct[sa].peak_bytes
         && g.t->rows[0].cells[1].whole == peak,
         "peak: (%) is of the process's peak", "wrong");
  check (fact (g.t, "peak_bytes") == peak
         && fact (g.t, "peak_blocks") == blocks
         && fact (g.t, "peak_clock") == x.m.root.peak_clock
         && fact (g.t, "peak_time_ns") == x.m.peak_time_ns
         && fact (g.t, "time_data") == 1 && fact (g.t, "peak_is_live") == 0,
         "peak: the peak's figures are the table's facts", "wrong");
  char h1[32], h2[32], want[256];
  hi_human_bytes (peak, h1, sizeof h1);
  hi_human_bytes (x.m.root.peak_clock, h2, sizeof h2);
  hi_duration_text (x.m.peak_time_ns, want, sizeof want);
  char expect[512];
  snprintf (expect, sizeof expect, "the peak: %s in %" PRIu64 " blocks, reached by %s "
            "into the run, after %s allocated;", h1, blocks, want, h2);
  check (g.t && has (g.t->legend, expect),
         "peak: the legend says the peak's bytes, blocks and when", "'%s'",
         g.t ? g.t->legend : "");
  built_free (&g);

  build (&g, &x, hi_table_peak, options (HI_VERBOSE, 5, 0, 1));
  snprintf (expect, sizeof expect, "the peak: %" PRIu64 " in %" PRIu64
            " blocks, reached by %s into the run, after %" PRIu64 " allocated;", peak,
            blocks, want, x.m.root.peak_clock);
  check (g.t && has (g.t->legend, expect),
         "peak: the legend in exact bytes with --bytes", "'%s'",
         g.t ? g.t->legend : "");
  built_free (&g);

  /* --depth 1: main > a and 0x9000 > a both show "... > 0xa000". */
  build (&g, &x, hi_table_peak, options (HI_VERBOSE, 1, 0, 0));
  path (&g, 0, p0, sizeof p0);
  check (g.t && g.t->n_rows == 3
         && val (g.t, 0, "bytes") == x.ct[sa].peak_bytes + x.ct[sa2].peak_bytes
         && val (g.t, 0, "blocks")
            == x.ct[sa].peak_blocks + x.ct[sa2].peak_blocks
         && strcmp (p0, "... > 0xa000") == 0,
         "peak: chains that show one path are one row, their figures summed",
         "%zu rows, first %s", g.t ? g.t->n_rows : 0, p0);
  built_free (&g);

  /* Normal verbosity: 4 of 1204 bytes is under 0.5%. */
  build (&g, &x, hi_table_peak, options (HI_NORMAL, 5, 0, 0));
  int b_shown = 0;
  for (size_t i = 0; g.t && i < g.t->n_rows; i++)
    b_shown |= val (g.t, i, "bytes") == x.ct[sb].peak_bytes;
  check (g.t && !b_shown && g.t->below_threshold == 1
         && hi_shown (&g.a.opt, x.ct[sb].peak_bytes, peak) == 0,
         "peak: rows under the threshold are counted, not shown", "wrong");
  built_free (&g);
  build (&g, &x, hi_table_peak, options (HI_VERBOSE, 5, 1, 0));
  check (g.t && g.t->n_rows == 1 && g.t->over_limit == 3,
         "peak: --limit keeps the largest rows and counts the rest", "wrong");
  built_free (&g);

  /* Text and JSON of one report. */
  char *t = report (&x, "peak", options (HI_VERBOSE, 5, 0, 1), HI_TEXT);
  char *j = report (&x, "peak", options (HI_VERBOSE, 5, 0, 1), HI_JSON);
  char pct[3];
  hi_pct2 (pct, x.ct[sa].peak_bytes, peak);
  char bytes[32], nblocks[32], pcts[8];
  snprintf (bytes, sizeof bytes, "%" PRIu64, x.ct[sa].peak_bytes);
  snprintf (nblocks, sizeof nblocks, "%" PRIu64, x.ct[sa].peak_blocks);
  snprintf (pcts, sizeof pcts, "(%s)", pct);
  char jrow[256];
  snprintf (jrow, sizeof jrow, "{\"bytes\": %" PRIu64 ", \"blocks\": %"
            PRIu64 ", \"path\": [{\"function\": \"0x1000\"",
            x.ct[sa].peak_bytes, x.ct[sa].peak_blocks);
  snprintf (want, sizeof want, "\"time_data\": true, \"peak_bytes\": %"
            PRIu64 ", \"peak_blocks\": %" PRIu64 ", \"peak_time_ns\": %"
            PRIu64 ", \"peak_clock\": %" PRIu64 ", \"peak_is_live\": false}",
            peak, blocks, x.m.peak_time_ns, x.m.root.peak_clock);
  check (HAS_ROW (t, "bytes", "(%)", "blocks", "path")
         && HAS_ROW (t, bytes, pcts, nblocks, "0x1000 > 0xa000"),
         "peak: the text row of the largest chain", "%s", t ? t : "");
  check (has (j, jrow) && has (j, want),
         "peak: the JSON row and the peak's figures", "%s", j ? j : "");
  free (t);
  free (j);

  /* The peak read lagging the live figures is said. */
  x.m.peak_is_live = 1;
  build (&g, &x, hi_table_peak, options (HI_VERBOSE, 5, 0, 0));
  check (g.t && has (g.t->legend, "the peak read lagged the live figures")
         && fact (g.t, "peak_is_live") == 1,
         "peak: a peak standing for the live figures is said", "'%s'",
         g.t ? g.t->legend : "");
  built_free (&g);
  free (x.thread);
}

/* --- the temporary table ------------------------------------------- */

static void
test_temporary (void)
{
  struct model x;
  model_init (&x);
  uint32_t m_ = node (&x, 0, 0x1000);
  uint32_t a = node (&x, m_, 0xa000), b = node (&x, m_, 0xb000);
  uint32_t c = node (&x, m_, 0xc000);
  uint32_t sa = site (&x, a, 2, 10, 100, 10);
  uint32_t sb = site (&x, b, 2, 100, 8, 50);
  uint32_t sc = site (&x, c, 2, 3, 40, 3);
  x.ct[sa].temporaries = 4;
  x.ct[sb].temporaries = 0;
  x.ct[sc].temporaries = 3;
  uint64_t allocs = 10 + 100 + 3, temps = 0;
  for (uint32_t s = 0; s < x.m.n_sites; s++)
    temps += x.ct[s].temporaries;

  struct built g;
  build (&g, &x, hi_table_temporary, options (HI_NORMAL, 5, 0, 0));
  char p1[128], p2[128], p3[128];
  path (&g, 1, p1, sizeof p1);
  path (&g, 2, p2, sizeof p2);
  path (&g, 3, p3, sizeof p3);
  check (g.t && g.t->n_rows == 4 && g.t->rows[0].role == HI_ROW_TOTAL
         && g.t->rows[0].text_only
         && val (g.t, 0, "allocs") == allocs
         && val (g.t, 0, "temporaries") == temps,
         "temporary: the totals row first, text only", "wrong");
  check (g.t && g.t->n_rows == 4
         && val (g.t, 1, "temporaries") == x.ct[sa].temporaries
         && val (g.t, 1, "allocs") == 10 && strcmp (p1, "0x1000 > 0xa000") == 0
         && val (g.t, 2, "temporaries") == x.ct[sc].temporaries
         && strcmp (p2, "0x1000 > 0xc000") == 0
         && val (g.t, 3, "temporaries") == 0 && val (g.t, 3, "allocs") == 100
         && strcmp (p3, "0x1000 > 0xb000") == 0,
         "temporary: most temporaries first, chains without any listed "
         "by their allocations", "%s / %s / %s", p1, p2, p3);
  check (g.t && g.t->rows[1].cells[2].type == HI_CELL_PCT2
         && g.t->rows[1].cells[2].v == x.ct[sa].temporaries
         && g.t->rows[1].cells[2].whole == 10,
         "temporary: (%) is of the chain's allocations", "wrong");
  check (fact (g.t, "allocs") == allocs && fact (g.t, "temporaries") == temps
         && fact (g.t, "time_data") == 1,
         "temporary: the totals are the table's facts", "wrong");
  built_free (&g);
  char *t = report (&x, "temporary", options (HI_NORMAL, 5, 0, 0), HI_TEXT);
  char *j = report (&x, "temporary", options (HI_NORMAL, 5, 0, 0), HI_JSON);
  char pct[3];
  hi_pct2 (pct, temps, allocs);
  char na[32], nt[32], pcts[8];
  snprintf (na, sizeof na, "%" PRIu64, allocs);
  snprintf (nt, sizeof nt, "%" PRIu64, temps);
  snprintf (pcts, sizeof pcts, "(%s)", pct);
  check (HAS_ROW (t, "allocs", "temporary", "(%)", "path")
         && HAS_ROW (t, na, nt, pcts, "<TOTAL>"),
         "temporary: the totals row in text", "%s", t ? t : "");
  char jt[256];
  snprintf (jt, sizeof jt, "\"allocs\": %" PRIu64 ", \"temporaries\": %"
            PRIu64 "}", allocs, temps);
  check (j && !has (j, "TOTAL") && has (j, jt)
         && has (j, "{\"allocs\": 100, \"temporaries\": 0, \"path\": "),
         "temporary: JSON has the totals as facts, not as a row", "%s",
         j ? j : "");
  free (t);
  free (j);
  free (x.thread);
}

/* --- the lifetime table -------------------------------------------- */

static void
test_lifetimes (void)
{
  struct model x;
  model_init (&x);
  uint32_t m_ = node (&x, 0, 0x1000);
  uint32_t a = node (&x, m_, 0xa000), b = node (&x, m_, 0xb000);
  uint32_t c = node (&x, m_, 0xc000);
  uint32_t sa = site (&x, a, 2, 12, 100, 10);
  uint32_t sb = site (&x, b, 2, 5, 8, 0);
  uint32_t sc = site (&x, c, 2, 1, 40, 1);
  (void) sb;

  char *t = report (&x, "lifetimes", options (HI_NORMAL, 5, 0, 0), HI_TEXT);
  char lines[512];
  table_lines (t, "Lifetime Table", lines, sizeof lines);
  check (strcmp (lines, "no lifetimes: the process did not record them; "
                 "HEAPINSPECT_LIFETIMES=1 in its environment does") == 0,
         "lifetimes: without them, one line saying how to record them",
         "%s", t ? t : "");
  free (t);
  char *j = report (&x, "lifetimes", options (HI_NORMAL, 5, 0, 0), HI_JSON);
  check (has (j, "\"time_data\": true, \"lifetimes\": false, \"note\": "),
         "lifetimes: without them, JSON says lifetimes false", "%s",
         j ? j : "");
  free (j);

  /* Lifetimes of a: 5 of 64..127 bytes, 4 of 8K..16K, 1 of 512K..1M;
     c: one past 2^46. */
  x.m.lifetimes = 1;
  x.m.root.alloc_clock = 1000000;
  x.m.run_ns = 5000000000;
  uint64_t life_a[] = { 100, 70, 64, 127, 90, 9000, 10000, 16383, 8192,
                        600000 };
  for (size_t i = 0; i < sizeof life_a / sizeof life_a[0]; i++)
    x.ct[sa].life[hi_life_bucket (life_a[i])]++;
  x.ct[sa].freed = sizeof life_a / sizeof life_a[0];
  x.ct[sa].freed_ns = 15000;
  x.ct[sa].live = 2;
  x.ct[sa].live_clock_sum = 200000 + 400001;
  x.ct[sa].live_ns_sum = UINT64_C (1000000000) + UINT64_C (2000000000);
  x.ct[sc].life[HI_LIFE_BUCKETS - 1] = 1;
  x.ct[sc].freed = 1;
  x.ct[sc].freed_ns = 7;
  struct built g;
  build (&g, &x, hi_table_lifetimes, options (HI_NORMAL, 5, 0, 0));
  /* The oracle: sorted lifetimes, ranks 5 and 9 of 10. */
  uint64_t sorted[10];
  memcpy (sorted, life_a, sizeof sorted);
  qsort (sorted, 10, sizeof sorted[0], cmp_u64);
  uint64_t mlo, mhi, plo, phi;
  hi_life_bounds (hi_life_bucket (sorted[4]), &mlo, &mhi);
  hi_life_bounds (hi_life_bucket (sorted[8]), &plo, &phi);
  char mtext[64], ptext[64], mean[32], age[32];
  hi_life_bucket_text (hi_life_bucket (sorted[4]), 0, mtext, sizeof mtext);
  hi_life_bucket_text (hi_life_bucket (sorted[8]), 0, ptext, sizeof ptext);
  hi_duration_text (x.ct[sa].freed_ns / x.ct[sa].freed, mean, sizeof mean);
  uint64_t age_ns = x.m.run_ns - x.ct[sa].live_ns_sum / x.ct[sa].live;
  uint64_t age_clock = x.m.root.alloc_clock
                       - x.ct[sa].live_clock_sum / x.ct[sa].live;
  hi_duration_text (age_ns, age, sizeof age);
  char p1[128];
  path (&g, 1, p1, sizeof p1);
  check (g.t && g.t->n_rows == 3 && g.t->rows[0].role == HI_ROW_TOTAL
         && g.t->rows[0].text_only && strcmp (p1, "0x1000 > 0xa000") == 0
         && val (g.t, 1, "frees") == 10 && val (g.t, 1, "live") == 2,
         "lifetimes: a row per chain with stamped blocks, most frees first, "
         "after the totals", "%zu rows, %s", g.t ? g.t->n_rows : 0, p1);
  check (val (g.t, 1, "median_lo") == mlo && val (g.t, 1, "median_hi") == mhi
         && val (g.t, 1, "p90_lo") == plo && val (g.t, 1, "p90_hi") == phi
         && strcmp (text (g.t, 1, "median"), mtext) == 0
         && strcmp (text (g.t, 1, "90%"), ptext) == 0,
         "lifetimes: median and 90th percentile are the buckets of the "
         "sorted lifetimes' 5th and 9th of 10",
         "median %s [%" PRIu64 ", %" PRIu64 "), 90%% %s", text (g.t, 1, "median"),
         val (g.t, 1, "median_lo"), val (g.t, 1, "median_hi"),
         text (g.t, 1, "90%"));
  check (val (g.t, 1, "mean_lifetime_ns") == x.ct[sa].freed_ns / 10
         && strcmp (text (g.t, 1, "mean"), mean) == 0,
         "lifetimes: the mean lifetime in time", "'%s'",
         text (g.t, 1, "mean"));
  check (val (g.t, 1, "mean_age_bytes") == age_clock
         && val (g.t, 1, "mean_age_ns") == age_ns
         && strcmp (text (g.t, 1, "time"), age) == 0,
         "lifetimes: live blocks' mean age on the clock and in time",
         "%" PRIu64 " %" PRIu64 " '%s'", val (g.t, 1, "mean_age_bytes"),
         val (g.t, 1, "mean_age_ns"), text (g.t, 1, "time"));
  check (val (g.t, 2, "median_lo")
         == UINT64_C (1) << (HI_LIFE_BUCKETS - 2)
         && val (g.t, 2, "median_hi") == UINT64_MAX
         && val (g.t, 2, "live") == 0 && val (g.t, 2, "mean_age_bytes")
         == UINT64_MAX,
         "lifetimes: the last bucket has no upper bound; no live blocks, "
         "no age", "wrong");
  /* The totals: both histograms, ranks 6 and 10 of 11. */
  uint64_t all[11];
  memcpy (all, life_a, sizeof life_a);
  all[10] = UINT64_MAX;
  qsort (all, 11, sizeof all[0], cmp_u64);
  hi_life_bounds (hi_life_bucket (all[5]), &mlo, &mhi);
  hi_life_bounds (hi_life_bucket (all[9]), &plo, &phi);
  check (val (g.t, 0, "frees") == 11 && val (g.t, 0, "median_lo") == mlo
         && val (g.t, 0, "p90_lo") == plo && fact (g.t, "frees") == 11
         && fact (g.t, "median_lo") == mlo && fact (g.t, "p90_hi") == phi
         && fact (g.t, "live") == 2 && fact (g.t, "mean_age_bytes") == age_clock
         && fact (g.t, "lifetimes") == 1,
         "lifetimes: the totals over every chain, and as facts", "wrong");
  built_free (&g);

  t = report (&x, "lifetimes", options (HI_NORMAL, 5, 0, 0), HI_TEXT);
  j = report (&x, "lifetimes", options (HI_NORMAL, 5, 0, 0), HI_JSON);
  char jrow[512];
  snprintf (jrow, sizeof jrow, "{\"frees\": 10, \"live\": 2, "
            "\"mean_age_bytes\": %" PRIu64 ", \"path\": [", age_clock);
  char jtail[256];
  hi_life_bounds (hi_life_bucket (sorted[4]), &mlo, &mhi);
  hi_life_bounds (hi_life_bucket (sorted[8]), &plo, &phi);
  snprintf (jtail, sizeof jtail, "], \"median_lo\": %" PRIu64
            ", \"median_hi\": %" PRIu64 ", \"p90_lo\": %" PRIu64
            ", \"p90_hi\": %" PRIu64 ", \"mean_lifetime_ns\": %" PRIu64
            ", \"mean_age_ns\": %" PRIu64 ", \"histogram\": [", mlo, mhi,
            plo, phi, x.ct[sa].freed_ns / 10, age_ns);
  check (has (j, jrow) && has (j, jtail),
         "lifetimes: the JSON row has the figures of the text", "%s",
         j ? j : "");
  /* The histogram: each lifetime counted in its bucket, up to the last. */
  uint64_t h[HI_LIFE_BUCKETS] = { 0 };
  unsigned top = 0;
  for (size_t i = 0; i < 10; i++)
    {
      unsigned k = hi_life_bucket (life_a[i]);
      h[k]++;
      top = k + 1 > top ? k + 1 : top;
    }
  char hist[1024];
  size_t at = (size_t) snprintf (hist, sizeof hist, "\"histogram\": [");
  for (unsigned k = 0; k < top; k++)
    at += (size_t) snprintf (hist + at, sizeof hist - at, "%s%" PRIu64,
                             k ? ", " : "", h[k]);
  snprintf (hist + at, sizeof hist - at, "]}");
  check (has (j, hist), "lifetimes: JSON has the histogram by bucket", "%s",
         hist);
  char agebytes[32];
  hi_human_bytes (age_clock, agebytes, sizeof agebytes);
  check (HAS_ROW (t, "10", mtext, ptext, mean, "2", agebytes, age,
                  "0x1000 > 0xa000")
         && HAS_ROW (t, "frees", "lifetime", "live", "mean age", "path")
         && HAS_ROW (t, "median", "90%", "mean", "clock", "time"),
         "lifetimes: the text row", "%s", t ? t : "");
  free (t);
  free (j);

  /* No run time recorded: no age in time. */
  x.m.run_ns = 0;
  build (&g, &x, hi_table_lifetimes, options (HI_NORMAL, 5, 0, 0));
  check (val (g.t, 1, "mean_age_ns") == UINT64_MAX
         && val (g.t, 1, "mean_age_bytes") == age_clock,
         "lifetimes: without the run time, no age in time", "wrong");
  built_free (&g);
  free (x.thread);
}

/* Figures near 2^64 (a damaged input the model let through): sums
   saturate, nothing wraps, every table is still made. */
static void
test_saturation (void)
{
  struct model x;
  model_init (&x);
  uint32_t m_ = node (&x, 0, 0x1000);
  uint32_t a = node (&x, m_, 0xa000), b = node (&x, 1, 0xa000);
  uint32_t sa = site (&x, a, 2, UINT64_MAX / 2, 1, 0);
  uint32_t sb = site (&x, b, 2, UINT64_MAX / 2, 1, 0);  /* ... > 0xa000 */
  for (uint32_t s = sa; s <= sb; s++)
    {
      x.ct[s].peak_bytes = UINT64_MAX - 1;
      x.ct[s].peak_blocks = UINT64_MAX - 1;
      x.ct[s].temporaries = UINT64_MAX - 1;
      x.ct[s].life[3] = UINT64_MAX - 1;
      x.ct[s].freed = UINT64_MAX - 1;
      x.ct[s].freed_ns = UINT64_MAX;
      x.ct[s].live = 1;
      x.ct[s].live_clock_sum = UINT64_MAX;
      x.ct[s].live_ns_sum = UINT64_MAX;
    }
  x.m.lifetimes = 1;
  x.m.root.totals.peak_bytes = UINT64_MAX;
  x.m.root.alloc_clock = 10;
  x.m.run_ns = 10;
  struct built g;
  build (&g, &x, hi_table_peak, options (HI_VERBOSE, 1, 0, 0));
  check (g.t && g.t->n_rows == 1 && val (g.t, 0, "bytes") == UINT64_MAX
         && fact (g.t, "peak_blocks") == UINT64_MAX,
         "saturation: peak rows and blocks at the peak stop at 2^64 - 1",
         "wrong");
  built_free (&g);
  build (&g, &x, hi_table_temporary, options (HI_VERBOSE, 1, 0, 0));
  check (g.t && val (g.t, 0, "temporaries") == UINT64_MAX
         && fact (g.t, "allocs") == UINT64_MAX - 1,
         "saturation: temporary totals stop at 2^64 - 1", "wrong");
  built_free (&g);
  build (&g, &x, hi_table_lifetimes, options (HI_VERBOSE, 1, 0, 0));
  check (g.t && val (g.t, 0, "frees") == UINT64_MAX
         && val (g.t, 1, "median_lo") == 4 && val (g.t, 1, "p90_hi") == 8
         && val (g.t, 1, "mean_age_bytes") == 0
         && val (g.t, 1, "mean_age_ns") == 0,
         "saturation: lifetimes stop at 2^64 - 1, ages at 0", "wrong");
  built_free (&g);
  free (x.thread);
}

int
main (void)
{
  test_quantiles ();
  test_bounds ();
  test_texts ();
  test_no_time ();
  test_peak ();
  test_temporary ();
  test_lifetimes ();
  test_saturation ();
  return failed;
}
