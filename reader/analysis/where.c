/* where.c - where each function allocated, in the source: the lines of
   the calls that end its chains, for the tables that show functions
   (direct, graph). */
#include "analysis/analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WHERE_MAX 4          /* places shown, then "..." */

struct place
{
  uint32_t file[WHERE_MAX], line[WHERE_MAX];
  uint32_t frame[WHERE_MAX];   /* a frame at that place */
  uint32_t any;                /* some frame of the function, + 1 */
  unsigned n, more;
};

struct hi_where
{
  struct place *func;        /* per function id */
};

static void
add (struct place *w, const struct hi_frame *f, uint32_t id)
{
  if (!w->any)
    w->any = id + 1;
  if (f->file == HI_NONE || f->line == 0)
    return;
  for (unsigned i = 0; i < w->n; i++)
    if (w->file[i] == f->file && w->line[i] == f->line)
      return;
  if (w->n == WHERE_MAX)
    {
      w->more = 1;
      return;
    }
  w->file[w->n] = f->file;
  w->frame[w->n] = id;
  w->line[w->n++] = f->line;
}

struct hi_where *
hi_where_new (const struct hi_analysis *a)
{
  struct hi_where *w = malloc (sizeof *w);
  if (!w)
    return NULL;
  w->func = calloc ((size_t) a->funcs.n + 1, sizeof *w->func);
  if (!w->func)
    {
      free (w);
      return NULL;
    }
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    {
      uint32_t from = a->chain_start[s], to = a->chain_start[s + 1];
      if (from == to || (hi_site_flags (a, s) & HI_SITE_FILTERED))
        continue;
      const struct hi_frame *leaf = hi_chain_frame (a, to - 1);
      add (&w->func[leaf->func], leaf, a->chain_frames[to - 1]);
    }
  return w;
}

void
hi_where_free (struct hi_where *w)
{
  if (w)
    free (w->func);
  free (w);
}

void
hi_where_name (const struct hi_analysis *a, const struct hi_where *w,
               uint32_t func, char *out, size_t size)
{
  const struct place *p = &w->func[func];
  size_t at = (size_t) snprintf (out, size, "%s", a->funcs.strs[func]);
  for (unsigned i = 0; i < p->n && at < size; i++)
    {
      const char *file = a->strs.strs[p->file[i]];
      const char *slash = strrchr (file, '/');
      file = slash && slash[1] ? slash + 1 : file;
      if (i > 0 && p->file[i] == p->file[i - 1])
        at += (size_t) snprintf (out + at, size - at, ", %" PRIu32,
                                 p->line[i]);
      else
        at += (size_t) snprintf (out + at, size - at, "%s%s:%" PRIu32,
                                 i ? ", " : " (", file, p->line[i]);
    }
  if (p->n && at < size)
    snprintf (out + at, size - at, "%s)", p->more ? ", ..." : "");
}

const char *
hi_where_bare_name (const struct hi_analysis *a, const struct hi_where *w,
                    uint32_t func)
{
  const struct place *p = &w->func[func];
  if (p->any)
    return hi_report_frame (a, p->any - 1).function;
  return a->funcs.strs[func];
}

struct hi_cell
hi_where_cell (const struct hi_analysis *a, const struct hi_where *w,
               uint32_t func, struct hi_rmodel *r)
{
  const struct place *p = &w->func[func];
  uint64_t first = r->n_frames;
  for (unsigned i = 0; i < p->n; i++)
    {
      struct hi_rframe f = hi_report_frame (a, p->frame[i]);
      hi_rmodel_frames (r, &f, 1);
    }
  /* A function with no line known: one frame, for its module. */
  if (p->n == 0 && p->any)
    {
      struct hi_rframe f = hi_report_frame (a, p->any - 1);
      hi_rmodel_frames (r, &f, 1);
    }
  return hi_cell_path (first, r->n_frames - first);
}
