/* target-snapshot.c - a snapshot file as a target: its regions are the
   process memory it copied. */
#define _GNU_SOURCE
#include "util/errors.h"
#include "hi-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct snapshot
{
  int fd;
  struct hi_snap_header h;
  struct hi_snap_region reg[HI_SNAP_MAX_REGIONS];
};

static int
read_at (int fd, void *buf, size_t len, uint64_t off)
{
  char *p = buf;
  while (len > 0)
    {
      ssize_t r = pread (fd, p, len, (off_t) off);
      if (r <= 0)
        return -1;
      p += r;
      len -= (size_t) r;
      off += (uint64_t) r;
    }
  return 0;
}

static int
snap_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct snapshot *s = ctx;
  for (uint32_t i = 0; i < s->h.n_regions; i++)
    {
      const struct hi_snap_region *r = &s->reg[i];
      if (addr >= r->addr && addr - r->addr <= r->size
          && len <= r->size - (addr - r->addr))
        return read_at (s->fd, buf, len, r->offset + (addr - r->addr));
    }
  return -1;
}

static int
snap_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct snapshot *s = ctx;
  if (strcmp (name, "heapinspect_root") != 0)
    return -1;
  *addr = s->h.root_addr;
  return 0;
}

static void
snap_close (void *ctx)
{
  struct snapshot *s = ctx;
  close (s->fd);
  free (s);
}

static const struct hi_target_ops snapshot_ops = {
  snap_read, snap_symbol, snap_close, NULL, NULL, NULL, NULL
};

hi_status
hi_target_open_snapshot (const char *path, struct hi_target *out)
{
  struct stat st;
  hi_error_reset ();
  int fd = hi_open_regular (path);
  if (fd < 0)
    return hi_fail (HI_E_IO, errno);
  struct snapshot *s = calloc (1, sizeof *s);
  hi_status err = HI_E_NOMEM;
  if (!s || fstat (fd, &st) != 0)
    goto fail;
  err = HI_E_NOT_SNAPSHOT;
  if (!S_ISREG (st.st_mode) || (uint64_t) st.st_size < sizeof s->h
      || read_at (fd, &s->h, sizeof s->h, 0) != 0
      || s->h.magic != HI_SNAP_MAGIC)
    goto fail;
  err = HI_E_VERSION;
  /* The header is the same since version 2; the model checks the root. */
  if (s->h.version < HI_FORMAT_OLDEST || s->h.version > HI_FORMAT_VERSION)
    goto fail;
  err = HI_E_TRUNCATED;
  uint64_t size = (uint64_t) st.st_size;
  if (s->h.n_regions == 0 || s->h.n_regions > HI_SNAP_MAX_REGIONS)
    {
      err = HI_E_CORRUPT;
      goto fail;
    }
  uint64_t table_end = sizeof s->h + s->h.n_regions * sizeof s->reg[0];
  if (table_end > size)
    {
      err = hi_fail_missing (HI_E_TRUNCATED, table_end - size);
      goto fail;
    }
  if (read_at (fd, s->reg, s->h.n_regions * sizeof s->reg[0],
               sizeof s->h) != 0)
    goto fail;
  /* The bytes the regions claim past the end: a cut file, said so. */
  uint64_t missing = 0;
  for (uint32_t i = 0; i < s->h.n_regions; i++)
    {
      const struct hi_snap_region *r = &s->reg[i];
      if (r->addr + r->size < r->addr || r->offset + r->size < r->offset)
        {
          err = HI_E_CORRUPT;
          goto fail;
        }
      if (r->offset + r->size > size)
        missing += r->offset + r->size - (r->offset > size ? r->offset : size);
    }
  if (missing)
    {
      err = hi_fail_missing (HI_E_TRUNCATED, missing);
      goto fail;
    }
  s->fd = fd;
  out->ops = &snapshot_ops;
  out->ctx = s;
  return HI_OK;
fail:
  free (s);
  close (fd);
  return err;
}
