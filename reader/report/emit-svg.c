/* emit-svg.c - a report's samples as a self-contained interactive SVG
   flame graph, as flamegraph.pl draws one: the chains merged into a tree
   by name from the root "all" (the same tree the folded output gives),
   one <g class="f"> per node, widths proportional to the weight; hover,
   zoom and search run in the inline script (svg-script.c). */
#include "report/rmodel.h"
#include "util/text.h"
#include "util/hash.h"
#include "report/svg-script.h"
#include "util/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Geometry, in pixels; the script uses the same X0, WIDTH and CHAR_W. */
#define IMAGE_W 1200
#define X0 10
#define WIDTH 1180
#define FRAME_H 16
#define TOP 60
#define BOTTOM 44
#define CHAR_W 7.08          /* 12px Verdana's mean advance, flamegraph.pl's */
/* Nodes under 1/MIN_SHARE of the whole (0.1 pixel) are not drawn. */
#define MIN_SHARE 10000
#define NONE UINT32_MAX

struct node
{
  const char *name;
  uint32_t parent, child, sibling;   /* first child, next sibling; NONE */
  uint32_t depth;
  uint64_t weight, bytes, blocks;    /* sums over the chains through it */
  uint64_t start;                    /* from the left, in weight units */
};

struct tree
{
  struct node *n;
  size_t len, cap;
  struct hi_hash index;              /* (parent, name) -> node */
  uint64_t *name_hash;               /* per report frame; 0: not yet */
};

struct key
{
  const struct tree *t;
  uint32_t parent;
  const char *name;
};

static int
key_eq (const void *ctx, uint32_t id)
{
  const struct key *k = ctx;
  const struct node *n = &k->t->n[id];
  return n->parent == k->parent && strcmp (n->name, k->name) == 0;
}

/* PARENT's child NAME (HASH: the name's hash), added if new; NONE if out
   of memory. */
static uint32_t
child_of (struct tree *t, uint32_t parent, const char *name, uint64_t hash)
{
  uint64_t h = hash ^ hi_hash_u64 (parent);
  struct key k = { t, parent, name };
  uint32_t id = hi_hash_find (&t->index, h, key_eq, &k);
  if (id != UINT32_MAX)
    return id;
  if (hi_grow_max ((void **) &t->n, &t->cap, t->len + 1, sizeof *t->n,
                   NONE) != 0)
    return NONE;
  id = (uint32_t) t->len;
  if (hi_hash_insert (&t->index, h, id) != 0)
    return NONE;
  struct node *n = &t->n[t->len++];
  memset (n, 0, sizeof *n);
  n->name = name;
  n->parent = parent;
  n->child = n->sibling = NONE;
  n->depth = t->n[parent].depth + 1;
  n->sibling = t->n[parent].child;
  t->n[parent].child = id;
  return id;
}

static void
add (struct node *n, uint64_t w, uint64_t bytes, uint64_t blocks)
{
  n->weight += w;
  n->bytes += bytes;
  n->blocks += blocks;
}

