/* emit-text.c - a report as text for a person: the summary first, then
   each table with its columns aligned whatever the widths, bytes in human
   units unless --bytes, and one line for each kind of row left out. */
#define _GNU_SOURCE
#include "util/text.h"
#include "report/rmodel.h"
#include "report/timetab.h"
#include "util/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


static void
bytes_text (const struct hi_emit_options *o, uint64_t v, char *out,
            size_t size)
{
  if (o->exact_bytes)
    snprintf (out, size, "%" PRIu64, v);
  else
    hi_human_bytes (v, out, size);
}

/* A signed change: "+", "-" or nothing for 0, then its size (bytes in
   human units unless --bytes). */
static void
delta_text (const struct hi_emit_options *o, const struct hi_cell *c,
            char *out, size_t size)
{
  int64_t d = hi_cell_signed (c);
  /* The magnitude, also of INT64_MIN. */
  uint64_t mag = d < 0 ? (uint64_t) 0 - (uint64_t) d : (uint64_t) d;
  char num[48];
  if (c->type == HI_CELL_DELTA_BYTES)
    bytes_text (o, mag, num, sizeof num);
  else
    snprintf (num, sizeof num, "%" PRIu64, mag);
  snprintf (out, size, "%s%s", d > 0 ? "+" : d < 0 ? "-" : "", num);
}

/* A growing string. */
struct buf
{
  char *s;
  size_t n, cap;
  int nomem;
};

static void
put (struct buf *b, const char *s)
{
  size_t len = strlen (s);
  if (hi_grow ((void **) &b->s, &b->cap, b->n + len + 1, 1) != 0)
    {
      b->nomem = 1;
      return;
    }
  memcpy (b->s + b->n, s, len + 1);
  b->n += len;
}

/* The base name of a source file path. */
static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* " (file.c:12)" of frame F into B, if it has a line. */
static void
frame_line (const struct hi_rframe *f, struct buf *b)
{
  if (f && !f->cut && f->file && f->line)
    {
      char where[64];
      snprintf (where, sizeof where, ":%" PRIu32 ")", f->line);
      put (b, " (");
      put (b, base_name (f->file));
      put (b, where);
    }
}

/* The frames of a PATH cell, "a > b > c", then where the innermost
   frame is in the source; with EVERY, where each frame is, after it:
   "a (x.c:9) > b (x.c:3)". */
static void
path_text (const struct hi_rmodel *r, const struct hi_emit_options *o,
           const struct hi_cell *c, int every, struct buf *b)
{
  if (c->whole == 0)
    {
      put (b, "<no call chain recorded>");
      return;
    }
  const struct hi_rframe *last = NULL;
  for (uint64_t i = c->v; i < c->v + c->whole && i < r->n_frames; i++)
    {
      if (i > c->v)
        put (b, " > ");
      put (b, r->frames[i].cut ? "..." : r->frames[i].label);
      last = &r->frames[i];
      if (o->lines && every)
        frame_line (last, b);
    }
  if (o->lines && !every)
    frame_line (last, b);
}

