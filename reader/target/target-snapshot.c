/* target-snapshot.c - a snapshot file as a target: its regions are the
   process memory it copied, each its own bytes of the file. */
#define _GNU_SOURCE
#include "util/errors.h"
#include "target/target.h"
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
  uint64_t backed;           /* the regions' bytes */
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

int
hi_target_snapshot_backed (const struct hi_target *t, uint64_t *bytes)
{
  if (t->ops != &snapshot_ops)
    return -1;
  *bytes = ((const struct snapshot *) t->ctx)->backed;
  return 0;
}

/* 1 if [A, A + AN) and [B, B + BN) share a byte. */
static int
overlap (uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
  return an && bn && a < b + bn && b < a + an;
}

/* The regions of S, in a file of SIZE bytes whose region table ends at
   TABLE_END: each its own bytes of the file, after the table, and its
   own addresses (the monitor writes them so).  HI_OK, or HI_E_CORRUPT
   saying which two overlap: the same bytes twice would let a small file
   stand for any amount of memory. */
static hi_status
check_overlaps (struct snapshot *s, uint64_t table_end)
{
  for (uint32_t i = 0; i < s->h.n_regions; i++)
    {
      const struct hi_snap_region *r = &s->reg[i];
      if (overlap (r->offset, r->size, 0, table_end))
        return hi_fail_text (HI_E_CORRUPT, "snapshot region %u overlaps "
                             "the region table", i + 1);
      for (uint32_t j = 0; j < i; j++)
        {
          const struct hi_snap_region *q = &s->reg[j];
          if (overlap (r->offset, r->size, q->offset, q->size))
            return hi_fail_text (HI_E_CORRUPT, "snapshot regions %u and %u "
                                 "share bytes of the file", j + 1, i + 1);
          if (overlap (r->addr, r->size, q->addr, q->size))
            return hi_fail_text (HI_E_CORRUPT, "snapshot regions %u and %u "
                                 "overlap in memory", j + 1, i + 1);
        }
      s->backed += r->size;
    }
  return HI_OK;
}

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
  err = check_overlaps (s, table_end);
  if (err != HI_OK)
    goto fail;
  s->fd = fd;
  out->ops = &snapshot_ops;
  out->ctx = s;
  return HI_OK;
fail:
  free (s);
  close (fd);
  return err;
}
