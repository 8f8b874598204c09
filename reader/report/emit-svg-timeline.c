/* emit-svg-timeline.c - a report's timeline as a self-contained SVG, as
   massif-visualizer and heaptrack draw one: the live bytes of every
   point as a grey area over the bytes allocated and freed, and at the
   detailed points (the peak and now too) the chains with the most bytes
   stacked in colour (chains whose paths read the same as one), the rest
   of the point's bytes as "other chains" on top.
   Hovering an area names its chain; hovering a point's column gives
   its figures.  The figures are in data- attributes as well, exact. */
#include "report/rmodel.h"
#include "util/num.h"
#include "util/text.h"
#include "report/svg-script.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_W 1200
#define X0 90                /* the plot's left edge */
#define PW 1080              /* the plot's width */
#define TOP 70
#define PH 400               /* the plot's height */
#define LEGEND_LINE 18
#define NCOLOURS 10          /* chains stacked, at most */

static const char *const colours[NCOLOURS] = {
  "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6",
};

static double
px (uint64_t moved, uint64_t xmax)
{
  return X0 + (xmax ? (double) ((long double) moved * PW / xmax) : PW);
}

static double
py (uint64_t bytes, uint64_t ymax)
{
  return TOP + PH - (ymax ? (double) ((long double) bytes * PH / ymax) : 0);
}

/* The base name of a source file path. */
static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* Chain C's leak path as the timeline table shows it, "a > b > c", and
   with O's lines where its innermost frame is, " (file.c:12)": what
   tells chains apart. */
static void
put_path (const struct hi_rmodel *r, const struct hi_emit_options *o,
          const struct hi_rchain *c, FILE *f)
{
  if (c->path_n == 0)
    fputs ("&lt;no call chain recorded&gt;", f);
  const struct hi_rframe *fr = NULL;
  for (uint64_t i = 0; i < c->path_n; i++)
    {
      fr = &r->frames[c->path_first + i];
      if (i)
        fputs (" &gt; ", f);
      hi_svg_put_text (fr->cut ? "..." : fr->label, f);
    }
  if (o->lines && fr && !fr->cut && fr->file && fr->line)
    {
      fputs (" (", f);
      hi_svg_put_text (base_name (fr->file), f);
      fprintf (f, ":%" PRIu32 ")", fr->line);
    }
}

static void
put_bytes (uint64_t v, FILE *f)
{
  char h[32];
  hi_human_bytes (v, h, sizeof h);
  if (v >= 1024)
    fprintf (f, "%" PRIu64 " bytes (%s)", v, h);
  else
    fprintf (f, "%" PRIu64 " bytes", v);
}

/* A point's kind in data-kind, and in its title. */
static const char *const kind_keys[] = {
  [HI_RPOINT_PLAIN] = "point", [HI_RPOINT_DETAILED] = "detailed",
  [HI_RPOINT_PEAK] = "peak", [HI_RPOINT_NOW] = "now",
};
static const char *const kind_names[] = {
  [HI_RPOINT_PLAIN] = "point", [HI_RPOINT_DETAILED] = "detailed point",
  [HI_RPOINT_PEAK] = "the peak, point", [HI_RPOINT_NOW] = "now, point",
};

/* What the image draws: the scales, the detailed points and the chains
   stacked at them. */
struct plot
{
  const struct hi_rtimeline *tl;
  uint64_t xmax, ymax;       /* the scales: the last point's bytes
                                allocated and freed, the most bytes */
  size_t *det;               /* the detailed points' indexes in points */
  size_t nd;
  uint64_t *best;            /* per chain that stands for those whose
                                paths read as its own (their `same`), its
                                most bytes at a detailed point */
  uint64_t *sum;             /* scratch: per `same` chain, its bytes at
                                one point (0 between points) */
  uint64_t *pick;            /* the chains stacked, most bytes first */
  size_t npick;
  uint64_t *val;             /* the picked chains' bytes at each detailed
                                point: val[d * NCOLOURS + b] for pick b */
};

static void
plot_free (struct plot *p)
{
  free (p->det);
  free (p->best);
  free (p->sum);
  free (p->pick);
  free (p->val);
}