/* The tree of R's samples of weight W > 0; 0, or -1 if out of memory. */
static int
build (struct tree *t, const struct hi_rmodel *r, enum hi_weight weight)
{
  int inuse = weight == HI_WEIGHT_INUSE_SPACE
              || weight == HI_WEIGHT_INUSE_OBJECTS;
  int peak = weight == HI_WEIGHT_PEAK_SPACE
             || weight == HI_WEIGHT_PEAK_OBJECTS;
  t->name_hash = calloc (r->n_frames ? r->n_frames : 1, sizeof (uint64_t));
  if (hi_grow ((void **) &t->n, &t->cap, 1, sizeof *t->n) != 0
      || !t->name_hash)
    return -1;
  memset (&t->n[0], 0, sizeof t->n[0]);
  t->n[0].name = "all";
  t->n[0].parent = t->n[0].child = t->n[0].sibling = NONE;
  t->len = 1;
  static const char unknown[] = "[unknown]";
  uint64_t unknown_hash = hi_hash_bytes (unknown, sizeof unknown - 1);
  for (size_t i = 0; i < r->n_samples; i++)
    {
      const struct hi_rsample *s = &r->samples[i];
      uint64_t w = hi_sample_weight (s, weight);
      if (w == 0)
        continue;
      uint64_t bytes = peak ? s->peak_space
                       : inuse ? s->inuse_space : s->alloc_space;
      uint64_t blocks = peak ? s->peak_objects
                        : inuse ? s->inuse_objects : s->alloc_objects;
      uint32_t at = 0;
      add (&t->n[0], w, bytes, blocks);
      /* Locations innermost first: walk them backwards, root first. */
      for (uint64_t k = s->n; k-- > 0;)
        {
          const struct hi_rlocation *loc
            = &r->locations[r->sample_locs[s->first + k]];
          for (uint64_t j = loc->first; j < loc->first + loc->n; j++)
            {
              const char *name = r->frames[j].group;
              if (!t->name_hash[j])
                t->name_hash[j] = hi_hash_bytes (name, strlen (name)) | 1;
              at = child_of (t, at, name, t->name_hash[j]);
              if (at == NONE)
                return -1;
              add (&t->n[at], w, bytes, blocks);
            }
        }
      /* A chain with no frame, as the folded output writes it. */
      if (at == 0)
        {
          at = child_of (t, 0, unknown, unknown_hash);
          if (at == NONE)
            return -1;
          add (&t->n[at], w, bytes, blocks);
        }
    }
  return 0;
}

static int
by_name (const void *a, const void *b)
{
  const struct node *const *x = a, *const *y = b;
  return strcmp ((*x)->name, (*y)->name);
}

/* Each node's start: its siblings in name order from the parent's
   start, as flamegraph.pl lays them out.  Parents come before their
   children in T, so one pass in order does it.  0, or -1 (no memory). */
static int
layout (struct tree *t)
{
  struct node **kids = malloc (t->len * sizeof *kids);
  if (!kids)
    return -1;
  for (size_t i = 0; i < t->len; i++)
    {
      size_t m = 0;
      for (uint32_t c = t->n[i].child; c != NONE; c = t->n[c].sibling)
        kids[m++] = &t->n[c];
      qsort (kids, m, sizeof *kids, by_name);
      uint64_t at = t->n[i].start;
      for (size_t k = 0; k < m; k++)
        {
          kids[k]->start = at;
          at += kids[k]->weight;
        }
    }
  free (kids);
  return 0;
}

/* A growing string. */
struct text
{
  char *s;
  size_t n, cap;
};

static int
text_put (struct text *b, const char *s, size_t len)
{
  if (hi_grow ((void **) &b->s, &b->cap, b->n + len + 1, 1) != 0)
    return -1;
  memcpy (b->s + b->n, s, len);
  b->n += len;
  b->s[b->n] = '\0';
  return 0;
}

/* The length of the UTF-8 sequence at P that XML may carry (no
   overlong forms, surrogates, code points past U+10FFFF, U+FFFE or
   U+FFFF), or 0. */
static int
utf8_ok (const unsigned char *p)
{
  if (p[0] < 0x80)
    return 1;
  int n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
          : p[0] >= 0xe0 && p[0] <= 0xef ? 3
          : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                          : 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0)
      || (n == 3 && p[0] == 0xed && p[1] >= 0xa0)
      || (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
      || (n == 4 && p[0] == 0xf0 && p[1] < 0x90)
      || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
    return 0;
  return n;
}

/* NAME as the graph shows it, into B (replacing its content): control
   characters as \xHH like hi_escape (C1 ones too, as their two UTF-8
   bytes), bytes that are not UTF-8 a document may hold as U+FFFD.  The
   result is text XML accepts once its markup characters are escaped. */