/* Cell C as text into B. */
static void
cell_text (const struct hi_rmodel *r, const struct hi_emit_options *o,
           const struct hi_column *col, const struct hi_cell *c,
           struct buf *b)
{
  char t[64];
  if (col->blank_zero && c->v == 0
      && (c->type == HI_CELL_COUNT || c->type == HI_CELL_BYTES))
    return;
  switch (c->type)
    {
    case HI_CELL_EMPTY:
    case HI_CELL_JSON:
      return;
    case HI_CELL_COUNT:
      snprintf (t, sizeof t, "%" PRIu64, c->v);
      break;
    case HI_CELL_BYTES:
      bytes_text (o, c->v, t, sizeof t);
      break;
    case HI_CELL_PCT2:
      {
        char p[3];
        hi_pct2 (p, c->v, c->whole);
        snprintf (t, sizeof t, col->paren ? "(%s)" : "%s", p);
      }
      break;
    case HI_CELL_RATIO:
      snprintf (t, sizeof t, "%" PRIu64 "/%" PRIu64, c->v, c->whole);
      break;
    case HI_CELL_SUM:
      snprintf (t, sizeof t, "%" PRIu64 "+%" PRIu64, c->v, c->whole);
      break;
    case HI_CELL_REF:
      snprintf (t, sizeof t, "[%" PRIu64 "]", c->v);
      break;
    case HI_CELL_DELTA:
    case HI_CELL_DELTA_BYTES:
      delta_text (o, c, t, sizeof t);
      break;
    case HI_CELL_RATE:
      snprintf (t, sizeof t, "%.4f", c->whole == 0 ? 0.0
                : c->v >= c->whole ? 1.0 : (double) c->v / (double) c->whole);
      break;
    case HI_CELL_MS:
      snprintf (t, sizeof t, "%" PRIu64 ".%03" PRIu64, c->v / 1000000,
                c->v / 1000 % 1000);
      break;
    case HI_CELL_TEXT:
      {
        const char *text = c->text ? c->text : "";
        size_t len = strlen (text);
        if (col->max_width > 3 && len > col->max_width)
          {
            /* Cut at a character's start, never inside UTF-8. */
            size_t cut = col->max_width - 3;
            while (cut > 0 && (text[cut] & 0xc0) == 0x80)
              cut--;
            char *part = strndup (text, cut);
            if (part)
              {
                put (b, part);
                put (b, "...");
                free (part);
                return;
              }
          }
        put (b, text);
      }
      return;
    case HI_CELL_PATH:
      path_text (r, o, c, col->every_line, b);
      return;
    }
  put (b, t);
}

void
hi_threshold_text (int32_t thr, char *out, size_t size)
{
  if (thr < 0)
    thr = 0;
  int n = snprintf (out, size, "%d.%03d", thr / 1000, thr % 1000);
  while (n > 0 && out[n - 1] == '0')
    out[--n] = '\0';
  if (n > 0 && out[n - 1] == '.')
    out[--n] = '\0';
  snprintf (out + n, size - (size_t) n, "%%");
}

static void
notes (const struct hi_table *t, const struct hi_emit_options *o, FILE *f)
{
  char thr[32], b1[32];
  if (t->below_threshold)
    {
      hi_threshold_text (t->threshold, thr, sizeof thr);
      fprintf (f, "(%" PRIu64 " more below %s: --threshold=0 shows them)\n",
               t->below_threshold, thr);
    }
  if (t->over_limit)
    fprintf (f, "(%" PRIu64 " more past the limit: --limit=0 shows them)\n", t->over_limit);
  if (t->filtered)
    fprintf (f, "(%" PRIu64 " chains left out by --focus, --ignore or --module)\n",
             t->filtered);
  if (t->suppressed)
    {
      bytes_text (o, t->suppressed_bytes, b1, sizeof b1);
      fprintf (f, "(%" PRIu64 " suppressed by --suppressions, %s kept)\n",
               t->suppressed, b1);
    }
  if (t->suppressed_default)
    {
      bytes_text (o, t->suppressed_default_bytes, b1, sizeof b1);
      fprintf (f, "(%" PRIu64 " suppressed as glibc's and libstdc++'s "
               "one-time buffers, %s kept: --no-default-suppressions "
               "shows them)\n", t->suppressed_default, b1);
    }
}

/* Rows of the call graph other than entries are indented under them. */
static int
indented (enum hi_row_role role)
{
  return role == HI_ROW_CALLER || role == HI_ROW_CALLEE
         || role == HI_ROW_MEMBER || role == HI_ROW_ALL;
}

static void
emit_keyvalue (const struct hi_rmodel *r, const struct hi_emit_options *o,
               const struct hi_table *t, FILE *f)
{
  for (size_t i = 0; i < t->n_rows; i++)
    {
      if (t->rows[i].json_only)
        continue;
      struct buf k = { 0 }, v = { 0 };
      cell_text (r, o, &t->columns[0], &t->rows[i].cells[0], &k);
      cell_text (r, o, &t->columns[1], &t->rows[i].cells[1], &v);
      fprintf (f, "%s: %s\n", k.s ? k.s : "", v.s ? v.s : "");
      free (k.s);
      free (v.s);
    }
}

