/* fuzz-report.c - libFuzzer target: a snapshot file and what a user says
   about it, i.e. every output format with every weight, --focus,
   --ignore, --module, a suppressions file, and `diff A B`.

   The input is a snapshot followed by a trailer.  A reader finds a
   snapshot's regions by their offsets from its start and never looks
   past them, so the input is a snapshot to heapinspect(1) too (the
   testsuite reads fuzz/regress/report with it); the trailer is anchored
   at the end, where the fuzzer's insertions and deletions in the
   snapshot leave it whole:

     SNAPSHOT TEXT CONTROL

   CONTROL, the last 16 bytes (an input shorter than that is all
   snapshot, with no option), little-endian:
     u32 text_len   the bytes of TEXT (at most those before CONTROL)
     u32 split      0 < split < |SNAPSHOT|: `diff` compares the
                    snapshot's bytes before SPLIT with those from it on;
                    otherwise the snapshot with one byte changed:
     u32 flip_at    the byte at flip_at % |SNAPSHOT|,
     u8  flip_xor   xored with this (0: the same bytes, loaded twice)
     u8  weight     --weight (% 6) of the reports through hi_report; the
                    profile and timeline formats are also written with
                    every weight
     u8  flags      bit 0 --offsets, 1 --bytes, 2 --long-names,
                    3 --no-lines, 4 --no-default-suppressions,
                    5 --threshold=0, 6 --terse, 7 --verbose
     u8  depth      --depth (0: the default)
   TEXT is FOCUS NUL IGNORE NUL MODULE NUL SUPPRESSIONS: an empty field
   (or a missing one) is an option not given; SUPPRESSIONS is the
   content of the --suppressions file. */
#define _GNU_SOURCE
#include "harness.h"

#include "tables/tables.h"
#include "symbols/symbolize.h"
#include "analysis/filter.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define CONTROL 16
/* glibc's regcomp and regexec take time and memory exponential in a
   pattern's nesting; a user's own --focus is no hostile input, so the
   patterns are kept short enough for that not to be what is found. */
#define PATTERN_MAX 48

struct control
{
  uint32_t text_len, split, flip_at;
  uint8_t flip_xor, weight, flags, depth;
};

static uint32_t
le32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
         | (uint32_t) p[3] << 24;
}

/* Field I (0: FOCUS, 1: IGNORE, 2: MODULE) of the LEN bytes of TEXT,
   copied into OUT (SIZE bytes) as a string: OUT, or NULL when it is
   empty, missing or too long (OUT then ""). */
static const char *
field (const char *text, size_t len, int i, char *out, size_t size)
{
  size_t at = 0;
  out[0] = '\0';
  for (int k = 0; k < i; k++)
    {
      const char *nul = memchr (text + at, '\0', len - at);
      if (!nul)
        return NULL;
      at = (size_t) (nul - text) + 1;
    }
  const char *nul = memchr (text + at, '\0', len - at);
  size_t n = nul ? (size_t) (nul - (text + at)) : len - at;
  if (n == 0 || n >= size)
    return NULL;
  memcpy (out, text + at, n);
  out[n] = '\0';
  return out;
}

/* Where SUPPRESSIONS starts in TEXT: after the third NUL; LEN if none. */
static size_t
suppressions_at (const char *text, size_t len)
{
  size_t at = 0;
  for (int k = 0; k < 3; k++)
    {
      const char *nul = memchr (text + at, '\0', len - at);
      if (!nul)
        return len;
      at = (size_t) (nul - text) + 1;
    }
  return at;
}

/* Load the model of the snapshot of SIZE bytes at DATA: NULL if it is
   none.  No module: the symbolizer must not open the files the input
   names.  *T stays open (the caller closes it) as long as the model
   lives. */
static struct hi_model *
load (const uint8_t *data, size_t size, struct hi_target *t, int *fd)
{
  char path[64];
  struct hi_model *m = NULL;
  *fd = hi_fuzz_file (data, size, path);
  if (*fd < 0)
    return NULL;
  if (hi_target_open_snapshot (path, t) != HI_OK)
    {
      close (*fd);
      *fd = -1;
      return NULL;
    }
  if (hi_model_load (t, &m) != HI_OK)
    m = NULL;
  else
    m->n_modules = 0;
  hi_target_finish (t);
  return m;
}

static void
unload (struct hi_model *m, struct hi_target *t, int fd)
{
  if (fd < 0)
    return;
  hi_model_free (m);
  hi_target_close (t);
  close (fd);
}

/* The profile and timeline formats of M with OPT, each with every
   weight, from one analysis (as hi_report makes it). */
static void
every_weight (const struct hi_model *m, const struct hi_options *opt)
{
  struct hi_symbolizer *sym = hi_symbolizer_new (m, NULL);
  struct hi_analysis a;
  if (!sym || hi_analysis_init (&a, m, sym, opt) != HI_OK)
    {
      hi_symbolizer_free (sym);
      return;
    }
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = "fuzz";
  r.incomplete = hi_model_damaged (m) != 0;
  if (hi_samples_build (&a, &r) == HI_OK
      && hi_timeline_build (&a, &r) == HI_OK
      && hi_summary_build (m, &a, hi_symbolizer_missing (sym), &r) == HI_OK)
    for (int w = 0; w <= HI_WEIGHT_LAST; w++)
      for (int f = HI_PPROF; f < HI_NFORMATS; f++)
        {
          struct hi_options o = *opt;
          o.format = (enum hi_format) f;
          o.weight = (enum hi_weight) w;
          hi_emit (&r, &o, 0, hi_fuzz_sink ());
          if (f == HI_SVG)
            hi_emit (&r, &o, 1, hi_fuzz_sink ());
        }
  hi_rmodel_free (&r);
  hi_analysis_free (&a);
  hi_symbolizer_free (sym);
}