/* The detailed points into P's det, each chain's most bytes at one into
   its best, and the scales from the points' live bytes. */
static void
find_detailed (struct plot *p)
{
  const struct hi_rtimeline *tl = p->tl;
  p->xmax = tl->n_points ? tl->points[tl->n_points - 1].moved : 0;
  for (size_t i = 0; i < tl->n_points; i++)
    {
      const struct hi_rpoint *pt = &tl->points[i];
      if (pt->bytes > p->ymax)
        p->ymax = pt->bytes;
      if (pt->kind == HI_RPOINT_PLAIN)
        continue;
      p->det[p->nd++] = i;
      /* Summed per path first: VAL's sums are what is drawn. */
      for (uint64_t k = 0; k < pt->n; k++)
        {
          const struct hi_rtchain *c = &tl->at[pt->first + k];
          uint64_t same = tl->chains[c->chain].same;
          p->sum[same] = hi_add_sat (p->sum[same], c->bytes);
        }
      for (uint64_t k = 0; k < pt->n; k++)
        {
          const struct hi_rtchain *c = &tl->at[pt->first + k];
          uint64_t same = tl->chains[c->chain].same;
          if (p->sum[same] > p->best[same])
            p->best[same] = p->sum[same];
        }
      for (uint64_t k = 0; k < pt->n; k++)
        p->sum[tl->chains[tl->at[pt->first + k].chain].same] = 0;
    }
}

/* The chains stacked: the NCOLOURS with the most bytes at any detailed
   point, most first. */
static void
pick_chains (struct plot *p)
{
  const uint64_t *best = p->best;
  uint64_t *pick = p->pick;
  for (uint64_t c = 0; c < p->tl->n_chains; c++)
    {
      if (best[c] == 0)
        continue;
      size_t j = p->npick < NCOLOURS ? p->npick++ : NCOLOURS;
      if (j == NCOLOURS && best[c] <= best[pick[NCOLOURS - 1]])
        continue;
      if (j == NCOLOURS)
        j = NCOLOURS - 1;
      while (j > 0 && best[pick[j - 1]] < best[c])
        {
          pick[j] = pick[j - 1];
          j--;
        }
      pick[j] = c;
    }
}

/* The picked chains' bytes at each detailed point into P's val, and the
   scale widened where a point's chains sum past its own bytes (threads'
   lag).  HI_OK or HI_E_NOMEM. */
static hi_status
stack_values (struct plot *p)
{
  const struct hi_rtimeline *tl = p->tl;
  p->val = calloc (p->nd * NCOLOURS + 1, sizeof *p->val);
  size_t *pick_of = malloc ((tl->n_chains + 1) * sizeof *pick_of);
  if (!p->val || !pick_of)
    {
      free (pick_of);
      return HI_E_NOMEM;
    }
  for (uint64_t c = 0; c < tl->n_chains; c++)
    pick_of[c] = NCOLOURS;
  for (size_t b = 0; b < p->npick; b++)
    pick_of[p->pick[b]] = b;
  for (size_t d = 0; d < p->nd; d++)
    {
      const struct hi_rpoint *pt = &tl->points[p->det[d]];
      uint64_t sum = 0;
      for (uint64_t k = 0; k < pt->n; k++)
        {
          const struct hi_rtchain *c = &tl->at[pt->first + k];
          size_t b = pick_of[tl->chains[c->chain].same];
          if (b < NCOLOURS)
            p->val[d * NCOLOURS + b] = hi_add_sat (p->val[d * NCOLOURS + b],
                                                   c->bytes);
          sum = hi_add_sat (sum, c->bytes);
        }
      if (sum > p->ymax)
        p->ymax = sum;
    }
  free (pick_of);
  return HI_OK;
}

