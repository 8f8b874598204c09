/* svg-unit.c - unit tests of the SVG flame graph emitter on hand-built
   report models: names full of markup, control characters and bytes
   that are not UTF-8; an empty profile; frames too narrow to draw; a
   write error; 100 000 chains with the hash table's work bounded.
   usage: svg-unit DIR  (writes DIR/hostile.svg and DIR/empty.svg, which
   svg.exp gives to xmllint) */
#define _GNU_SOURCE
#include "tables/tables.h"
#include "util/hash.h"
#include "unit-check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Room for one more element of *V. */
static void
grow (void **v, size_t n, size_t size)
{
  if ((n & (n - 1)) == 0)   /* 0, 1, 2, 4...: double at powers of two */
    {
      *v = realloc (*v, (n ? n * 2 : 1) * size);
      if (!*v)
        abort ();
    }
}

/* A location of one frame named NAME in R; its index. */
static uint32_t
loc (struct hi_rmodel *r, const char *name)
{
  const char *s = hi_rmodel_strdup (r, name);
  struct hi_rframe f;
  memset (&f, 0, sizeof f);
  f.function = f.label = f.group = f.system_name = s;
  uint64_t first = hi_rmodel_frames (r, &f, 1);
  grow ((void **) &r->locations, r->n_locations, sizeof *r->locations);
  struct hi_rlocation *l = &r->locations[r->n_locations];
  memset (l, 0, sizeof *l);
  l->first = first;
  l->n = 1;
  return (uint32_t) r->n_locations++;
}

/* A sample of the locations NAMES (N of them, root first, each a new
   location) with its four figures. */
static void
sample (struct hi_rmodel *r, const char *const *names, size_t n,
        uint64_t inuse_space, uint64_t inuse_objects, uint64_t alloc_space,
        uint64_t alloc_objects)
{
  grow ((void **) &r->samples, r->n_samples, sizeof *r->samples);
  struct hi_rsample *s = &r->samples[r->n_samples++];
  s->first = r->n_sample_locs;
  s->n = n;
  s->inuse_space = inuse_space;
  s->inuse_objects = inuse_objects;
  s->alloc_space = alloc_space;
  s->alloc_objects = alloc_objects;
  /* Innermost first. */
  for (size_t i = n; i-- > 0;)
    {
      uint32_t l = loc (r, names[i]);
      grow ((void **) &r->sample_locs, r->n_sample_locs,
            sizeof *r->sample_locs);
      r->sample_locs[r->n_sample_locs++] = l;
    }
  r->has_samples = 1;
}

/* Emit R with weight W into a string; its status in *S. */
static char *
emit (const struct hi_rmodel *r, enum hi_weight w, hi_status *s)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);
  struct hi_emit_options o = { 0, 1, w, NULL, 0 };
  *s = hi_emit_svg (r, &o, f);
  fclose (f);
  return out;
}

static size_t
count (const char *s, const char *what)
{
  size_t n = 0;
  for (const char *p = s; (p = strstr (p, what)); p += strlen (what))
    n++;
  return n;
}

/* 1 if S is UTF-8 with no control character but newline. */
static int
clean_text (const char *s)
{
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      if (*p < 0x20 ? *p != '\n' : *p == 0x7f)
        return 0;
      int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2
              : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
      if (n == 0)
        return 0;
      for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
          return 0;
      if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
        return 0;              /* a C1 control */
      p += n;
    }
  return 1;
}

static void
save (const char *dir, const char *name, const char *text)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen (path, "w");
  if (f)
    {
      fputs (text, f);
      fclose (f);
    }
}