/* The suppressions parser on its own, and its matching of the patterns
   against the other fields: what the filters do with names. */
static void
suppressions (const char *text, size_t len, const char *const *names,
              size_t n_names)
{
  struct hi_suppressions s;
  hi_suppressions_init (&s);
  if (hi_suppressions_parse (&s, text, len, "fuzz") == HI_OK)
    for (size_t i = 0; i < n_names; i++)
      {
        hi_suppressions_match (&s, names[i]);
        for (uint32_t k = 0; k < s.n && k < 8; k++)
          hi_template_match (s.templ[k], names[i]);
      }
  hi_suppressions_free (&s);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct control c = { 0, 0, 0, 0, 0, 0, 0 };
  const char *text = "";
  size_t text_len = 0, snap_len = size;
  if (size >= CONTROL)
    {
      const uint8_t *p = data + size - CONTROL;
      c.text_len = le32 (p);
      c.split = le32 (p + 4);
      c.flip_at = le32 (p + 8);
      c.flip_xor = p[12];
      c.weight = p[13];
      c.flags = p[14];
      c.depth = p[15];
      snap_len = size - CONTROL;
      text_len = c.text_len < snap_len ? c.text_len : snap_len;
      snap_len -= text_len;
      text = (const char *) data + snap_len;
    }

  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.weight = (enum hi_weight) (c.weight % (HI_WEIGHT_LAST + 1));
  opt.offsets = c.flags & 1;
  opt.exact_bytes = (c.flags >> 1) & 1;
  opt.long_names = (c.flags >> 2) & 1;
  opt.lines = !((c.flags >> 3) & 1);
  opt.default_suppressions = !((c.flags >> 4) & 1);
  if (c.flags & 32)
    opt.threshold = 0;
  if (c.flags & 64)
    opt.verbosity = HI_TERSE;
  else if (c.flags & 128)
    opt.verbosity = HI_VERBOSE;
  if (c.depth)
    opt.depth = c.depth;
  char focus[PATTERN_MAX], ignore[PATTERN_MAX], module[PATTERN_MAX];
  opt.focus = field (text, text_len, 0, focus, sizeof focus);
  opt.ignore = field (text, text_len, 1, ignore, sizeof ignore);
  opt.module = field (text, text_len, 2, module, sizeof module);
  size_t sup_at = suppressions_at (text, text_len);
  char sup_path[64];
  int sup_fd = -1;
  if (sup_at < text_len)
    {
      sup_fd = hi_fuzz_file ((const uint8_t *) text + sup_at,
                             text_len - sup_at, sup_path);
      if (sup_fd >= 0)
        opt.suppressions = sup_path;
      const char *names[] = { focus, ignore, module, "main", "0x401136",
                              "[pool #1]" };
      suppressions (text + sup_at, text_len - sup_at, names,
                    sizeof names / sizeof names[0]);
    }
  /* What a host does first with the options, without any input. */
  hi_filters_check (&opt, NULL);

  /* A: the snapshot, or its bytes before SPLIT. */
  int split = c.split > 0 && c.split < snap_len;
  struct hi_target ta, tb;
  int fa, fb;
  struct hi_model *a = load (data, split ? c.split : snap_len, &ta, &fa);
  if (a)
    {
      for (int f = 0; f < HI_NFORMATS; f++)
        {
          struct hi_options o = opt;
          o.format = (enum hi_format) f;
          hi_report (a, NULL, "fuzz", f <= HI_JSON
                     ? "leaks,bins,direct,graph,stat,peak,temporary,"
                       "lifetimes,timeline,errors,types"
                     : HI_OPT_TABLES_DEFAULT, &o, hi_fuzz_sink (), NULL);
        }
      struct hi_options o = opt;
      o.format = HI_SVG;
      hi_report (a, NULL, "fuzz", "timeline", &o, hi_fuzz_sink (), NULL);
      every_weight (a, &opt);
    }

  /* B: the snapshot's bytes from SPLIT on, or the snapshot with a byte
     changed. */
  struct hi_model *b = NULL;
  fb = -1;
  if (split)
    b = load (data + c.split, snap_len - c.split, &tb, &fb);
  else if (snap_len > 0)
    {
      uint8_t *copy = malloc (snap_len);
      if (copy)
        {
          memcpy (copy, data, snap_len);
          copy[c.flip_at % snap_len] ^= c.flip_xor;
          b = load (copy, snap_len, &tb, &fb);
          free (copy);
        }
    }
  if (a && b)
    {
      struct hi_options o = opt;
      hi_diff_report (a, NULL, "A", b, NULL, "B", &o, hi_fuzz_sink ());
      o.format = HI_JSON;
      hi_diff_report (b, NULL, "B", a, NULL, "A", &o, hi_fuzz_sink ());
      hi_diff_report (a, NULL, "A", a, NULL, "A", &o, hi_fuzz_sink ());
    }
  unload (b, &tb, fb);
  unload (a, &ta, fa);
  if (sup_fd >= 0)
    close (sup_fd);
  return 0;
}