static void
emit_prose (const struct hi_rmodel *r, const struct hi_emit_options *o,
            const struct hi_table *t, FILE *f)
{
  for (size_t i = 0; i < t->n_rows; i++)
    {
      if (t->rows[i].json_only)
        continue;
      struct buf b = { 0 };
      for (size_t c = 0; c < t->n_columns; c++)
        if (t->columns[c].head)
          cell_text (r, o, &t->columns[c], &t->rows[i].cells[c], &b);
      fprintf (f, "%s\n", b.s ? b.s : "");
      free (b.s);
    }
  notes (t, o, f);
}

/* The chart of the report's timeline, as ms_print draws massif's: live
   bytes up, the bytes allocated and freed across, a column per
   CHART_W-th of them holding the most live bytes of its points (or, with none, the
   last point's before it), drawn with ':', '@' where a detailed point
   (or now) is, '#' at the peak. */
#define CHART_W 72
#define CHART_H 20

static void
emit_chart (const struct hi_rmodel *r, const struct hi_emit_options *o,
            FILE *f)
{
  const struct hi_rtimeline *tl = &r->timeline;
  if (tl->n_points == 0)
    return;
  uint64_t ymax = 0, xmax = tl->points[tl->n_points - 1].moved;
  for (size_t i = 0; i < tl->n_points; i++)
    if (tl->points[i].bytes > ymax)
      ymax = tl->points[i].bytes;
  uint64_t height[CHART_W];
  char mark[CHART_W];
  int has[CHART_W];
  memset (height, 0, sizeof height);
  memset (has, 0, sizeof has);
  memset (mark, ':', sizeof mark);
  for (size_t i = 0; i < tl->n_points; i++)
    {
      const struct hi_rpoint *p = &tl->points[i];
      size_t x = xmax ? (size_t) ((long double) p->moved * CHART_W / xmax)
                      : CHART_W - 1;
      if (x >= CHART_W)
        x = CHART_W - 1;
      if (!has[x] || p->bytes > height[x])
        height[x] = p->bytes;
      has[x] = 1;
      if (i == tl->peak)
        mark[x] = '#';
      else if (p->kind != HI_RPOINT_PLAIN && mark[x] != '#')
        mark[x] = '@';
    }
  /* A column with no point: the last point's bytes before it. */
  uint64_t carry = 0;
  for (size_t x = 0; x < CHART_W; x++)
    {
      size_t last = 0;
      for (size_t i = 0; i < tl->n_points; i++)
        {
          size_t px = xmax ? (size_t) ((long double) tl->points[i].moved
                                       * CHART_W / xmax) : CHART_W - 1;
          if (px <= x)
            last = i + 1;
        }
      if (!has[x])
        height[x] = carry;
      carry = last ? tl->points[last - 1].bytes : 0;
    }
  char top[32], right[32];
  if (o->exact_bytes)
    {
      snprintf (top, sizeof top, "%" PRIu64, ymax);
      snprintf (right, sizeof right, "%" PRIu64, xmax);
    }
  else
    {
      hi_human_bytes (ymax, top, sizeof top);
      hi_human_bytes (xmax, right, sizeof right);
    }
  int lw = (int) strlen (top);
  fprintf (f, "%*s  live bytes (':' a point, '@' a detailed one or now, "
           "'#' the peak)\n", lw, "");
  for (int y = CHART_H; y >= 1; y--)
    {
      char line[CHART_W + 1];
      size_t end = 0;
      for (size_t x = 0; x < CHART_W; x++)
        {
          /* Filled where the bytes reach this row's share of the top. */
          int on = ymax && (long double) height[x] * CHART_H
                           >= (long double) y * ymax;
          line[x] = on ? mark[x] : ' ';
          if (on)
            end = x + 1;
        }
      line[end] = '\0';
      fprintf (f, "%*s %c%s\n", lw, y == CHART_H ? top : "",
               y == CHART_H ? '^' : '|', line);
    }
  fprintf (f, "%*s +", lw, "0");
  for (int x = 0; x < CHART_W; x++)
    fputc ('-', f);
  fputs ("> bytes allocated and freed (alloc+free)\n", f);
  fprintf (f, "%*s  0%*s\n\n", lw, "", CHART_W - 1, right);
}

/* A table's grid as text: every shown cell's text, and the columns'
   widths. */
