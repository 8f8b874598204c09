/* target.c - the targets' common entry points: opening a file of
   whichever kind it is, the bytes it holds, finishing and closing. */
#define _GNU_SOURCE
#include "hi-reader.h"
#include "util/errors.h"
#include "target/target.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

hi_status
hi_target_open_file (const char *path, const char *exe, unsigned accept,
                     struct hi_target *out, unsigned *kind)
{
  unsigned char head[8] = { 0 };
  if (kind)
    *kind = 0;
  hi_error_reset ();
  int fd = hi_open_regular (path);
  if (fd < 0)
    return hi_fail (HI_E_IO, errno);
  ssize_t n = read (fd, head, sizeof head);
  close (fd);
  uint64_t magic;
  memcpy (&magic, head, sizeof magic);
  unsigned k = n == (ssize_t) sizeof head && magic == HI_SNAP_MAGIC
               ? HI_FILE_SNAPSHOT
               : n >= 4 && memcmp (head, "\177ELF", 4) == 0 ? HI_FILE_ELF : 0;
  if (kind)
    *kind = k;
  if (k == HI_FILE_SNAPSHOT && (accept & HI_FILE_SNAPSHOT))
    return hi_target_open_snapshot (path, out);
  if (k == HI_FILE_ELF && (accept & HI_FILE_ELF))
    return hi_target_open_core (path, exe, out);
  return HI_E_NOT_SNAPSHOT;
}

void
hi_target_close (struct hi_target *t)
{
  if (t && t->ops && t->ops->close)
    t->ops->close (t->ctx);
  if (t)
    t->ctx = NULL;
}

hi_status
hi_target_finish (struct hi_target *t)
{
  return t->ops->finish ? t->ops->finish (t->ctx) : HI_OK;
}

uint64_t
hi_target_backed (const struct hi_target *t)
{
  uint64_t n;
  if (hi_target_snapshot_backed (t, &n) == 0
      || hi_target_core_backed (t, &n) == 0
      || hi_target_process_backed (t, &n) == 0
      || hi_target_raw_backed (t, &n) == 0)
    return n;
  return UINT64_MAX;
}
