/* diff-unit.c - unit tests of `heapinspect diff` on hand-built models
   that skip the model's validation: the signed delta cells in text and
   JSON at the edges of int64_t, changes that saturate, the order of
   rows (growth before shrink, ties by name), chains only on one side,
   0-byte blocks weighed by their number, the threshold and the limit,
   and formats diff does not write.  Prints "PASS: name" or "FAIL: name:
   why" per check (diff-unit.exp turns them into DejaGnu results); exit
   status 1 if any failed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"
#include "report/rmodel.h"
#include "unit-check.h"
#include "util/num.h"

/* The delta cells as the emitters write them. */
static void
test_cells (void)
{
  static const struct hi_column cols[] = {
    { .key = "k", .head = "k", .type = HI_CELL_TEXT },
    { .key = "v", .head = "v", .type = HI_CELL_DELTA },
  };
  struct
  {
    struct hi_cell c;
    const char *text, *exact, *json;
  } cases[] = {
    { hi_cell_delta_bytes (1229), "+1.2K", "+1229", "1229" },
    { hi_cell_delta_bytes (-512), "-512B", "-512", "-512" },
    { hi_cell_delta_bytes (0), "0", "0", "0" },
    { hi_cell_delta (7), "+7", "+7", "7" },
    { hi_cell_delta (-3), "-3", "-3", "-3" },
    { hi_cell_delta (0), "0", "0", "0" },
    { hi_cell_delta_bytes (INT64_MIN), "-8.0E", "-9223372036854775808",
      "-9223372036854775808" },
    { hi_cell_delta_bytes (INT64_MAX), "+8.0E", "+9223372036854775807",
      "9223372036854775807" },
    { hi_cell_delta (INT64_MIN), "-9223372036854775808",
      "-9223372036854775808", "-9223372036854775808" },
  };
  size_t n = sizeof cases / sizeof cases[0];
  for (int format = 0; format < 3; format++)
    {
      struct hi_rmodel r;
      hi_rmodel_init (&r);
      struct hi_table *t = hi_rmodel_table (&r, "t", NULL, cols, 2);
      t->keyvalue = 1;
      for (size_t i = 0; i < n; i++)
        {
          struct hi_cell *c = hi_rmodel_row (&r, t, HI_ROW_PLAIN);
          char key[16];
          snprintf (key, sizeof key, "c%zu", i);
          c[0] = hi_cell_text (hi_rmodel_strdup (&r, key));
          c[1] = cases[i].c;
        }
      char *out = NULL;
      size_t size = 0;
      FILE *f = open_memstream (&out, &size);
      struct hi_emit_options eo = { .exact_bytes = format == 1, .lines = 1 };
      if (format == 2)
        hi_emit_json (&r, &eo, f);
      else
        hi_emit_text (&r, &eo, f);
      fclose (f);
      for (size_t i = 0; i < n; i++)
        {
          char want[96], name[96];
          const char *v = format == 0 ? cases[i].text
                          : format == 1 ? cases[i].exact : cases[i].json;
          snprintf (want, sizeof want, format == 2 ? "\"c%zu\": %s\n"
                                                   : "c%zu: %s\n", i, v);
          snprintf (name, sizeof name, "delta cell %zu in %s", i,
                    format == 0 ? "text" : format == 1 ? "text --bytes"
                                                       : "JSON");
          /* JSON's last key has no comma: match up to the value. */
          const char *hit = strstr (out, want);
          if (!hit && format == 2)
            {
              want[strlen (want) - 1] = '\0';
              hit = strstr (out, want);
            }
          check (hit != NULL, name, "no '%s' in:\n%s", want, out);
        }
      free (out);
      hi_rmodel_free (&r);
    }
}

/* A model built by hand: nodes 0 and 1 are the root and the cut node. */
struct model
{
  struct hi_model m;
  struct hi_node nodes[32];
  struct hi_site sites[8];
  struct hi_thread thread;
};

static void
model_init (struct model *x)
{
  memset (x, 0, sizeof *x);
  x->m.nodes = x->nodes;
  x->m.n_nodes = 2;
  x->m.sites = x->sites;
  x->m.n_sites = 1;
  x->m.threads = &x->thread;
  x->m.n_threads = 1;
  x->m.bins = x->thread.bins;
}