static int
clean_name (struct text *b, const char *name)
{
  static const char hex[] = "0123456789abcdef";
  b->n = 0;
  if (text_put (b, "", 0) != 0)
    return -1;
  for (const unsigned char *p = (const unsigned char *) name; *p;)
    {
      int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
      if (*p < 0x20 || *p == 0x7f || c1)
        {
          for (int k = 0; k < 1 + c1; k++)
            {
              char e[4] = { '\\', 'x', hex[p[k] >> 4], hex[p[k] & 15] };
              if (text_put (b, e, 4) != 0)
                return -1;
            }
          p += 1 + c1;
          continue;
        }
      int n = utf8_ok (p);
      if (text_put (b, n ? (const char *) p : "\xef\xbf\xbd", n ? (size_t) n
                                                                : 3) != 0)
        return -1;
      p += n ? n : 1;
    }
  return 0;
}

/* S, which clean_name made, as XML character data or attribute value. */
static void
xml_put (const char *s, FILE *f)
{
  for (; *s; s++)
    switch (*s)
      {
      case '<':
        fputs ("&lt;", f);
        break;
      case '>':
        fputs ("&gt;", f);
        break;
      case '&':
        fputs ("&amp;", f);
        break;
      case '"':
        fputs ("&quot;", f);
        break;
      case '\'':
        fputs ("&apos;", f);
        break;
      default:
        fputc (*s, f);
      }
}

/* Name S, cleaned and escaped (SCRATCH: a buffer to clean it in). */
static int
put_name (struct text *scratch, const char *s, FILE *f)
{
  if (clean_name (scratch, s ? s : "") != 0)
    return -1;
  xml_put (scratch->s, f);
  return 0;
}

int
hi_svg_put_text (const char *s, FILE *f)
{
  struct text scratch = { NULL, 0, 0 };
  int rc = put_name (&scratch, s, f);
  free (scratch.s);
  return rc;
}

/* The label a frame WIDTH pixels wide shows of clean name S: all of it,
   its first code points and "..", or nothing; the script's fit(). */
static void
put_label (char *s, double width, FILE *f)
{
  double room = (width - 6) / CHAR_W;
  size_t fit = room > 0 ? (size_t) room : 0;
  size_t cps = 0;
  for (const char *p = s; *p; p++)
    cps += ((unsigned char) *p & 0xc0) != 0x80;
  if (cps <= fit)
    {
      xml_put (s, f);
      return;
    }
  if (fit < 3)
    return;
  /* The first FIT - 2 code points. */
  size_t keep = fit - 2, at = 0;
  char *p = s;
  for (; *p; p++)
    if (((unsigned char) *p & 0xc0) != 0x80 && at++ == keep)
      break;
  char save = *p;
  *p = '\0';
  xml_put (s, f);
  *p = save;
  fputs ("..", f);
}

/* A colour from flamegraph.pl's warm palette, the same for a name in
   every graph: FNV-1a of the name (not the keyed hash, which changes
   from run to run). */
static void
put_colour (const char *name, FILE *f)
{
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *) name; *p; p++)
    h = (h ^ *p) * 16777619u;
  double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
         v3 = ((h >> 16) & 0xff) / 255.0;
  fprintf (f, "rgb(%d,%d,%d)", 205 + (int) (50 * v3), (int) (230 * v1),
           (int) (55 * v2));
}

/* PART of WHOLE in hundredths of a percent, rounded half up, as
   "12.34%". */
static void
put_pct (uint64_t part, uint64_t whole, FILE *f)
{
  uint64_t q;
#ifdef __SIZEOF_INT128__
  q = (uint64_t) (((unsigned __int128) part * 20000 + whole)
                  / ((unsigned __int128) whole * 2));
#else
  q = (uint64_t) ((long double) part * 10000 / whole + 0.5L);
#endif
  fprintf (f, "%" PRIu64 ".%02" PRIu64 "%%", q / 100, q % 100);
}

