/* funclines.c - where a function's frames are in the source: the lines
   the direct table and the graph show beside a function's name. */
#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One (function, file, line) a chain shows, and whether a chain ends
   there (an allocating call). */
struct spot
{
  uint32_t func, file, line, ends;
};

struct hi_funclines
{
  struct spot *spots;        /* sorted by function, file, line; unique */
  size_t n;
};

static int
by_spot (const void *x, const void *y)
{
  const struct spot *a = x, *b = y;
  if (a->func != b->func)
    return a->func < b->func ? -1 : 1;
  if (a->file != b->file)
    return a->file < b->file ? -1 : 1;
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  return (int) b->ends - (int) a->ends;     /* ends first */
}

/* The spots of A's chains (those the filters keep): every frame with a
   line, once per place. */
static struct hi_funclines *
build (const struct hi_analysis *a)
{
  struct hi_funclines *fl = calloc (1, sizeof *fl);
  uint32_t total = a->chain_start[a->m->n_sites];
  if (!fl || !(fl->spots = malloc ((total ? total : 1) * sizeof *fl->spots)))
    {
      free (fl);
      return NULL;
    }
  for (uint64_t s = 0; s < a->m->n_sites; s++)
    {
      if (hi_site_flags (a, s) & HI_SITE_FILTERED)
        continue;
      for (uint32_t i = a->chain_start[s]; i < a->chain_start[s + 1]; i++)
        {
          const struct hi_frame *f = hi_chain_frame (a, i);
          if (f->file != HI_NONE && f->line)
            fl->spots[fl->n++] = (struct spot) {
              f->func, f->file, f->line, i + 1 == a->chain_start[s + 1] };
        }
    }
  qsort (fl->spots, fl->n, sizeof *fl->spots, by_spot);
  /* One per place, "ends" if any chain ends there (sorted first). */
  size_t out = 0;
  for (size_t i = 0; i < fl->n; i++)
    if (out == 0 || fl->spots[i].func != fl->spots[out - 1].func
        || fl->spots[i].file != fl->spots[out - 1].file
        || fl->spots[i].line != fl->spots[out - 1].line)
      fl->spots[out++] = fl->spots[i];
  fl->n = out;
  return fl;
}

void
hi_funclines_free (struct hi_funclines *fl)
{
  if (fl)
    free (fl->spots);
  free (fl);
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* At most this many places are listed, then ", ...". */
#define MAX_PLACES 4

void
hi_func_lines (struct hi_analysis *a, uint32_t func, int allocs, char *buf,
               size_t size)
{
  buf[0] = '\0';
  if (!a->opt.lines)
    return;
  if (!a->funclines && !(a->funclines = build (a)))
    return;
  const struct hi_funclines *fl = a->funclines;
  size_t lo = 0, hi = fl->n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fl->spots[mid].func < func)
        lo = mid + 1;
      else
        hi = mid;
    }
  size_t at = 0;
  uint32_t file = HI_NONE;
  int shown = 0;
  for (size_t i = lo; i < fl->n && fl->spots[i].func == func && at < size;
       i++)
    {
      const struct spot *p = &fl->spots[i];
      if (allocs && !p->ends)
        continue;
      if (shown == MAX_PLACES)
        {
          snprintf (buf + at, size - at, ", ...");
          break;
        }
      if (p->file == file)
        at += (size_t) snprintf (buf + at, size - at, ", %" PRIu32, p->line);
      else
        at += (size_t) snprintf (buf + at, size - at, "%s%s:%" PRIu32,
                                 shown ? ", " : "",
                                 base_name (a->strs.strs[p->file]), p->line);
      file = p->file;
      shown++;
    }
}
