/* tables-unit.c - unit tests of the tables' pure parts on hand-built
   models that skip the model's validation: percentages and thresholds at
   the edges of uint64_t, counters that would wrap, 0-byte rows, the SCC
   merge of the call graph, its threshold, limit, <deeper> lines and
   cycle members, one leak-path cut.  Prints "PASS: name" or
   "FAIL: name: why" per check (tables-unit.exp turns them into DejaGnu
   results); exit status 1 if any failed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"
#include "report/rmodel.h"
#include "unit-check.h"
#include "unit-rows.h"
#include "util/num.h"
#include "util/text.h"


static void
test_percentages (void)
{
  char p[3];
  hi_pct2 (p, 3, 4);
  check (strcmp (p, "75") == 0, "pct2: three quarters", "'%s'", p);
  /* (2^62 - 1) * 3 of 2^64 - 1 is 75 - 225 / (2^64 - 1) percent: 74.
     part * 100 wrapped before. */
  hi_pct2 (p, (UINT64_MAX / 4) * 3, UINT64_MAX);
  check (strcmp (p, "74") == 0, "pct2: near 2^64, no overflow", "'%s'", p);
  hi_pct2 (p, UINT64_MAX / 100 - 1, UINT64_MAX);
  check (strcmp (p, " .") == 0, "pct2: under 1% near 2^64", "'%s'", p);
  hi_pct2 (p, UINT64_MAX / 100 + 1, UINT64_MAX);
  check (strcmp (p, " 1") == 0, "pct2: 1% near 2^64", "'%s'", p);
  hi_pct2 (p, 5, 3);
  check (strcmp (p, "**") == 0, "pct2: more than the whole is all", "'%s'", p);
  hi_pct2 (p, 0, 3);
  check (strcmp (p, "  ") == 0, "pct2: none is blank", "'%s'", p);

  struct hi_options terse = { .depth = 5, .offsets = 0, .verbosity = HI_TERSE, .format = HI_TEXT, .threshold = -1, .lines = 1, .default_suppressions = 1 };
  struct hi_options normal = { .depth = 5, .offsets = 0, .verbosity = HI_NORMAL, .format = HI_TEXT, .threshold = -1, .lines = 1, .default_suppressions = 1 };
  struct hi_options verbose = { .depth = 5, .offsets = 0, .verbosity = HI_VERBOSE, .format = HI_TEXT, .threshold = -1, .lines = 1, .default_suppressions = 1 };
  check (hi_shown (&terse, 1, 100) && !hi_shown (&terse, 1, 101),
         "shown: terse is at least 1%", "wrong");
  check (hi_shown (&normal, 1, 200) && !hi_shown (&normal, 1, 201),
         "shown: normal is at least 0.5%", "wrong");
  /* 0.5% of 2^64 - 1 is 92233720368547758.075: the first part shown is
     92233720368547759 (part * 200 wrapped before). */
  check (hi_shown (&normal, UINT64_C(92233720368547759), UINT64_MAX)
         && !hi_shown (&normal, UINT64_C(92233720368547758), UINT64_MAX),
         "shown: 0.5% near 2^64, no overflow", "wrong");
  check (hi_shown (&verbose, 1, UINT64_MAX) && !hi_shown (&verbose, 0, 5),
         "shown: verbose is anything but none", "wrong");
  check (hi_add_sat (UINT64_MAX - 1, 2) == UINT64_MAX
         && hi_add_sat (2, 3) == 5 && hi_sub0 (3, 5) == 0
         && hi_sub0 (5, 3) == 2 && hi_mul_sat (UINT64_MAX / 2, 3) == UINT64_MAX
         && hi_mul_sat (4, 5) == 20, "saturating counter arithmetic", "wrong");
}

/* A model built by hand: nodes 0 and 1 are the root and the cut node. */
struct model
{
  struct hi_model m;
  struct hi_node nodes[32];
  struct hi_site sites[8];
  struct hi_thread *thread;
};

