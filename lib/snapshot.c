/* snapshot.c - writing the root and arenas to a snapshot file, atomically,
   with async-signal-safe calls only. */
#define _GNU_SOURCE
#include "monitor.h"
#include "heapinspect/heapinspect.h"
#include "output-name.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int
write_all (int fd, const void *buf, uint64_t n)
{
  const char *p = buf;
  while (n > 0)
    {
      ssize_t w = write (fd, p, n > (1u << 30) ? (1u << 30) : (size_t) n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      p += w;
      n -= (uint64_t) w;
    }
  return 0;
}

static char *
put_str (char *o, char *end, const char *s)
{
  while (*s && o < end)
    *o++ = *s++;
  return o;
}

static char *
put_uint (char *o, char *end, uint64_t v)
{
  char tmp[24];
  int n = 0;
  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0 && o < end)
    *o++ = tmp[--n];
  return o;
}

int
hi_snapshot_write (const char *template, int from_signal)
{
  char path[1024], tmp[1024 + 32];
  if (hi_expand_output (path, sizeof path, template,
                        (long) hi_prim_pid ()) < 0)
    {
      errno = EINVAL;
      return -1;
    }
  char *t = put_str (tmp, tmp + sizeof tmp - 24, path);
  t = put_str (t, tmp + sizeof tmp - 24, ".tmp.");
  t = put_uint (t, tmp + sizeof tmp - 1, hi_prim_pid ());
  *t = '\0';
  if (!from_signal)
    hi_modules_refresh ();

  /* Region sizes come from one copy of the root, written first, so the
     file is consistent with itself even while threads keep allocating. */
  struct hi_root root = heapinspect_root;
  struct hi_snap_region reg[HI_MAX_ARENAS + 1];
  uint32_t nreg = 0;
  reg[nreg++] = (struct hi_snap_region) {
    (uint64_t) (uintptr_t) &heapinspect_root, sizeof root, 0 };
  for (uint32_t i = 0; i < root.n_arenas && i < HI_MAX_ARENAS; i++)
    {
      const struct hi_arena_desc *a = &root.arenas[i];
      uint64_t count = a->count < a->capacity ? a->count : a->capacity;
      if (a->kind == HI_ARENA_HASH || !a->addr || count == 0)
        continue;
      reg[nreg++] = (struct hi_snap_region) { a->addr,
                                              count * a->entry_size, 0 };
    }
  struct hi_snap_header h = { HI_SNAP_MAGIC, HI_FORMAT_VERSION, nreg,
                              (uint64_t) (uintptr_t) &heapinspect_root,
                              hi_prim_pid () };
  uint64_t off = sizeof h + nreg * sizeof reg[0];
  for (uint32_t i = 0; i < nreg; i++)
    {
      reg[i].offset = off;
      off += (reg[i].size + 15) & ~UINT64_C(15);
    }

  int fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0600);
  if (fd < 0 && errno == EEXIST && unlink (tmp) == 0)
    fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
               0600);
  if (fd < 0)
    {
      hi_prim_warn ("cannot create the snapshot file (HEAPINSPECT_OUTPUT)");
      return -1;
    }
  static const char pad[16];
  int bad = write_all (fd, &h, sizeof h)
            || write_all (fd, reg, nreg * sizeof reg[0])
            || write_all (fd, &root, sizeof root)
            || write_all (fd, pad, (16 - sizeof root % 16) % 16);
  for (uint32_t i = 1; i < nreg && !bad; i++)
    bad = write_all (fd, (const void *) (uintptr_t) reg[i].addr, reg[i].size)
          || write_all (fd, pad, (16 - reg[i].size % 16) % 16);
  /* A reader scanning memory for the root must not find this copy. */
  *(volatile uint64_t *) &root.magic = 0;
  int saved = errno;
  if (close (fd) != 0)
    bad = 1;
  if (bad || rename (tmp, path) != 0)
    {
      saved = errno;
      unlink (tmp);
      hi_prim_warn ("cannot write the snapshot file (HEAPINSPECT_OUTPUT)");
      errno = saved;
      return -1;
    }
  HI_ADD (heapinspect_root.totals.snapshots, 1);
  return 0;
}

__attribute__ ((visibility ("default"))) int
heapinspect_snapshot (const char *path)
{
  if (!hi_ensure_init ())
    {
      errno = EAGAIN;
      return -1;
    }
  hi_tls.busy++;
  int r = hi_snapshot_write (path ? path : hi_state.output, 0);
  hi_tls.busy--;
  return r;
}