/* A chain main(RET_MAIN) > f(RET): its leaf node (made once per RET). */
static uint32_t
chain (struct model *x, uint64_t ret)
{
  for (uint32_t i = 2; i < x->m.n_nodes; i++)
    if (x->nodes[i].ret == ret)
      return i;
  uint32_t i = (uint32_t) x->m.n_nodes++;
  x->nodes[i] = (struct hi_node) { ret, 0, 0 };
  return i;
}

/* A site at return address RET of ALLOCS blocks of SIZE bytes, FREES of
   them freed (BYTES, FREED given when not ALLOCS * SIZE). */
static void
site (struct model *x, uint64_t ret, uint64_t allocs, uint64_t bytes,
      uint64_t frees, uint64_t freed)
{
  uint32_t s = (uint32_t) x->m.n_sites++;
  struct hi_site *st = &x->sites[s];
  uint32_t leaf = chain (x, ret);
  st->node = leaf;
  st->depth = 1;
  st->allocs[0] = allocs;
  st->bytes[0] = bytes;
  st->frees[0] = frees;
  st->bytes_freed[0] = freed;
  x->nodes[leaf].site = s;
  x->thread.allocations = hi_add_sat (x->thread.allocations, allocs);
  x->thread.bytes_allocated = hi_add_sat (x->thread.bytes_allocated, bytes);
  x->thread.frees = hi_add_sat (x->thread.frees, frees);
  x->thread.bytes_freed = hi_add_sat (x->thread.bytes_freed, freed);
}

/* The diff of OLD to NEW with OPT's changes from the defaults
   (threshold 0 unless set) into a new string; *S gets the status. */
static char *
diff (struct model *old, struct model *new_m, enum hi_format format,
      int32_t threshold, uint32_t limit, hi_status *s)
{
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.format = format;
  opt.threshold = threshold;
  opt.limit = limit;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);
  if (!f)
    return NULL;
  *s = hi_diff_report (&old->m, NULL, "old", &new_m->m, NULL, "new", &opt,
                       f);
  fclose (f);
  return text;
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

/* The position of WHAT in TEXT, or -1. */
static long
at (const char *text, const char *what)
{
  const char *p = text ? strstr (text, what) : NULL;
  return p ? p - text : -1;
}