static void
test_hostile (const char *dir)
{
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = "snap<&>\"'.hip";
  char longname[1024] = "";
  for (int i = 0; i < 200; i++)
    strcat (longname, "\xc3\xa9");     /* é */
  const char *a[] = { "main", "a<b&c\"d'e>" };
  const char *b[] = { "main", "ctl\x01\x1b[31m\x7f", "c1\xc2\x9bx" };
  const char *c[] = { "main", "bad\xff\xfe \xc0\xaf \xed\xa0\x80 "
                              "\xef\xbf\xbe end" };
  const char *d[] = { "main", longname };
  sample (&r, a, 2, 300, 3, 600, 6);
  sample (&r, b, 3, 100, 1, 100, 1);
  sample (&r, c, 2, 50, 1, 50, 1);
  sample (&r, d, 2, 100, 1, 100, 1);
  sample (&r, NULL, 0, 7, 1, 7, 1);            /* no frame recorded */
  sample (&r, a, 2, 0, 0, 1000, 10);           /* all freed: not in use */
  hi_status s;
  char *out = emit (&r, HI_WEIGHT_INUSE_SPACE, &s);
  check (s == HI_OK, "svg hostile: status", "%d", (int) s);
  /* all, main, its four children, c1 under ctl, [unknown]. */
  check (count (out, "<g class=\"f\"") == 8, "svg hostile: one frame element "
         "per node", "%zu", count (out, "<g class=\"f\""));
  check (clean_text (out), "svg hostile: UTF-8 without control characters",
         "%s", "");
  check (strstr (out, ">a&lt;b&amp;c&quot;d&apos;e&gt;\n") != NULL,
         "svg hostile: markup escaped in the title", "%s", "");
  check (strstr (out, ">a&lt;b&amp;c&quot;d&apos;e&gt;</text>") != NULL,
         "svg hostile: markup escaped in the label", "%s", "");
  check (strstr (out, "ctl\\x01\\x1b[31m\\x7f\n") != NULL
         && strstr (out, "c1\\xc2\\x9bx\n") != NULL,
         "svg hostile: control characters as \\xHH", "%s", "");
  check (strstr (out, "bad\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd "
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end\n") != NULL,
         "svg hostile: bytes that are not XML's UTF-8 as U+FFFD", "%s", "");
  check (strstr (out, "snap&lt;&amp;&gt;&quot;&apos;.hip") != NULL,
         "svg hostile: source escaped", "%s", "");
  check (strstr (out, "<title>main\n550 bytes in use, 6 blocks, 98.74% of "
                      "bytes in use</title>") != NULL,
         "svg hostile: figures of main", "%s", "");
  check (strstr (out, "<title>[unknown]\n7 bytes in use, 1 block, 1.26% of "
                      "bytes in use</title>") != NULL,
         "svg hostile: a chain without frames as [unknown]", "%s", "");
  /* The long name's frame is 1180 * 100 / 557 = 211.85 pixels wide:
     (211.85 - 6) / 7.08 = 29 characters, 27 of the name and "..". */
  char label[256] = ">";
  for (int i = 0; i < 27; i++)
    strcat (label, "\xc3\xa9");
  strcat (label, "..</text>");
  check (strstr (out, label) != NULL, "svg hostile: long label cut at a "
         "character", "%s", "");
  save (dir, "hostile.svg", out);
  free (out);

  out = emit (&r, HI_WEIGHT_ALLOC_OBJECTS, &s);
  check (s == HI_OK && strstr (out, "<title>a&lt;b&amp;c&quot;d&apos;e&gt;\n"
                                    "1600 bytes (1.6K) allocated, 16 "
                                    "allocations, 80.00% of allocations"
                                    "</title>") != NULL,
         "svg alloc_objects: figures of a merged node", "%s", "");
  free (out);
  hi_rmodel_free (&r);
}

static void
test_empty (const char *dir)
{
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = "empty.hip";
  hi_status s;
  char *out = emit (&r, HI_WEIGHT_INUSE_SPACE, &s);
  check (s == HI_OK && strstr (out, "Nothing to show") != NULL
         && count (out, "<g class=\"f\"") == 0 && strstr (out, "</svg>\n"),
         "svg empty: says there is nothing to show", "%d", (int) s);
  save (dir, "empty.svg", out);
  free (out);
  /* Chains whose figure is 0 for the weight: nothing to show either. */
  const char *a[] = { "main", "f" };
  sample (&r, a, 2, 0, 0, 64, 1);
  out = emit (&r, HI_WEIGHT_INUSE_OBJECTS, &s);
  check (s == HI_OK && strstr (out, "Nothing to show") != NULL
         && count (out, "<g class=\"f\"") == 0,
         "svg empty: chains all freed", "%d", (int) s);
  free (out);
  out = emit (&r, HI_WEIGHT_ALLOC_SPACE, &s);
  check (s == HI_OK && strstr (out, "Nothing to show") == NULL
         && count (out, "<g class=\"f\"") == 3,
         "svg empty: the same chains allocated", "%d", (int) s);
  free (out);
  hi_rmodel_free (&r);
}

static void
test_narrow (void)
{
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  const char *big[] = { "main", "big" };
  const char *tiny[] = { "main", "tiny", "tinier" };
  const char *edge[] = { "main", "edge" };
  sample (&r, big, 2, 999899, 1, 999899, 1);
  sample (&r, tiny, 3, 1, 1, 1, 1);
  /* 100 of 1000000: exactly 0.01%, drawn. */
  sample (&r, edge, 2, 100, 1, 100, 1);
  hi_status s;
  char *out = emit (&r, HI_WEIGHT_INUSE_SPACE, &s);
  check (s == HI_OK && count (out, "<g class=\"f\"") == 4,
         "svg narrow: frames under 0.01% not drawn", "%zu",
         count (out, "<g class=\"f\""));
  check (strstr (out, ">edge\n") != NULL && strstr (out, ">tiny\n") == NULL,
         "svg narrow: the frame at 0.01% drawn", "%s", "");
  check (strstr (out, "<text id=\"note\"") != NULL
         && strstr (out, "2 frames under 0.01% of the whole not drawn "
                         "(0.00% of bytes in use).") != NULL,
         "svg narrow: a note says so", "%s", "");
  free (out);
  hi_rmodel_free (&r);
  /* Positive beside it: nothing left out, no note. */
  hi_rmodel_init (&r);
  sample (&r, big, 2, 10, 1, 10, 1);
  sample (&r, tiny, 3, 1, 1, 1, 1);
  out = emit (&r, HI_WEIGHT_INUSE_SPACE, &s);
  check (s == HI_OK && count (out, "<g class=\"f\"") == 5
         && strstr (out, "id=\"note\"") == NULL,
         "svg narrow: no note when every frame is drawn", "%s", "");
  free (out);
  hi_rmodel_free (&r);
}

static void
test_write_error (void)
{
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  const char *a[] = { "main", "f" };
  sample (&r, a, 2, 10, 1, 10, 1);
  FILE *f = fopen ("/dev/full", "w");
  struct hi_emit_options o = { 0, 1, HI_WEIGHT_INUSE_SPACE, NULL, 0 };
  hi_status s = f ? hi_emit_svg (&r, &o, f) : HI_OK;
  check (f && s == HI_E_WRITE, "svg: a write error is HI_E_WRITE", "%d",
         (int) s);
  if (f)
    fclose (f);
  hi_rmodel_free (&r);
}

/* 100 000 chains of 8 frames: a 10-way tree 5 levels deep by the
   chain's digits, then 3 frames of each chain's own: 411 110 nodes.  The
   hash table's probes per lookup stay bounded (no quadratic scan). */
static void
test_large (void)
{
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  char names[8][32];
  const char *p[8];
  for (int i = 0; i < 100000; i++)
    {
      int div = 10000;
      for (int k = 0; k < 5; k++, div /= 10)
        snprintf (names[k], sizeof names[k], "d%d_%d", k, i / div);
      for (int k = 5; k < 8; k++)
        snprintf (names[k], sizeof names[k], "own%d_%d", k, i);
      for (int k = 0; k < 8; k++)
        p[k] = names[k];
      sample (&r, p, 8, 1, 1, 1, 1);
    }
  uint64_t probes = hi_hash_probes;
  struct timespec t0, t1;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t0);
  hi_status s;
  char *out = emit (&r, HI_WEIGHT_INUSE_SPACE, &s);
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t1);
  probes = hi_hash_probes - probes;
  printf ("# svg of 100000 chains, 411110 nodes: %.3f s of CPU, %zu bytes, "
          "%llu probes\n", (double) (t1.tv_sec - t0.tv_sec)
          + (t1.tv_nsec - t0.tv_nsec) / 1e9, strlen (out ? out : ""),
          (unsigned long long) probes);
  /* Drawn: weight >= 10 of 100000: the root and the first 4 levels. */
  check (s == HI_OK && count (out, "<g class=\"f\"") == 11111,
         "svg large: frames drawn", "%zu", count (out, "<g class=\"f\""));
  check (strstr (out, "400000 frames under 0.01%") != NULL,
         "svg large: frames not drawn counted", "%s", "");
  /* 800 000 lookups, 411 109 inserts. */
  check (probes < 4 * (800000 + 411109), "svg large: hash probes bounded",
         "%llu", (unsigned long long) probes);
  free (out);
  hi_rmodel_free (&r);
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  test_hostile (dir);
  test_empty (dir);
  test_narrow ();
  test_write_error ();
  test_large ();
  return failed;
}
