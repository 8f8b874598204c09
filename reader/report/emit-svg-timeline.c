/* emit-svg-timeline.c - a report's timeline as a self-contained SVG, as
   massif-visualizer and heaptrack draw one: the live bytes of every
   point as a grey area over the allocation clock, and at the detailed
   points (the peak and now too) the chains with the most bytes stacked
   in colour, the rest of the point's bytes as "other chains" on top.
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
px (uint64_t clock, uint64_t xmax)
{
  return X0 + (xmax ? (double) ((long double) clock * PW / xmax) : PW);
}

static double
py (uint64_t bytes, uint64_t ymax)
{
  return TOP + PH - (ymax ? (double) ((long double) bytes * PH / ymax) : 0);
}

/* Chain C's leak path, "a > b > c". */
static void
put_path (const struct hi_rmodel *r, const struct hi_rchain *c, FILE *f)
{
  if (c->path_n == 0)
    fputs ("&lt;no call chain recorded&gt;", f);
  for (uint64_t i = 0; i < c->path_n; i++)
    {
      const struct hi_rframe *fr = &r->frames[c->path_first + i];
      if (i)
        fputs (" &gt; ", f);
      hi_svg_put_text (fr->cut ? "..." : fr->label, f);
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

hi_status
hi_emit_svg_timeline (const struct hi_rmodel *r,
                      const struct hi_emit_options *o, FILE *f)
{
  (void) o;
  const struct hi_rtimeline *tl = &r->timeline;
  /* The chains stacked: those with the most bytes at any detailed
     point. */
  uint64_t *best = calloc (tl->n_chains + 1, sizeof *best);
  uint64_t *pick = calloc (NCOLOURS, sizeof *pick);
  size_t *det = calloc (tl->n_points + 1, sizeof *det);
  if (!best || !pick || !det)
    {
      free (best);
      free (pick);
      free (det);
      return HI_E_NOMEM;
    }
  size_t nd = 0;
  uint64_t ymax = 0, xmax = tl->n_points ? tl->points[tl->n_points - 1].clock
                                         : 0;
  for (size_t i = 0; i < tl->n_points; i++)
    {
      const struct hi_rpoint *p = &tl->points[i];
      if (p->bytes > ymax)
        ymax = p->bytes;
      if (p->kind == HI_RPOINT_PLAIN)
        continue;
      det[nd++] = i;
      for (uint64_t k = 0; k < p->n; k++)
        {
          const struct hi_rtchain *c = &tl->at[p->first + k];
          if (c->bytes > best[c->chain])
            best[c->chain] = c->bytes;
        }
    }
  size_t npick = 0;
  for (uint64_t c = 0; c < tl->n_chains; c++)
    {
      if (best[c] == 0)
        continue;
      size_t j = npick < NCOLOURS ? npick++ : NCOLOURS;
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
  /* The picked chains' bytes at each detailed point: VAL[d * NCOLOURS +
     b] for pick b. */
  uint64_t *val = calloc (nd * NCOLOURS + 1, sizeof *val);
  size_t *pick_of = malloc ((tl->n_chains + 1) * sizeof *pick_of);
  if (!val || !pick_of)
    {
      free (val);
      free (pick_of);
      free (best);
      free (pick);
      free (det);
      return HI_E_NOMEM;
    }
  for (uint64_t c = 0; c < tl->n_chains; c++)
    pick_of[c] = NCOLOURS;
  for (size_t b = 0; b < npick; b++)
    pick_of[pick[b]] = b;
  for (size_t d = 0; d < nd; d++)
    {
      const struct hi_rpoint *p = &tl->points[det[d]];
      for (uint64_t k = 0; k < p->n; k++)
        {
          const struct hi_rtchain *c = &tl->at[p->first + k];
          size_t b = pick_of[c->chain];
          if (b < NCOLOURS)
            val[d * NCOLOURS + b] = hi_add_sat (val[d * NCOLOURS + b],
                                                c->bytes);
        }
    }
  free (pick_of);
  /* A chain's sum could pass the point's own bytes (threads' lag): the
     scale takes the larger. */
  for (size_t d = 0; d < nd; d++)
    {
      const struct hi_rpoint *p = &tl->points[det[d]];
      uint64_t sum = 0;
      for (uint64_t k = 0; k < p->n; k++)
        sum = hi_add_sat (sum, tl->at[p->first + k].bytes);
      if (sum > ymax)
        ymax = sum;
    }
  unsigned height = TOP + PH + 60 + (unsigned) (npick + 3) * LEGEND_LINE;
  fprintf (f,
           "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
           "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
           "width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
           "font-family=\"Verdana, 'DejaVu Sans', sans-serif\" "
           "font-size=\"12\" data-points=\"%zu\" data-detailed=\"%zu\" "
           "data-chains=\"%zu\">\n<title>heapinspect timeline of ",
           IMAGE_W, height, IMAGE_W, height, tl->n_points, nd, npick);
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
           "font-size=\"17\">Live bytes over time (the allocation clock)"
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
  if (!tl->has)
    fprintf (f, "<text id=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
             "No timeline: this input has no time data.</text>\n", IMAGE_W / 2, TOP + PH / 2);
  /* Axes and their ticks. */
  fprintf (f, "<g id=\"axes\"><line class=\"axis\" x1=\"%d\" y1=\"%d\" "
           "x2=\"%d\" y2=\"%d\"/><line class=\"axis\" x1=\"%d\" y1=\"%d\" "
           "x2=\"%d\" y2=\"%d\"/>\n", X0, TOP, X0, TOP + PH, X0, TOP + PH,
           X0 + PW, TOP + PH);
  for (int k = 0; k <= 4; k++)
    {
      char h[32];
      uint64_t v = (uint64_t) ((long double) ymax * k / 4);
      hi_human_bytes (v, h, sizeof h);
      fprintf (f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" "
               "text-anchor=\"end\">%s</text>", X0 - 6, py (v, ymax) + 4, h);
      v = (uint64_t) ((long double) xmax * k / 4);
      hi_human_bytes (v, h, sizeof h);
      fprintf (f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
               "text-anchor=\"middle\">%s</text>\n", px (v, xmax),
               TOP + PH + 16, h);
    }
  fprintf (f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">bytes "
           "allocated (the allocation clock)</text>\n<text x=\"16\" "
           "y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
           "live bytes</text></g>\n", X0 + PW / 2, TOP + PH + 36,
           TOP + PH / 2, TOP + PH / 2);
  if (tl->has && tl->n_points)
    {
      /* Every point's live bytes, a step from each to the next. */
      fputs ("<g class=\"area\"><title>live bytes at every point</title>"
             "<polygon fill=\"#d0d0d0\" points=\"", f);
      fprintf (f, "%.2f,%.2f", px (tl->points[0].clock, xmax),
               py (0, ymax));
      for (size_t i = 0; i < tl->n_points; i++)
        {
          const struct hi_rpoint *p = &tl->points[i];
          if (i)
            fprintf (f, " %.2f,%.2f", px (p->clock, xmax),
                     py (tl->points[i - 1].bytes, ymax));
          fprintf (f, " %.2f,%.2f", px (p->clock, xmax), py (p->bytes, ymax));
        }
      fprintf (f, " %.2f,%.2f\"/></g>\n",
               px (tl->points[tl->n_points - 1].clock, xmax), py (0, ymax));
      /* The stacked chains, then the rest on top, between the detailed
         points. */
      uint64_t *base = calloc (nd + 1, sizeof *base);
      if (!base)
        goto nomem;
      for (size_t b = 0; b <= npick; b++)
        {
          uint64_t c = b < npick ? pick[b] : UINT64_MAX;
          if (b < npick)
            {
              fprintf (f, "<g class=\"chain\" data-chain=\"%zu\"><title>", b);
              put_path (r, &tl->chains[c], f);
              fputs ("\nat most ", f);
              put_bytes (best[c], f);
              fputs (" live at a detailed point</title>", f);
            }
          else
            fputs ("<g class=\"chain\" data-chain=\"other\"><title>other "
                   "chains</title>", f);
          fprintf (f, "<polygon fill=\"%s\" fill-opacity=\"0.85\" "
                   "points=\"", b < npick ? colours[b] : "#a0a0a0");
          uint64_t *top = malloc ((nd + 1) * sizeof *top);
          if (!top)
            {
              free (base);
              goto nomem;
            }
          for (size_t d = 0; d < nd; d++)
            {
              const struct hi_rpoint *p = &tl->points[det[d]];
              uint64_t v = c != UINT64_MAX ? val[d * NCOLOURS + b]
                                           : hi_sub0 (p->bytes, base[d]);
              top[d] = hi_add_sat (base[d], v);
              fprintf (f, "%s%.2f,%.2f", d ? " " : "", px (p->clock, xmax),
                       py (top[d], ymax));
            }
          for (size_t d = nd; d-- > 0;)
            fprintf (f, " %.2f,%.2f", px (tl->points[det[d]].clock, xmax),
                     py (base[d], ymax));
          fputs ("\"/></g>\n", f);
          memcpy (base, top, nd * sizeof *base);
          free (top);
        }
      free (base);
      /* The detailed points: a column to hover, with the figures. */
      fputs ("<g id=\"points\">\n", f);
      for (size_t d = 0; d < nd; d++)
        {
          size_t i = det[d];
          const struct hi_rpoint *p = &tl->points[i];
          double x = px (p->clock, xmax);
          fprintf (f, "<g class=\"pt\" data-n=\"%zu\" data-kind=\"%s\" "
                   "data-time-ns=\"%" PRIu64 "\" data-clock=\"%" PRIu64
                   "\" data-bytes=\"%" PRIu64 "\" data-blocks=\"%" PRIu64
                   "\" data-stack=\"", i, kind_keys[p->kind], p->time_ns,
                   p->clock, p->bytes, p->blocks);
          for (size_t b = 0; b < npick; b++)
            fprintf (f, "%s%" PRIu64, b ? " " : "", val[d * NCOLOURS + b]);
          fprintf (f, "\"><title>%s %zu: ", kind_names[p->kind], i);
          put_bytes (p->bytes, f);
          fprintf (f, " live in %" PRIu64 " blocks\nat %" PRIu64 ".%03" PRIu64
                   " ms, %" PRIu64 " bytes allocated", p->blocks,
                   p->time_ns / 1000000, p->time_ns / 1000 % 1000, p->clock);
          for (size_t b = 0; b < npick; b++)
            {
              uint64_t v = val[d * NCOLOURS + b];
              if (!v)
                continue;
              fputs ("\n", f);
              put_bytes (v, f);
              fputs (": ", f);
              put_path (r, &tl->chains[pick[b]], f);
            }
          fprintf (f, "</title><rect x=\"%.2f\" y=\"%d\" width=\"8\" "
                   "height=\"%d\"/></g>\n", x - 4, TOP, PH);
        }
      fputs ("</g>\n", f);
      if (tl->peak < tl->n_points)
        {
          const struct hi_rpoint *p = &tl->points[tl->peak];
          double x = px (p->clock, xmax);
          fprintf (f, "<text id=\"peak\" x=\"%.2f\" y=\"%.2f\" "
                   "text-anchor=\"%s\">peak ", x, py (p->bytes, ymax) - 6,
                   x > X0 + PW - 60 ? "end" : x < X0 + 60 ? "start"
                                                          : "middle");
          char h[32];
          hi_human_bytes (p->bytes, h, sizeof h);
          fprintf (f, "%s</text>\n", h);
        }
    }
  /* The legend. */
  fputs ("<g id=\"legend\">\n", f);
  unsigned y = TOP + PH + 60;
  for (size_t b = 0; b <= npick && tl->has; b++)
    {
      fprintf (f, "<rect x=\"%d\" y=\"%u\" width=\"12\" height=\"12\" "
               "fill=\"%s\"/><text x=\"%d\" y=\"%u\">", X0, y,
               b < npick ? colours[b] : "#a0a0a0", X0 + 18, y + 11);
      if (b < npick)
        put_path (r, &tl->chains[pick[b]], f);
      else
        fputs ("other chains", f);
      fputs ("</text>\n", f);
      y += LEGEND_LINE;
    }
  fputs ("</g>\n</svg>\n", f);
  free (val);
  free (best);
  free (pick);
  free (det);
  return fflush (f) != 0 || ferror (f) ? HI_E_WRITE : HI_OK;
nomem:
  free (val);
  free (best);
  free (pick);
  free (det);
  return HI_E_NOMEM;
}
