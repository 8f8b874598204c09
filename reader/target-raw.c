/* target-raw.c - a raw memory dump (one contiguous range, from a board's
   debugger or /dev/mem) as a target. */
#define _GNU_SOURCE
#include "hi-reader.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct raw
{
  int fd;
  uint64_t base, size;
  const char *elf;
};

static int
raw_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct raw *r = ctx;
  if (addr < r->base || addr - r->base > r->size
      || len > r->size - (addr - r->base))
    return -1;
  return pread (r->fd, buf, len, (off_t) (addr - r->base)) == (ssize_t) len
         ? 0 : -1;
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
  if (i > 0)
    return -1;
  *addr = r->base;
  *size = r->size;
  return 0;
}

static void
raw_close (void *ctx)
{
  struct raw *r = ctx;
  close (r->fd);
  free (r);
}

static const struct hi_target_ops raw_ops = {
  raw_read, raw_symbol, raw_close, raw_region, NULL
};

hi_status
hi_target_open_raw (const char *path, uint64_t base, const char *elf,
                    struct hi_target *out)
{
  struct stat st;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      if (fd >= 0)
        close (fd);
      return HI_E_IO;
    }
  struct raw *r = calloc (1, sizeof *r);
  if (!r)
    {
      close (fd);
      return HI_E_NOMEM;
    }
  *r = (struct raw) { fd, base, (uint64_t) st.st_size, elf };
  out->ops = &raw_ops;
  out->ctx = r;
  return HI_OK;
}
