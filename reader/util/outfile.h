/* outfile.h - writing an output file atomically (heapinspect -o, gdb's
   heap export): readers of FILE see the old file or the whole new one,
   never a truncated or empty one. */
#ifndef HI_OUTFILE_H
#define HI_OUTFILE_H

#include <stdio.h>

#include "hi-reader.h"

/* One file being written.  F is where the output goes; the rest is the
   helper's own.  F's stream refers to O: O must stay where it is (not
   be copied) until it is committed or aborted.  Not thread-safe: one
   thread writes one hi_outfile. */
struct hi_outfile
{
  FILE *f;                   /* write the output here */
  char *path;                /* what the output becomes (malloc'd) */
  char *tmp;                 /* the temporary file, or NULL when PATH is
                                written in place (malloc'd) */
  int fd;                    /* F's descriptor */
  int err;                   /* errno of F's first failed write, or 0 */
};

/* Start writing PATH.  A regular file (new, or replacing one; through a
   symbolic link, the file it names) is written to a new temporary file
   ".NAME.XXXXXX" beside it (O_EXCL, O_NOFOLLOW; mode 0666 less the umask,
   or the mode of the file it replaces), PATH itself untouched until
   hi_outfile_commit.  Something
   that is not a regular file (a terminal, a pipe, /dev/null) is written
   in place: there is nothing to replace.  Returns HI_OK with O->F open,
   or HI_E_WRITE with errno's detail (hi_strerror says why: "Is a
   directory", "Permission denied", ...) and O cleared. */
hi_status hi_outfile_open (struct hi_outfile *o, const char *path);

/* Finish: flush, check that every write succeeded, sync, close and
   rename the temporary file over PATH.  On any failure the temporary
   file is removed and PATH left as it was; returns HI_E_WRITE with
   errno's detail.  O is finished either way. */
hi_status hi_outfile_commit (struct hi_outfile *o);

/* Give up: close and remove the temporary file; PATH is left as it was.
   Does nothing to a cleared O (after a failed open, or twice). */
void hi_outfile_abort (struct hi_outfile *o);

#endif