struct grid
{
  size_t nc, nr;
  char **text;               /* text[row * nc + column], or NULL */
  size_t *width;
  int *shown;                /* the column has a heading: text shows it */
  size_t last;               /* the last column shown */
  size_t total;              /* the widths shown, with their gaps */
};

static void
grid_free (struct grid *g)
{
  if (g->text)
    for (size_t i = 0; i < g->nr * g->nc; i++)
      free (g->text[i]);
  free (g->text);
  free (g->width);
  free (g->shown);
}

/* Whether column C of T has no heading of its own: the heading of a
   column before it spans it. */
static int
spanned (const struct hi_table *t, const struct grid *g, size_t c)
{
  return c < g->nc && g->shown[c] && !t->columns[c].head;
}

/* Every cell's text of T into G, and each column's width: its widest
   text or second heading. */
static void
grid_cells (const struct hi_rmodel *r, const struct hi_emit_options *o,
            const struct hi_table *t, struct grid *g)
{
  size_t nc = g->nc;
  for (size_t c = 0; c < nc; c++)
    {
      const struct hi_column *col = &t->columns[c];
      g->shown[c] = col->head != NULL || col->head2 != NULL;
      if (col->head2)
        g->width[c] = strlen (col->head2);
    }
  for (size_t i = 0; i < g->nr; i++)
    for (size_t c = 0; c < nc; c++)
      if (g->shown[c] && !t->rows[i].json_only)
        {
          struct buf b = { 0 };
          if (t->columns[c].left && indented (t->rows[i].role))
            put (&b, "    ");
          cell_text (r, o, &t->columns[c], &t->rows[i].cells[c], &b);
          g->text[i * nc + c] = b.s;
          if (b.s && b.n > g->width[c])
            g->width[c] = b.n;
        }
}

/* A first-line heading spans the columns after it that have none
   ("% mem(size)" over s m l x): the span's last column widens if the
   heading is longer than the span.  Then G's last column and total
   width. */
static void
grid_spans (const struct hi_table *t, struct grid *g)
{
  for (size_t c = 0; c < g->nc; c++)
    if (g->shown[c] && t->columns[c].head)
      {
        size_t end = c, span = g->width[c];
        while (spanned (t, g, end + 1))
          end++, span += g->width[end] + 2;
        size_t len = strlen (t->columns[c].head);
        if (len > span)
          g->width[end] += len - span;
      }
  for (size_t c = 0; c < g->nc; c++)
    if (g->shown[c])
      g->last = c, g->total += g->width[c] + 2;
}

/* B's line to F without its trailing blanks. */
static void
put_line (struct buf *b, FILE *f)
{
  while (b->n > 0 && b->s[b->n - 1] == ' ')
    b->s[--b->n] = '\0';
  fprintf (f, "%s\n", b->s);
}

/* The headings of G's columns, one or two lines. */
static void
emit_headings (const struct hi_table *t, const struct grid *g, FILE *f)
{
  for (int line = 0; line < 2; line++)
    {
      int any = 0;
      struct buf b = { 0 };
      for (size_t c = 0; c < g->nc; c++)
        {
          if (!g->shown[c])
            continue;
          const struct hi_column *col = &t->columns[c];
          const char *h = line == 0 ? col->head : col->head2;
          size_t w = g->width[c], end = c;
          if (line == 0 && h)
            while (spanned (t, g, end + 1))
              end++, w += g->width[end] + 2;
          else if (line == 0 && !h && c > 0)
            continue;           /* under the spanning heading before it */
          any |= h != NULL;
          char cell[512];
          int left = col->left || end > c;
          if (end == g->last && left)
            snprintf (cell, sizeof cell, "%s", h ? h : "");
          else
            snprintf (cell, sizeof cell, left ? "%-*s  " : "%*s  ", (int) w,
                      h ? h : "");
          put (&b, cell);
          c = end;
        }
      if (any && b.s)
        put_line (&b, f);
      free (b.s);
    }
}

/* G's rows, each cell padded to its column's width, a rule between the
   call graph's groups. */