/* P for timeline TL.  HI_OK, or HI_E_NOMEM (P freed). */
static hi_status
plot_new (const struct hi_rtimeline *tl, struct plot *p)
{
  memset (p, 0, sizeof *p);
  p->tl = tl;
  p->best = calloc (tl->n_chains + 1, sizeof *p->best);
  p->sum = calloc (tl->n_chains + 1, sizeof *p->sum);
  p->pick = calloc (NCOLOURS, sizeof *p->pick);
  p->det = calloc (tl->n_points + 1, sizeof *p->det);
  if (!p->best || !p->sum || !p->pick || !p->det)
    {
      plot_free (p);
      return HI_E_NOMEM;
    }
  find_detailed (p);
  pick_chains (p);
  if (stack_values (p) != HI_OK)
    {
      plot_free (p);
      return HI_E_NOMEM;
    }
  return HI_OK;
}

/* The image's start: its size and figures, the title, the style and
   the headings. */
static void
put_head (const struct hi_rmodel *r, const struct plot *p, FILE *f)
{
  unsigned height = TOP + PH + 60 + (unsigned) (p->npick + 3) * LEGEND_LINE;
  fprintf (f,
           "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
           "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
           "width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
           "font-family=\"Verdana, 'DejaVu Sans', sans-serif\" "
           "font-size=\"12\" data-points=\"%zu\" data-detailed=\"%zu\" "
           "data-chains=\"%zu\">\n<title>heapinspect timeline of ",
           IMAGE_W, height, IMAGE_W, height, p->tl->n_points, p->nd,
           p->npick);
  hi_svg_put_text (r->source ? r->source : "?", f);
  fputs ("</title>\n<style>\n"
         "text { fill: #000; }\n"
         ".area:hover, .chain:hover polygon { stroke: #000; "
         "stroke-width: 1; }\n"
         ".pt rect { fill: #000; fill-opacity: 0; }\n"
         ".pt:hover rect { fill-opacity: 0.12; }\n"
         ".axis { stroke: #000; stroke-width: 1; }\n"
         ".tick { font-size: 11px; }\n"
         "</style>\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
         "fill=\"#fafafa\"/>\n", f);
  fprintf (f, "<text id=\"heading\" x=\"%d\" y=\"24\" text-anchor=\"middle\" "
           "font-size=\"17\">Live bytes over time (bytes allocated and "
           "freed)"
           "</text>\n<text id=\"source\" x=\"%d\" y=\"44\" "
           "text-anchor=\"middle\">", IMAGE_W / 2, IMAGE_W / 2);
  hi_svg_put_text (r->source ? r->source : "?", f);
  if (r->has_summary && r->summary.command)
    {
      fputs (": ", f);
      hi_svg_put_text (r->summary.command, f);
    }
  if (r->incomplete)
    fputs (" (damaged input: figures are partial)", f);
  fputs ("</text>\n", f);
  if (!p->tl->has)
    fprintf (f, "<text id=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
             "No timeline: this input has no time data.</text>\n", IMAGE_W / 2, TOP + PH / 2);
}

/* The axes and their ticks. */
static void
put_axes (const struct plot *p, FILE *f)
{
  fprintf (f, "<g id=\"axes\"><line class=\"axis\" x1=\"%d\" y1=\"%d\" "
           "x2=\"%d\" y2=\"%d\"/><line class=\"axis\" x1=\"%d\" y1=\"%d\" "
           "x2=\"%d\" y2=\"%d\"/>\n", X0, TOP, X0, TOP + PH, X0, TOP + PH,
           X0 + PW, TOP + PH);
  for (int k = 0; k <= 4; k++)
    {
      char h[32];
      uint64_t v = (uint64_t) ((long double) p->ymax * k / 4);
      hi_human_bytes (v, h, sizeof h);
      fprintf (f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" "
               "text-anchor=\"end\">%s</text>", X0 - 6, py (v, p->ymax) + 4,
               h);
      v = (uint64_t) ((long double) p->xmax * k / 4);
      hi_human_bytes (v, h, sizeof h);
      fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
               "text-anchor=\"middle\">%s</text>\n", px (v, p->xmax),
               TOP + PH + 16, h);
    }
  fprintf (f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">bytes "
           "allocated and freed (alloc+free)</text>\n<text x=\"16\" "
           "y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
           "live bytes</text></g>\n", X0 + PW / 2, TOP + PH + 36,
           TOP + PH / 2, TOP + PH / 2);
}