static void
test_rows (void)
{
  struct model a, b;
  model_init (&a);
  model_init (&b);
  /* 0x1000: grows by 100; 0x2000: shrinks by 100; 0x3000 and 0x4000:
     the same growth of 50 (ties by name); 0x5000: gone; 0x6000: new;
     0x7000: 0-byte blocks, 4 more live; 0x8000: unchanged. */
  site (&a, 0x1000, 1, 100, 0, 0);
  site (&b, 0x1000, 2, 200, 0, 0);
  site (&a, 0x2000, 2, 200, 0, 0);
  site (&b, 0x2000, 2, 200, 1, 100);
  site (&a, 0x4000, 1, 10, 0, 0);
  site (&b, 0x4000, 2, 60, 0, 0);
  site (&a, 0x3000, 1, 10, 0, 0);
  site (&b, 0x3000, 2, 60, 0, 0);
  site (&a, 0x5000, 3, 30, 0, 0);
  site (&b, 0x6000, 1, 20, 0, 0);
  site (&a, 0x7000, 1, 0, 0, 0);
  site (&b, 0x7000, 5, 0, 0, 0);
  site (&a, 0x8000, 9, 90, 0, 0);
  site (&b, 0x8000, 9, 90, 0, 0);
  hi_status s;
  char *json = diff (&a, &b, HI_JSON, 0, 0, &s);
  check (s == HI_OK && json, "diff: JSON written", "status %d", s);
  /* The paths are raw addresses here (no modules): the rows by their
     order in the chain table. */
  long g = at (json, "0x1000"), sh = at (json, "0x2000");
  long t3 = at (json, "0x3000"), t4 = at (json, "0x4000");
  long gone = at (json, "0x5000"), nw = at (json, "0x6000");
  long zero = at (json, "0x7000");
  check (g >= 0 && sh > g, "diff: growth before a shrink of the same size",
         "at %ld, %ld", g, sh);
  check (sh >= 0 && t3 > sh && t4 > t3,
         "diff: smaller changes after, ties by name", "at %ld %ld %ld", sh,
         t3, t4);
  check (t4 >= 0 && gone > t4 && nw > gone && zero > nw,
         "diff: then gone (30), new (20), 0-byte blocks last",
         "at %ld %ld %ld %ld", t4, gone, nw, zero);
  check (at (json, "0x8000") < 0, "diff: an unchanged chain is left out",
         "found");
  check (at (json, "\"live_bytes\": -30, \"live_blocks\": -3, \"allocs\": -3"
               ", \"bytes\": -30") >= 0
         && at (json, "\"status\": \"gone\"") >= 0,
         "diff: a chain only in OLD, gone, negative allocations", "%s", json);
  check (at (json, "\"live_bytes\": 20, \"live_blocks\": 1, \"allocs\": 1, "
               "\"bytes\": 20, \"old_live_bytes\": 0") >= 0
         && at (json, "\"status\": \"new\"") >= 0,
         "diff: a chain only in NEW, new", "%s", json);
  check (at (json, "\"live_bytes\": 0, \"live_blocks\": 4, \"allocs\": 4")
         >= 0, "diff: 0-byte blocks counted", "%s", json);
  check (at (json, "\"chains_changed\": 7") >= 0
         && at (json, "\"chains_new\": 1") >= 0
         && at (json, "\"chains_gone\": 1") >= 0,
         "diff: the totals count changed, new and gone chains", "%s", json);
  free (json);

  /* --threshold=10%: of the live bytes' changes, 100+100+50+50+30+20 =
     350, 35 needed: 0x1000..0x4000 shown, 30, 20 not; the 0-byte row by
     its blocks, the only ones that changed: shown. */
  json = diff (&a, &b, HI_JSON, 10000, 0, &s);
  check (at (json, "0x5000") < 0 && at (json, "0x6000") < 0
         && at (json, "0x4000") >= 0 && at (json, "0x7000") >= 0
         && at (json, "\"below_threshold\": 2") >= 0,
         "diff --threshold: the share of all live bytes' change", "%s",
         json);
  free (json);
  json = diff (&a, &b, HI_JSON, 0, 3, &s);
  check (at (json, "0x3000") >= 0 && at (json, "0x4000") < 0
         && at (json, "\"over_limit\": 4") >= 0,
         "diff --limit=3: the three largest changes", "%s", json);
  free (json);

  /* Text: the signed cells, the status words. */
  char *text = diff (&a, &b, HI_TEXT, 0, 0, &s);
  check (at (text, "+100B") >= 0 && at (text, "-100B") >= 0
         && at (text, "gone") >= 0 && at (text, " new ") >= 0,
         "diff, text: signed changes, new and gone", "%s", text);
  free (text);

  /* Nothing changed: a moment against itself. */
  text = diff (&a, &a, HI_TEXT, 0, 0, &s);
  check (s == HI_OK && count (text, "nothing changed") == 2
         && at (text, "live_bytes: 0\n") >= 0,
         "diff of a model with itself: nothing changed", "%s", text);
  free (text);

  /* Formats diff does not write: refused, nothing written. */
  char *none = diff (&a, &b, HI_PPROF, 0, 0, &s);
  check (s == HI_E_USAGE && (!none || !*none),
         "diff --format=pprof: refused", "status %d", s);
  free (none);
}

/* Changes beyond int64_t saturate, never wrap. */
static void
test_saturation (void)
{
  struct model a, b;
  model_init (&a);
  model_init (&b);
  site (&a, 0x1000, UINT64_MAX, UINT64_MAX, 0, 0);
  site (&b, 0x1000, 0, 0, 0, 0);
  site (&b, 0x2000, UINT64_MAX, UINT64_MAX, 0, 0);
  hi_status s;
  char *json = diff (&a, &b, HI_JSON, 0, 0, &s);
  check (at (json, "\"live_bytes\": -9223372036854775808, \"live_blocks\": "
               "-9223372036854775808") >= 0,
         "diff: a fall beyond int64_t saturates", "%s", json);
  check (at (json, "\"live_bytes\": 9223372036854775807, \"live_blocks\": "
               "9223372036854775807") >= 0,
         "diff: a rise beyond int64_t saturates", "%s", json);
  free (json);
}

int
main (void)
{
  test_cells ();
  test_rows ();
  test_saturation ();
  return failed;
}