static void
emit_rows (const struct hi_table *t, const struct grid *g, FILE *f)
{
  size_t rule = g->total < 78 ? g->total : 78;
  for (size_t i = 0; i < g->nr; i++)
    {
      if (t->rows[i].json_only)
        continue;
      if (i > 0 && t->rows[i].group != t->rows[i - 1].group)
        {
          for (size_t k = 0; k < rule; k++)
            fputc ('-', f);
          fputc ('\n', f);
        }
      struct buf b = { 0 };
      for (size_t c = 0; c < g->nc; c++)
        {
          if (!g->shown[c])
            continue;
          const char *s = g->text[i * g->nc + c] ? g->text[i * g->nc + c]
                                                 : "";
          size_t len = strlen (s);
          int left = t->columns[c].left;
          if (c == g->last && left)
            put (&b, s);
          else
            {
              for (size_t k = len; !left && k < g->width[c]; k++)
                put (&b, " ");
              put (&b, s);
              for (size_t k = len; left && k < g->width[c]; k++)
                put (&b, " ");
              put (&b, "  ");
            }
        }
      if (b.s)
        put_line (&b, f);
      free (b.s);
    }
}

/* T as a grid: headings, then rows with their columns aligned, then
   the rows left out. */
static void
emit_grid (const struct hi_rmodel *r, const struct hi_emit_options *o,
           const struct hi_table *t, FILE *f)
{
  struct grid g = { .nc = t->n_columns, .nr = t->n_rows };
  /* Every cell's text first, for the widths. */
  g.text = calloc (g.nr * g.nc + 1, sizeof *g.text);
  g.width = calloc (g.nc + 1, sizeof *g.width);
  g.shown = calloc (g.nc + 1, sizeof *g.shown);
  if (!g.text || !g.width || !g.shown)
    {
      grid_free (&g);
      fputs ("heapinspect: out of memory\n", f);
      return;
    }
  grid_cells (r, o, t, &g);
  grid_spans (t, &g);
  emit_headings (t, &g, f);
  emit_rows (t, &g, f);
  grid_free (&g);
  notes (t, o, f);
}

static void
emit_table (const struct hi_rmodel *r, const struct hi_emit_options *o,
            const struct hi_table *t, FILE *f)
{
  /* A table without a title is the report's only one, for scripts: its
     rows alone (`-t stat`). */
  if (t->title)
    {
      fprintf (f, "--------- %s ---------\n", t->title);
      if (t->legend)
        fprintf (f, "%s\n", t->legend);
      /* A table of no columns is its legend alone (no time data). */
      if ((t->n_columns > 0 && !(t->prose && t->n_rows == 0)) || t->keyvalue)
        fputc ('\n', f);
    }
  if (t->keyvalue)
    {
      emit_keyvalue (r, o, t, f);
      return;
    }
  if (t->prose)
    {
      emit_prose (r, o, t, f);
      return;
    }
  if (t->chart)
    emit_chart (r, o, f);
  emit_grid (r, o, t, f);
}

static const char *
plural (uint64_t n)
{
  return n == 1 ? "" : "s";
}