/* Every point's live bytes, a step from each to the next. */
static void
put_area (const struct plot *p, FILE *f)
{
  const struct hi_rtimeline *tl = p->tl;
  fputs ("<g class=\"area\"><title>live bytes at every point</title>"
         "<polygon fill=\"#d0d0d0\" points=\"", f);
  fprintf (f, "%.2f,%.2f", px (tl->points[0].moved, p->xmax),
           py (0, p->ymax));
  for (size_t i = 0; i < tl->n_points; i++)
    {
      const struct hi_rpoint *pt = &tl->points[i];
      if (i)
        fprintf (f, " %.2f,%.2f", px (pt->moved, p->xmax),
                 py (tl->points[i - 1].bytes, p->ymax));
      fprintf (f, " %.2f,%.2f", px (pt->moved, p->xmax),
               py (pt->bytes, p->ymax));
    }
  fprintf (f, " %.2f,%.2f\"/></g>\n",
           px (tl->points[tl->n_points - 1].moved, p->xmax), py (0, p->ymax));
}

/* Layer B of the stack (B == npick: the other chains), on BASE, the
   layers below it at each detailed point; TOP gets this layer's top. */
static void
put_layer (const struct hi_rmodel *r, const struct hi_emit_options *o,
           const struct plot *p, size_t b,
           const uint64_t *base, uint64_t *top, FILE *f)
{
  const struct hi_rtimeline *tl = p->tl;
  uint64_t c = b < p->npick ? p->pick[b] : UINT64_MAX;
  if (b < p->npick)
    {
      fprintf (f, "<g class=\"chain\" data-chain=\"%zu\"><title>", b);
      put_path (r, o, &tl->chains[c], f);
      fputs ("\nat most ", f);
      put_bytes (p->best[c], f);
      fputs (" live at a detailed point</title>", f);
    }
  else
    fputs ("<g class=\"chain\" data-chain=\"other\"><title>other "
           "chains</title>", f);
  fprintf (f, "<polygon fill=\"%s\" fill-opacity=\"0.85\" "
           "points=\"", b < p->npick ? colours[b] : "#a0a0a0");
  for (size_t d = 0; d < p->nd; d++)
    {
      const struct hi_rpoint *pt = &tl->points[p->det[d]];
      uint64_t v = c != UINT64_MAX ? p->val[d * NCOLOURS + b]
                                   : hi_sub0 (pt->bytes, base[d]);
      top[d] = hi_add_sat (base[d], v);
      fprintf (f, "%s%.2f,%.2f", d ? " " : "", px (pt->moved, p->xmax),
               py (top[d], p->ymax));
    }
  for (size_t d = p->nd; d-- > 0;)
    fprintf (f, " %.2f,%.2f", px (tl->points[p->det[d]].moved, p->xmax),
             py (base[d], p->ymax));
  fputs ("\"/></g>\n", f);
}

/* The stacked chains, then the rest on top, between the detailed
   points.  HI_OK or HI_E_NOMEM. */
static hi_status
put_stack (const struct hi_rmodel *r, const struct hi_emit_options *o,
           const struct plot *p, FILE *f)
{
  uint64_t *base = calloc (p->nd + 1, sizeof *base);
  uint64_t *top = malloc ((p->nd + 1) * sizeof *top);
  if (base && top)
    for (size_t b = 0; b <= p->npick; b++)
      {
        put_layer (r, o, p, b, base, top, f);
        memcpy (base, top, p->nd * sizeof *base);
      }
  hi_status st = base && top ? HI_OK : HI_E_NOMEM;
  free (base);
  free (top);
  return st;
}