/* What the weight is, for people: the heading, and what percentages
   are of. */
/* Node N's two title lines: its name, then its figures. */
static int
put_title (struct text *scratch, const struct node *n, uint64_t total,
           enum hi_weight w, FILE *f)
{
  int inuse = w == HI_WEIGHT_INUSE_SPACE || w == HI_WEIGHT_INUSE_OBJECTS;
  int peak = w == HI_WEIGHT_PEAK_SPACE || w == HI_WEIGHT_PEAK_OBJECTS;
  fputs ("<title>", f);
  if (put_name (scratch, n->name, f) != 0)
    return -1;
  fprintf (f, "\n%" PRIu64 " bytes", n->bytes);
  if (n->bytes >= 1024)
    {
      char h[32];
      hi_human_bytes (n->bytes, h, sizeof h);
      fprintf (f, " (%s)", h);
    }
  fprintf (f, " %s, %" PRIu64 " %s%s, ", peak ? "live at the peak"
           : inuse ? "in use" : "allocated", n->blocks,
           inuse || peak ? "block" : "allocation", n->blocks == 1 ? "" : "s");
  put_pct (n->weight, total, f);
  fprintf (f, " of %s</title>", hi_weight_title (w));
  return 0;
}

static int
put_frames (const struct tree *t, uint64_t total, uint64_t min_weight,
            uint32_t max_depth, enum hi_weight w, struct text *scratch,
            FILE *f)
{
  fputs ("<g id=\"frames\">\n", f);
  for (size_t i = 0; i < t->len; i++)
    {
      const struct node *n = &t->n[i];
      if (n->weight < min_weight)
        continue;
      double x = X0 + (double) n->start * WIDTH / (double) total;
      double width = (double) n->weight * WIDTH / (double) total;
      uint32_t y = TOP + (max_depth - n->depth) * FRAME_H;
      fprintf (f, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-w=\"%" PRIu64
               "\" data-d=\"%" PRIu32 "\">", n->start, n->weight, n->depth);
      if (put_title (scratch, n, total, w, f) != 0)
        return -1;
      fprintf (f, "<rect x=\"%.2f\" y=\"%" PRIu32 "\" width=\"%.2f\" "
               "height=\"%d\" rx=\"2\" fill=\"", x, y, width, FRAME_H - 1);
      put_colour (n->name, f);
      fprintf (f, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3,
               y + FRAME_H - 4.5);
      put_label (scratch->s, width, f);
      fputs ("</text></g>\n", f);
    }
  fputs ("</g>\n", f);
  return 0;
}

static void
put_head (const struct hi_rmodel *r, const struct hi_emit_options *o,
          struct text *scratch, uint32_t height, FILE *f)
{
  const char *what = hi_weight_title (o->weight);
  fprintf (f,
           "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
           "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
           "width=\"%d\" height=\"%" PRIu32 "\" viewBox=\"0 0 %d %" PRIu32
           "\" font-family=\"Verdana, 'DejaVu Sans', sans-serif\" "
           "font-size=\"12\">\n<title>heapinspect flame graph of %s (%s): ",
           IMAGE_W, height, IMAGE_W, height, what, hi_weight_name (o->weight));
  put_name (scratch, r->source, f);
  fprintf (f, "</title>\n<style>\n%s</style>\n", hi_svg_style);
  fputs ("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" "
         "x1=\"0\" x2=\"0\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
         "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient>"
         "</defs>\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
         "fill=\"url(#background)\"/>\n", f);
  fprintf (f, "<text id=\"heading\" x=\"%d\" y=\"24\" text-anchor=\"middle\" "
           "font-size=\"17\">Flame graph: %s (%s)</text>\n", IMAGE_W / 2, what,
           hi_weight_name (o->weight));
  fprintf (f, "<text id=\"source\" x=\"%d\" y=\"44\" text-anchor=\"middle\">",
           IMAGE_W / 2);
  put_name (scratch, r->source, f);
  if (r->has_summary && r->summary.command)
    {
      fputs (": ", f);
      put_name (scratch, r->summary.command, f);
    }
  if (r->incomplete)
    fputs (" (damaged input: figures are partial)", f);
  fputs ("</text>\n", f);
}