static void
emit_summary (const struct hi_rmodel *r, const struct hi_emit_options *o,
              FILE *f)
{
  const struct hi_summary *s = &r->summary;
  char a[32], b[32], run[32];
  fprintf (f, "heapinspect report of %s\n", r->source ? r->source : "?");
  if (s->command || s->pid)
    {
      fprintf (f, "  command    %s", s->command ? s->command : "(not recorded)");
      if (s->pid)
        fprintf (f, "  (pid %" PRIu64 ")", s->pid);
      /* Attached: the time attached, the periods summed. */
      uint64_t ran = s->attached ? s->attached_ns : s->run_ns;
      if (ran)
        {
          hi_duration_text (ran, run, sizeof run);
          fprintf (f, ", %s %s%s", s->attached ? "attached for" : "ran", run,
                   s->run_until_core ? " until its core was written" : "");
        }
      fputc ('\n', f);
      if (s->attached)
        fprintf (f, "  attached   while it ran: what it allocated before is "
                 "not counted, and its frees of that are foreign_frees\n");
      if (s->detached)
        {
          char ago[32] = "";
          if (s->detached_ns)
            {
              hi_duration_text (s->detached_ns, ago, sizeof ago);
              strcat (ago, " ago");
            }
          else
            strcpy (ago, "since");
          fprintf (f, "  detached   %s%s%s%s: the figures are those of "
                   "the attached time, not the program's now\n", ago,
                   s->attached_ns ? ", after " : "",
                   s->attached_ns ? run : "",
                   s->attached_ns ? " attached" : "");
        }
      if (s->attached && s->foreign_counted == 2)
        {
          bytes_text (o, s->foreign_bytes, a, sizeof a);
          fprintf (f, "  glibc      %" PRIu64 " block%s, %s (usable sizes) "
                   "in use just before the attach, not made through the "
                   "monitor (no chains; its heap at the end is gone)\n",
                   s->foreign_blocks, plural (s->foreign_blocks), a);
        }
      else if (s->attached && s->foreign_counted)
        {
          bytes_text (o, s->foreign_bytes, a, sizeof a);
          fprintf (f, "  glibc      %" PRIu64 " block%s, %s (usable sizes) "
                   "in use not made through the monitor: allocated before "
                   "the attach, or by the loader or glibc itself (no "
                   "chains)\n",
                   s->foreign_blocks, plural (s->foreign_blocks), a);
        }
      else if (s->attached && s->foreign_why)
        fprintf (f, "  glibc      blocks not made through the monitor "
                 "(before the attach) not counted: %s\n", s->foreign_why);
    }
  bytes_text (o, s->bytes_allocated, a, sizeof a);
  bytes_text (o, s->bytes_freed, b, sizeof b);
  fprintf (f, "  allocated  %s in %" PRIu64 " block%s, freed %s in %" PRIu64
           " block%s\n", a, s->allocations, plural (s->allocations), b,
           s->frees, plural (s->frees));
  bytes_text (o, s->peak_bytes, a, sizeof a);
  bytes_text (o, s->live_bytes, b, sizeof b);
  fprintf (f, "  peak       %s in %" PRIu64 " block%s; live when read: %s in %"
           PRIu64 " block%s\n", a, s->peak_blocks, plural (s->peak_blocks), b,
           s->live_blocks, plural (s->live_blocks));
  if (s->cut_chains)
    {
      bytes_text (o, s->cut_bytes, a, sizeof a);
      fprintf (f, "  deeper     %s in %" PRIu64 " allocation%s whose chains "
               "the depth cap cut (%" PRIu32 " frames; HEAPINSPECT_DEPTH "
               "raises it)\n", a, s->cut_allocs, plural (s->cut_allocs),
               s->depth_cap);
    }
  bytes_text (o, s->monitor_bytes, a, sizeof a);
  fprintf (f, "  monitor    %s of its own memory\n", a);
  if (s->quarantine_limit || s->redzone)
    {
      fputs ("  guards    ", f);
      if (s->quarantine_limit)
        {
          bytes_text (o, s->quarantine_limit, a, sizeof a);
          bytes_text (o, s->quarantine_bytes, b, sizeof b);
          fprintf (f, " quarantine %s (%s held)%s", a, b,
                   s->redzone ? "," : "");
        }
      if (s->redzone)
        fprintf (f, " redzone %" PRIu32 " byte%s", s->redzone,
                 plural (s->redzone));
      fputc ('\n', f);
    }
  if (s->errors_total)
    {
      fprintf (f, "  errors     %" PRIu64 " heap error%s found", s->errors_total,
               plural (s->errors_total));
      if (s->errors_recorded < s->errors_total)
        fprintf (f, ", the first %" PRIu64 " recorded", s->errors_recorded);
      fputs (s->gdb ? ": heap errors lists them\n"
             : ": -t errors lists them\n", f);
    }
  /* Twelve lines at most: four for problems, the last counting the rest. */
  for (size_t i = 0; i < s->n_problems && i < 4; i++)
    if (i == 3 && s->n_problems > 4)
      fprintf (f, "  problem    and %zu more (--format=json lists them)\n",
               s->n_problems - 3);
    else
      fprintf (f, "  problem    %s\n", s->problems[i]);
}

hi_status
hi_emit_text (const struct hi_rmodel *r, const struct hi_emit_options *o,
              FILE *f)
{
  if (r->has_summary)
    emit_summary (r, o, f);
  for (size_t t = 0; t < r->n_tables; t++)
    {
      if (r->has_summary || t > 0)
        fputc ('\n', f);
      emit_table (r, o, &r->tables[t], f);
    }
  return HI_OK;
}