static void
model_init (struct model *x)
{
  memset (x, 0, sizeof *x);
  x->m.nodes = x->nodes;
  x->m.n_nodes = 2;
  x->m.sites = x->sites;
  x->m.n_sites = 1;
  x->thread = calloc (1, sizeof *x->thread);
  x->m.threads = x->thread;
  x->m.n_threads = 1;
  x->m.bins = x->thread->bins;
}

/* A node for return address RET under PARENT. */
static uint32_t
node (struct model *x, uint32_t parent, uint64_t ret)
{
  uint32_t i = (uint32_t) x->m.n_nodes++;
  x->nodes[i] = (struct hi_node) { ret, parent, 0 };
  return i;
}

/* A site at LEAF (DEPTH frames) of ALLOCS blocks of SIZE bytes, FREES
   of them freed; FREED bytes freed (damage when more than allocated). */
static void
site (struct model *x, uint32_t leaf, uint32_t depth, uint64_t allocs,
      uint64_t size, uint64_t frees, uint64_t freed)
{
  uint32_t s = (uint32_t) x->m.n_sites++;
  struct hi_site *st = &x->sites[s];
  unsigned c = hi_size_class (size);
  st->node = leaf;
  st->depth = depth;
  st->allocs[c] = allocs;
  st->bytes[c] = allocs * size;
  st->frees[c] = frees;
  st->bytes_freed[c] = freed;
  x->nodes[leaf].site = s;
}