hi_status
hi_emit_svg (const struct hi_rmodel *r, const struct hi_emit_options *o,
             FILE *f)
{
  struct tree t;
  memset (&t, 0, sizeof t);
  hi_hash_init (&t.index);
  struct text scratch = { NULL, 0, 0 };
  hi_status s = HI_E_NOMEM;
  if (build (&t, r, o->weight) != 0 || layout (&t) != 0
      || clean_name (&scratch, "") != 0)
    goto out;
  uint64_t total = t.n[0].weight;
  /* Ceiling of TOTAL / MIN_SHARE, and at least 1: no empty frame. */
  uint64_t min_weight = total / MIN_SHARE + (total % MIN_SHARE != 0);
  if (min_weight == 0)
    min_weight = 1;
  uint32_t max_depth = 0;
  uint64_t omitted = 0, omitted_weight = 0;
  for (size_t i = 0; i < t.len && total; i++)
    if (t.n[i].weight >= min_weight)
      max_depth = t.n[i].depth > max_depth ? t.n[i].depth : max_depth;
    else
      {
        omitted++;
        if (t.n[t.n[i].parent].weight >= min_weight)
          omitted_weight += t.n[i].weight;
      }
  uint32_t height = TOP + (total ? max_depth + 1 : 2) * FRAME_H + BOTTOM;
  put_head (r, o, &scratch, height, f);
  if (total == 0)
    {
      char why[256];
      hi_weight_empty_hint (r, o->weight, why, sizeof why);
      fprintf (f, "<text id=\"empty\" x=\"%d\" y=\"%d\" "
               "text-anchor=\"middle\">Nothing to show: ", IMAGE_W / 2,
               TOP + FRAME_H);
      hi_svg_put_text (why, f);
      fputs (".</text>\n", f);
    }
  else
    {
      if (put_frames (&t, total, min_weight, max_depth, o->weight, &scratch,
                      f) != 0)
        goto out;
      fprintf (f, "<text id=\"reset\" class=\"ctl hide\" x=\"%d\" y=\"24\">"
               "Reset Zoom</text>\n<text id=\"search\" class=\"ctl\" "
               "x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n",
               X0, IMAGE_W - X0);
      fprintf (f, "<text id=\"details\" x=\"%d\" y=\"%" PRIu32 "\"> </text>\n"
               "<text id=\"matched\" x=\"%d\" y=\"%" PRIu32 "\" "
               "text-anchor=\"end\"></text>\n", X0, height - 24,
               IMAGE_W - X0, height - 24);
      if (omitted)
        {
          fprintf (f, "<text id=\"note\" x=\"%d\" y=\"%" PRIu32 "\">%" PRIu64
                   " frame%s under 0.01%% of the whole not drawn (", X0,
                   height - 6, omitted, omitted == 1 ? "" : "s");
          put_pct (omitted_weight, total, f);
          fprintf (f, " of %s).</text>\n", hi_weight_title (o->weight));
        }
      fprintf (f, "<script type=\"text/ecmascript\"><![CDATA[\n"
               "var hiTotal = %" PRIu64 ", hiOf = '%s';\n%s]]></script>\n",
               total, hi_weight_title (o->weight), hi_svg_script);
    }
  fputs ("</svg>\n", f);
  s = fflush (f) != 0 || ferror (f) ? HI_E_WRITE : HI_OK;
out:
  free (scratch.s);
  free (t.n);
  free (t.name_hash);
  hi_hash_free (&t.index);
  return s;
}
