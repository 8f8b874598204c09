/* target-raw.c - a raw memory dump (one contiguous range, from a board's
   debugger or /dev/mem) as a target. */
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

#define RAW_MAX 64

struct raw
{
  int fd[RAW_MAX];
  uint64_t base[RAW_MAX], size[RAW_MAX];
  size_t n;
  const char *elf;
};

static int
raw_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct raw *r = ctx;
  for (size_t i = 0; i < r->n; i++)
    if (addr >= r->base[i] && addr - r->base[i] <= r->size[i]
        && len <= r->size[i] - (addr - r->base[i]))
      return pread (r->fd[i], buf, len, (off_t) (addr - r->base[i]))
             == (ssize_t) len ? 0 : -1;
  return -1;
}

static int
raw_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct raw *r = ctx;
  return r->elf ? hi_find_symbol_in_mappings (NULL, 0, r->elf, name, addr)
                : -1;
}

static int
raw_region (void *ctx, size_t i, uint64_t *addr, uint64_t *size)
{
  struct raw *r = ctx;
  if (i >= r->n)
    return -1;
  *addr = r->base[i];
  *size = r->size[i];
  return 0;
}

/* The dumps as mappings of the process, in address order, readable and
   writable (a dump says nothing of protection); none if two overlap:
   then they are not one process's memory as it was mapped.  No threads. */
static int
raw_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  struct raw *r = ctx;
  if (i >= r->n)
    return -1;
  size_t order[RAW_MAX], n = 0;
  for (size_t k = 0; k < r->n; k++)
    {
      size_t j = n++;
      for (; j > 0 && r->base[order[j - 1]] > r->base[k]; j--)
        order[j] = order[j - 1];
      order[j] = k;
    }
  for (size_t k = 0; k + 1 < n; k++)
    if (r->base[order[k]] + r->size[order[k]] > r->base[order[k + 1]]
        || r->base[order[k]] + r->size[order[k]] < r->base[order[k]])
      return -1;
  size_t k = order[i];
  memset (out, 0, sizeof *out);
  out->start = r->base[k];
  out->end = r->base[k] + r->size[k];
  out->prot = HI_MAP_READ | HI_MAP_WRITE;
  out->in_target = 1;
  return 0;
}

static void
raw_close (void *ctx)
{
  struct raw *r = ctx;
  for (size_t i = 0; i < r->n; i++)
    close (r->fd[i]);
  free (r);
}

static const struct hi_target_ops raw_ops = {
  raw_read, raw_symbol, raw_close, raw_region, NULL, raw_mapping, NULL
};

int
hi_target_raw_backed (const struct hi_target *t, uint64_t *bytes)
{
  if (t->ops != &raw_ops)
    return -1;
  const struct raw *r = t->ctx;
  *bytes = 0;
  for (size_t i = 0; i < r->n; i++)
    *bytes += r->size[i];
  return 0;
}

hi_status
hi_target_open_raw (const char *const *paths, const uint64_t *bases,
                    size_t n, const char *elf, struct hi_target *out)
{
  hi_error_reset ();
  struct raw *r = calloc (1, sizeof *r);
  if (!r)
    return HI_E_NOMEM;
  r->elf = elf;
  for (size_t i = 0; i < n && i < RAW_MAX; i++)
    {
      struct stat st;
      int fd = hi_open_regular (paths[i]);
      if (fd < 0 || fstat (fd, &st) != 0)
        {
          int err = errno;
          if (fd >= 0)
            close (fd);
          raw_close (r);
          return hi_fail (HI_E_IO, err);
        }
      r->fd[r->n] = fd;
      r->base[r->n] = bases[i];
      r->size[r->n++] = (uint64_t) st.st_size;
    }
  out->ops = &raw_ops;
  out->ctx = r;
  return HI_OK;
}