/* The detailed points: a column to hover each, with the figures. */
static void
put_points (const struct hi_rmodel *r, const struct hi_emit_options *o,
            const struct plot *p, FILE *f)
{
  const struct hi_rtimeline *tl = p->tl;
  fputs ("<g id=\"points\">\n", f);
  for (size_t d = 0; d < p->nd; d++)
    {
      size_t i = p->det[d];
      const struct hi_rpoint *pt = &tl->points[i];
      const uint64_t *val = &p->val[d * NCOLOURS];
      double x = px (pt->moved, p->xmax);
      fprintf (f, "<g class=\"pt\" data-n=\"%zu\" data-kind=\"%s\" "
               "data-time-ns=\"%" PRIu64 "\" data-clock=\"%" PRIu64
               "\" data-alloc-free=\"%" PRIu64 "\" data-bytes=\"%" PRIu64
               "\" data-blocks=\"%" PRIu64 "\" data-stack=\"", i,
               kind_keys[pt->kind], pt->time_ns, pt->clock, pt->moved,
               pt->bytes, pt->blocks);
      for (size_t b = 0; b < p->npick; b++)
        fprintf (f, "%s%" PRIu64, b ? " " : "", val[b]);
      fprintf (f, "\"><title>%s %zu: ", kind_names[pt->kind], i);
      put_bytes (pt->bytes, f);
      fprintf (f, " live in %" PRIu64 " blocks\nat %" PRIu64 ".%03" PRIu64
               " ms, %" PRIu64 " bytes allocated, %" PRIu64 " allocated and "
               "freed", pt->blocks, pt->time_ns / 1000000,
               pt->time_ns / 1000 % 1000, pt->clock, pt->moved);
      for (size_t b = 0; b < p->npick; b++)
        {
          if (!val[b])
            continue;
          fputs ("\n", f);
          put_bytes (val[b], f);
          fputs (": ", f);
          put_path (r, o, &tl->chains[p->pick[b]], f);
        }
      fprintf (f, "</title><rect x=\"%.2f\" y=\"%d\" width=\"8\" "
               "height=\"%d\"/></g>\n", x - 4, TOP, PH);
    }
  fputs ("</g>\n", f);
}

/* The peak's label, if the timeline has a peak. */
static void
put_peak (const struct plot *p, FILE *f)
{
  const struct hi_rtimeline *tl = p->tl;
  if (tl->peak >= tl->n_points)
    return;
  const struct hi_rpoint *pt = &tl->points[tl->peak];
  double x = px (pt->moved, p->xmax);
  fprintf (f, "<text id=\"peak\" x=\"%.2f\" y=\"%.2f\" "
           "text-anchor=\"%s\">peak ", x, py (pt->bytes, p->ymax) - 6,
           x > X0 + PW - 60 ? "end" : x < X0 + 60 ? "start" : "middle");
  char h[32];
  hi_human_bytes (pt->bytes, h, sizeof h);
  fprintf (f, "%s</text>\n", h);
}

/* The legend: a line per chain stacked, and the other chains. */
static void
put_legend (const struct hi_rmodel *r, const struct hi_emit_options *o,
            const struct plot *p, FILE *f)
{
  fputs ("<g id=\"legend\">\n", f);
  unsigned y = TOP + PH + 60;
  for (size_t b = 0; b <= p->npick && p->tl->has; b++)
    {
      fprintf (f, "<rect x=\"%d\" y=\"%u\" width=\"12\" height=\"12\" "
               "fill=\"%s\"/><text x=\"%d\" y=\"%u\">", X0, y,
               b < p->npick ? colours[b] : "#a0a0a0", X0 + 18, y + 11);
      if (b < p->npick)
        put_path (r, o, &p->tl->chains[p->pick[b]], f);
      else
        fputs ("other chains", f);
      fputs ("</text>\n", f);
      y += LEGEND_LINE;
    }
  fputs ("</g>\n</svg>\n", f);
}

hi_status
hi_emit_svg_timeline (const struct hi_rmodel *r,
                      const struct hi_emit_options *o, FILE *f)
{
  struct plot p;
  if (plot_new (&r->timeline, &p) != HI_OK)
    return HI_E_NOMEM;
  put_head (r, &p, f);
  put_axes (&p, f);
  if (p.tl->has && p.tl->n_points)
    {
      put_area (&p, f);
      if (put_stack (r, o, &p, f) != HI_OK)
        {
          plot_free (&p);
          return HI_E_NOMEM;
        }
      put_points (r, o, &p, f);
      put_peak (&p, f);
    }
  put_legend (r, o, &p, f);
  plot_free (&p);
  return fflush (f) != 0 || ferror (f) ? HI_E_WRITE : HI_OK;
}
