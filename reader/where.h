/* where.h - where a function's frames are in the source, as a table's
   name shows it: "name (file.c:17, 23, other.c:5, ...)". */
#ifndef HI_WHERE_H
#define HI_WHERE_H

#include "analysis.h"

/* Up to four distinct places (file id in a->strs, line), in the order
   first seen; MORE is set when there were others. */
struct hi_where
{
  uint32_t file[4], line[4];
  unsigned n, more;
};

/* Add frame F's place to W, if it has one. */
void hi_where_add (struct hi_where *w, const struct hi_frame *f);
/* NAME followed by W's places, " (file.c:17, 23)", into OUT (base names
   of files; a file's further lines after a comma; ", ..." when there
   were more than four).  NAME alone when W has none. */
void hi_where_text (const struct hi_analysis *a, const struct hi_where *w,
                    const char *name, char *out, size_t size);

#endif