/* Report LIST of X in FORMAT at VERBOSITY and DEPTH into a new string. */
static char *
report (struct model *x, const char *list, enum hi_format format,
        enum hi_verbosity verbosity, int depth)
{
  struct hi_options opt = { .depth = depth, .offsets = 0, .verbosity = verbosity, .format = format, .threshold = -1, .lines = 1, .default_suppressions = 1 };
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

/* Whether the line of TEXT holding KEY also holds WHAT (a JSON row's
   fields, whatever their order). */
static int
row_has (const char *text, const char *key, const char *what)
{
  const char *k = text ? strstr (text, key) : NULL;
  if (!k)
    return 0;
  const char *start = k;
  while (start > text && start[-1] != '\n')
    start--;
  const char *end = strchr (k, '\n');
  size_t len = end ? (size_t) (end - start) : strlen (start);
  const char *w = strstr (start, what);
  return w && w + strlen (what) <= start + len;
}

/* Occurrences of WHAT in TEXT. */
static int
count (const char *text, const char *what)
{
  int n = 0;
  for (const char *p = text; p && (p = strstr (p, what)); p += strlen (what))
    n++;
  return n;
}


/* Damaged counters reach the tables: nothing wraps around. */
static void
test_no_wrap (void)
{
  struct model x;
  model_init (&x);
  x.thread->allocations = 5;
  x.thread->frees = 7;
  x.thread->bytes_allocated = 100;
  x.thread->bytes_freed = 300;
  struct hi_stat st;
  hi_stat_compute (&x.m, &st);
  check (st.live_blocks == 0 && st.live_bytes == 0,
         "stat: more frees than allocations give 0 live, not 2^64 - 2",
         "live_blocks %" PRIu64 " live_bytes %" PRIu64, st.live_blocks,
         st.live_bytes);
  x.thread->bins[8] = (struct hi_bin) { 1, 2, 8, 40 };
  uint32_t a = node (&x, 0, 0xa000), b = node (&x, a, 0xb000);
  uint32_t c = node (&x, 0, 0xc000);
  site (&x, b, 2, 2, 64, 0, 0);          /* leaks 128 */
  site (&x, a, 1, 1, 10, 1, 500);        /* freed more than it allocated */
  site (&x, c, 1, 2, UINT64_MAX / 2, 0, 0);   /* bytes overflow a sum */
  char *json = report (&x, "leaks,bins,direct,graph", HI_JSON, HI_VERBOSE, 5);
  /* 10 bytes allocated, 500 freed: kept 0, not 10 - 500 + 2^64. */
  check (row_has (json, "\"name\": \"0xa000\"",
                  "{\"bytes\": 10, \"kept\": 0, \"calls\": 1, "),
         "direct: kept is 0 when more was freed than allocated", "%s",
         json ? json : "(no report)");
  check (has (json, "{\"size\": \"8\", \"allocs\": 1, \"bytes\": 8, "
              "\"frees\": 2, \"kept\": 0,"),
         "bins: kept is 0 when more was freed than allocated", "%s",
         json ? json : "");
  check (has (json, "\"kept\": 128, \"allocs\": 2, \"bytes\": 128"),
         "leaks: a row's kept is the sum of its chains' kept bytes", "%s",
         json ? json : "");
  /* 0xc000's 2 blocks of 2^63 - 1 bytes: 2^64 - 2, and with the others
     the total saturates instead of wrapping. */
  check (row_has (json, "\"name\": \"<TOTAL>\"",
                  "{\"bytes\": 18446744073709551615, "
                  "\"kept\": 18446744073709551615, \"calls\": 5, "),
         "direct: a total past 2^64 saturates", "%s", json ? json : "");
  free (json);
  free (x.thread);
}

/* 0-byte blocks: the bins row of size 0 and the leak row at every
   verbosity; a 1-byte leak of 10000 bytes kept is not shown at terse. */
static void
test_zero_rows (void)
{
  struct model x;
  model_init (&x);
  x.thread->bins[0] = (struct hi_bin) { 6, 2, 0, 0 };
  x.thread->bins[1] = (struct hi_bin) { 1, 0, 1, 0 };
  x.thread->bins[HI_BIN_MAX + 1] = (struct hi_bin) { 1, 0, 10000, 0 };
  uint32_t z = node (&x, 0, 0x1000), one = node (&x, 0, 0x2000);
  uint32_t big = node (&x, 0, 0x3000);
  site (&x, z, 1, 6, 0, 2, 0);
  site (&x, one, 1, 1, 1, 0, 0);
  site (&x, big, 1, 1, 10000, 0, 0);
  for (int v = HI_TERSE; v <= HI_VERBOSE; v++)
    {
      char *t = report (&x, "bins,leaks", HI_TEXT, (enum hi_verbosity) v, 5);
      char name[64];
      snprintf (name, sizeof name, "0-byte rows at verbosity %d", v);
      check (HAS_ROW (t, "0", "6", "0", "(  )", "2", "0", "(  )")
             && HAS_ROW (t, "0", "(  )", "6", "0", "(  )", "2", "0x1000"),
             name, "%s", t ? t : "");
      snprintf (name, sizeof name, "a 1-byte row at verbosity %d", v);
      int one_shown = has (t, "0x2000\n");
      check (one_shown == (v == HI_VERBOSE), name, "%s", t ? t : "");
      free (t);
    }
  free (x.thread);
}

/* F and G call each other: one <cycle 1> with both, called once per
   allocation, recursive once per extra appearance on a chain; C calls
   into the cycle. */
static void
test_scc (void)
{
  struct model x;
  model_init (&x);
  uint32_t c = node (&x, 0, 0xc000);
  uint32_t f1 = node (&x, c, 0xf000), g1 = node (&x, f1, 0x6000);
  uint32_t f2 = node (&x, g1, 0xf000), g2 = node (&x, f2, 0x6000);
  site (&x, g2, 5, 2, 16, 0, 0);    /* C F G F G: 2 allocations */
  site (&x, g1, 3, 1, 100, 0, 0);   /* C F G: 1 allocation */
  char *json = report (&x, "graph", HI_JSON, HI_NORMAL, 5);
  /* Allocations through the cycle: 2 + 1; recursive: the first chain
     has 4 members' frames, 3 more than once, times 2 allocations, the
     second 2 frames, 1 more: 6 + 1. */
  check (has (json, "\"name\": \"<cycle 1>\", \"self_desc\": 132, "
              "\"self\": 132, \"self_s\": 32, \"self_m\": 100, \"self_l\": 0, "
              "\"self_x\": 0, \"called\": 3, \"recursive\": 7, ")
         && has (json, "\"members\": [{\"name\": \"0xf000\", \"bytes\": 132, "
                 "\"calls\": 3}, {\"name\": \"0x6000\", \"bytes\": 132, "
                 "\"calls\": 3}]"),
         "graph: mutual recursion merged into one cycle", "%s",
         json ? json : "");
  check (has (json, "\"name\": \"0xc000\", \"self_desc\": 132, \"self\": 0,")
         && has (json, "\"callees\": [{\"index\": 2, \"name\": "
                 "\"<cycle 1>\", \"bytes\": 132, \"calls\": 3}]"),
         "graph: the caller of the cycle and its one edge", "%s",
         json ? json : "");
  free (json);
  free (x.thread);
}

/* A chain cut at the monitor's depth cap and one cut by --depth that
   print the same path are one leak row: one predicate for both. */
static void
test_one_cut (void)
{
  struct model x;
  model_init (&x);
  uint32_t a1 = node (&x, 1, 0xa000), b1 = node (&x, a1, 0xb000);
  uint32_t z = node (&x, 0, 0x9000), a2 = node (&x, z, 0xa000);
  uint32_t b2 = node (&x, a2, 0xb000);
  site (&x, b1, 2, 1, 8, 0, 0);     /* cut by the monitor: ... > a > b */
  site (&x, b2, 3, 1, 16, 0, 0);    /* z > a > b, cut at --depth 2 */
  char *json = report (&x, "leaks", HI_JSON, HI_VERBOSE, 2);
  check (count (json, "{\"kept\": ") == 1
         && has (json, "{\"kept\": 24, \"allocs\": 2, \"bytes\": 24, "
                 "\"frees\": 0, \"bytes_freed\": 0, \"path\": "
                 "[{\"function\": \"...\", \"cut\": true}, "
                 "{\"function\": \"0xa000\", ")
         && has (json, "{\"function\": \"0xb000\", "),
         "leaks: both cuts of one path are one row", "%s", json ? json : "");
  free (json);
  json = report (&x, "leaks", HI_JSON, HI_VERBOSE, 3);
  check (count (json, "{\"kept\": ") == 2
         && has (json, "\"path\": [{\"function\": \"...\", \"cut\": true}, "
                 "{\"function\": \"0xa000\", ")
         && has (json, "\"path\": [{\"function\": \"0x9000\", "),
         "leaks: with room for the whole chain, two rows", "%s",
         json ? json : "");
  free (json);
  free (x.thread);
}


/* The call graph of X as a report model, built by hi_table_graph alone,
   at VERBOSITY with LIMIT (HI_OPT_LIMIT_AUTO: the default). */
struct graph_report
{
  struct hi_symbolizer *sym;
  struct hi_analysis a;
  struct hi_rmodel r;
  struct hi_table *t;
  hi_status s;
};

static void
graph_build (struct graph_report *g, struct model *x,
             enum hi_verbosity verbosity, uint32_t limit)
{
  struct hi_options opt = { .depth = 5, .verbosity = verbosity,
                            .format = HI_TEXT, .threshold = -1,
                            .limit = limit, .lines = 1,
                            .default_suppressions = 1 };
  memset (g, 0, sizeof *g);
  hi_rmodel_init (&g->r);
  g->sym = hi_symbolizer_new (&x->m, NULL);
  g->s = g->sym ? hi_analysis_init (&g->a, &x->m, g->sym, &opt) : HI_E_NOMEM;
  if (g->s == HI_OK)
    g->s = hi_table_graph (&g->a, &g->r);
  g->t = g->s == HI_OK && g->r.n_tables == 1 ? &g->r.tables[0] : NULL;
}

static void
graph_free (struct graph_report *g)
{
  hi_rmodel_free (&g->r);
  if (g->sym)
    hi_analysis_free (&g->a);
  hi_symbolizer_free (g->sym);
}

/* The column of T with JSON key KEY, or -1. */
static int
gcol (const struct hi_table *t, const char *key)
{
  for (size_t c = 0; t && c < t->n_columns; c++)
    if (t->columns[c].key && strcmp (t->columns[c].key, key) == 0)
      return (int) c;
  return -1;
}

/* The first row of T with ROLE, of the group of entry GROUP (0: any),
   whose "name" is NAME; -1 if none. */
static long
grow_named (const struct hi_table *t, enum hi_row_role role, uint32_t group,
            const char *name)
{
  int c = gcol (t, "name");
  for (size_t i = 0; t && c >= 0 && i < t->n_rows; i++)
    if (t->rows[i].role == role && (!group || t->rows[i].group == group)
        && t->rows[i].cells[c].type == HI_CELL_TEXT
        && strcmp (t->rows[i].cells[c].text, name) == 0)
      return (long) i;
  return -1;
}

/* Cell KEY of row I of T: its v, or UINT64_MAX if absent. */
static uint64_t
gval (const struct hi_table *t, long i, const char *key)
{
  int c = gcol (t, key);
  if (!t || i < 0 || c < 0 || t->rows[i].cells[c].type == HI_CELL_EMPTY)
    return UINT64_MAX;
  return t->rows[i].cells[c].v;
}

/* How many rows of T have ROLE (text-only ones counted apart when
   TEXT_ONLY is 1, JSON-only when 2). */
static size_t
gcount (const struct hi_table *t, enum hi_row_role role, int which)
{
  size_t n = 0;
  for (size_t i = 0; t && i < t->n_rows; i++)
    if (t->rows[i].role == role
        && (which == 0 || (which == 1 && t->rows[i].text_only)
            || (which == 2 && t->rows[i].json_only)))
      n++;
  return n;
}

/* Whether every REF cell of T names an ENTRY row's index, and entries
   are numbered 1..n in order. */
static int
grefs_resolve (const struct hi_table *t)
{
  uint64_t entries = 0;
  for (size_t i = 0; t && i < t->n_rows; i++)
    if (t->rows[i].role == HI_ROW_ENTRY)
      {
        if (gval (t, (long) i, "index") != ++entries)
          return 0;
      }
  for (size_t i = 0; t && i < t->n_rows; i++)
    for (size_t c = 0; c < t->n_columns; c++)
      if (t->rows[i].cells[c].type == HI_CELL_REF
          && (t->rows[i].cells[c].v == 0 || t->rows[i].cells[c].v > entries))
        return 0;
  return t != NULL;
}

/* The text of the "(N more ...)" row of entry GROUP with ROLE, or "". */
static const char *
gbelow (const struct hi_table *t, uint32_t group, enum hi_row_role role)
{
  for (size_t i = 0; t && i < t->n_rows; i++)
    if (t->rows[i].group == group && t->rows[i].role == role
        && t->rows[i].text_only)
      for (size_t c = 0; c < t->n_columns; c++)
        if (t->rows[i].cells[c].type == HI_CELL_TEXT
            && strncmp (t->rows[i].cells[c].text, "(", 1) == 0)
          return t->rows[i].cells[c].text;
  return "";
}

/* M calls B (9940 bytes), S (40) and D (20) of 10000: at 0.5% the graph
   shows M and B, hides S and D as entries and as M's callee lines, and
   every total stays what it is with nothing hidden. */
static void
test_graph_threshold (void)
{
  struct model x;
  model_init (&x);
  uint32_t m = node (&x, 0, 0x1000);
  uint32_t b = node (&x, m, 0xb000), s = node (&x, m, 0x5000);
  uint32_t d = node (&x, m, 0xd000);
  site (&x, b, 2, 1, 9940, 0, 0);
  site (&x, s, 2, 2, 20, 0, 0);
  site (&x, d, 2, 1, 20, 0, 0);
  struct graph_report v, n;
  graph_build (&v, &x, HI_VERBOSE, HI_OPT_LIMIT_AUTO);
  graph_build (&n, &x, HI_NORMAL, HI_OPT_LIMIT_AUTO);
  check (v.t && gcount (v.t, HI_ROW_ENTRY, 0) == 4
         && v.t->below_threshold == 0 && gcount (v.t, HI_ROW_CALLEE, 1) == 0,
         "graph threshold: verbose shows every entry and line", "%zu entries",
         gcount (v.t, HI_ROW_ENTRY, 0));
  long mv = grow_named (v.t, HI_ROW_ENTRY, 0, "0x1000");
  long mn = grow_named (n.t, HI_ROW_ENTRY, 0, "0x1000");
  check (n.t && gcount (n.t, HI_ROW_ENTRY, 0) == 2
         && grow_named (n.t, HI_ROW_ENTRY, 0, "0xb000") >= 0
         && grow_named (n.t, HI_ROW_ENTRY, 0, "0x5000") < 0
         && grow_named (n.t, HI_ROW_ENTRY, 0, "0xd000") < 0
         && n.t->below_threshold == 2,
         "graph threshold: entries under 0.5% hidden and counted",
         "below %" PRIu64, n.t ? n.t->below_threshold : 0);
  uint32_t mg = (uint32_t) gval (n.t, mn, "index");
  check (grow_named (n.t, HI_ROW_CALLEE, mg, "0xb000") >= 0
         && grow_named (n.t, HI_ROW_CALLEE, mg, "0x5000") < 0
         && grow_named (n.t, HI_ROW_CALLEE, mg, "0xd000") < 0
         && strcmp (gbelow (n.t, mg, HI_ROW_CALLEE),
                    "(2 more below 0.5%)") == 0
         && gval (n.t, mn, "callees_below") == 2
         && gval (v.t, mv, "callees_below") == 0,
         "graph threshold: callee lines under 0.5% hidden, one (2 more) line",
         "'%s'", gbelow (n.t, mg, HI_ROW_CALLEE));
  check (gval (n.t, mn, "self_desc") == 10000
         && gval (v.t, mv, "self_desc") == 10000
         && gval (n.t, mn, "called") == 4 && gval (v.t, mv, "called") == 4,
         "graph threshold: totals unchanged", "%" PRIu64,
         gval (n.t, mn, "self_desc"));
  check (grefs_resolve (n.t) && grefs_resolve (v.t),
         "graph threshold: every reference is a printed entry", "no");
  graph_free (&v);
  graph_free (&n);

  /* --limit=1: the largest entry only, and one line a side; the line to
     B, an entry not printed, has no reference. */
  struct graph_report l;
  graph_build (&l, &x, HI_VERBOSE, 1);
  long ml = grow_named (l.t, HI_ROW_ENTRY, 0, "0x1000");
  long bl = grow_named (l.t, HI_ROW_CALLEE, 0, "0xb000");
  check (l.t && gcount (l.t, HI_ROW_ENTRY, 0) == 1 && ml >= 0
         && l.t->over_limit == 3 && bl >= 0
         && gval (l.t, bl, "index") == UINT64_MAX
         && gval (l.t, bl, "bytes") == 9940
         && strcmp (gbelow (l.t, 1, HI_ROW_CALLEE), "(2 more, smaller)") == 0
         && grefs_resolve (l.t),
         "graph limit: one entry, one line, no reference to a hidden entry",
         "'%s'", gbelow (l.t, 1, HI_ROW_CALLEE));
  graph_free (&l);
  free (x.thread);
}

/* A chain cut at the depth cap (... > A > B, 100 bytes) beside a whole
   one (M > A > B, 50): A's callers are M and <deeper>, with exactly the
   cut chain's bytes; <deeper> is no entry and has no reference. */
static void
test_graph_deeper (void)
{
  struct model x;
  model_init (&x);
  uint32_t a1 = node (&x, 1, 0xa000), b1 = node (&x, a1, 0xb000);
  uint32_t m = node (&x, 0, 0x1000), a2 = node (&x, m, 0xa000);
  uint32_t b2 = node (&x, a2, 0xb000);
  site (&x, b1, 2, 2, 50, 0, 0);
  site (&x, b2, 3, 1, 50, 0, 0);
  struct graph_report g;
  graph_build (&g, &x, HI_VERBOSE, HI_OPT_LIMIT_AUTO);
  long ea = grow_named (g.t, HI_ROW_ENTRY, 0, "0xa000");
  uint32_t ga = (uint32_t) gval (g.t, ea, "index");
  long dl = grow_named (g.t, HI_ROW_CALLER, ga, "<deeper>");
  long ml = grow_named (g.t, HI_ROW_CALLER, ga, "0x1000");
  check (ea >= 0 && gval (g.t, ea, "self_desc") == 150 && dl >= 0
         && gval (g.t, dl, "bytes") == 100 && gval (g.t, dl, "calls") == 2
         && gval (g.t, dl, "index") == UINT64_MAX
         && ml >= 0 && gval (g.t, ml, "bytes") == 50,
         "graph: a <deeper> caller line carries the cut chains' bytes",
         "deeper row %ld", dl);
  check (grow_named (g.t, HI_ROW_ENTRY, 0, "<deeper>") < 0
         && gcount (g.t, HI_ROW_ENTRY, 0) == 3 && grefs_resolve (g.t),
         "graph: <deeper> is no entry", "%zu entries",
         gcount (g.t, HI_ROW_ENTRY, 0));
  graph_free (&g);
  free (x.thread);
}

/* C calls into a ring of seven functions: one <cycle 1> whose members
   are one text line (four names, "and 3 more") and seven JSON rows,
   each function once. */
static void
test_graph_members (void)
{
  struct model x;
  model_init (&x);
  uint32_t at = node (&x, 0, 0xc000);
  for (int i = 0; i < 8; i++)
    at = node (&x, at, 0x1000 * (uint64_t) (1 + i % 7) + 0x100);
  site (&x, at, 9, 1, 64, 0, 0);
  struct graph_report g;
  graph_build (&g, &x, HI_NORMAL, HI_OPT_LIMIT_AUTO);
  long e = grow_named (g.t, HI_ROW_ENTRY, 0, "<cycle 1>");
  uint32_t group = (uint32_t) gval (g.t, e, "index");
  const char *line = "";
  int names[7] = { 0 }, once = 1;
  int nc = gcol (g.t, "name");
  for (size_t i = 0; g.t && nc >= 0 && i < g.t->n_rows; i++)
    {
      const struct hi_row *row = &g.t->rows[i];
      if (row->role != HI_ROW_MEMBER || row->group != group)
        continue;
      if (row->text_only)
        for (size_t c = 0; c < g.t->n_columns; c++)
          if (row->cells[c].type == HI_CELL_TEXT)
            line = row->cells[c].text;
      if (row->json_only)
        {
          unsigned k = 0;
          if (sscanf (row->cells[nc].text, "0x%x", &k) != 1
              || k < 0x1100 || (k - 0x100) % 0x1000 || k > 0x7100
              || names[(k - 0x1100) / 0x1000]++
              || gval (g.t, (long) i, "bytes") != 64
              || gval (g.t, (long) i, "calls") != 1)
            once = 0;
        }
    }
  for (int i = 0; i < 7; i++)
    once &= names[i] == 1;
  check (e >= 0 && gcount (g.t, HI_ROW_MEMBER, 1) == 1
         && gcount (g.t, HI_ROW_MEMBER, 2) == 7 && once
         && strcmp (line, "7 members: 0x1100, 0x2100, 0x3100, 0x4100 "
                    "and 3 more") == 0,
         "graph: a cycle's members listed once, in one text line",
         "'%s'", line);
  graph_free (&g);
  free (x.thread);
}

int
main (void)
{
  test_percentages ();
  test_no_wrap ();
  test_zero_rows ();
  test_scc ();
  test_one_cut ();
  test_graph_threshold ();
  test_graph_deeper ();
  test_graph_members ();
  return failed;
}
