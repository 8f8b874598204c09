/* where.c - the source places of a function's frames, for the names the
   tables print. */
#include "where.h"

#include <inttypes.h>
#include <string.h>

void
hi_where_add (struct hi_where *w, const struct hi_frame *f)
{
  if (f->file == HI_NONE || f->line == 0)
    return;
  for (unsigned i = 0; i < w->n; i++)
    if (w->file[i] == f->file && w->line[i] == f->line)
      return;
  if (w->n == 4)
    {
      w->more = 1;
      return;
    }
  w->file[w->n] = f->file;
  w->line[w->n++] = f->line;
}

void
hi_where_text (const struct hi_analysis *a, const struct hi_where *w,
               const char *name, char *out, size_t size)
{
  size_t at = (size_t) snprintf (out, size, "%s", name);
  for (unsigned i = 0; i < w->n && at < size; i++)
    {
      const char *file = a->strs.strs[w->file[i]];
      const char *slash = strrchr (file, '/');
      file = slash && slash[1] ? slash + 1 : file;
      if (i > 0 && w->file[i] == w->file[i - 1])
        at += (size_t) snprintf (out + at, size - at, ", %" PRIu32,
                                 w->line[i]);
      else
        at += (size_t) snprintf (out + at, size - at, "%s%s:%" PRIu32,
                                 i ? ", " : " (", file, w->line[i]);
    }
  if (w->n && at < size)
    snprintf (out + at, size - at, "%s)", w->more ? ", ..." : "");
}
