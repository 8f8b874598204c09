/* snapshot.c - writing the root and arenas to a snapshot file, atomically,
   with async-signal-safe calls only.  It knows the format and the OS
   primitives, nothing of the monitor's state: callers refresh what must
   be fresh (the module list) first. */
#include "tools.h"
#include "common/output-name.h"

#include <errno.h>

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

/* 1 if TEMPLATE has a % escape hi_expand_output does not know. */
static int
bad_pattern (const char *template)
{
  if (!*template)
    return 1;
  for (const char *t = template; *t; t++)
    if (*t == '%')
      {
        if (t[1] != 'p' && t[1] != '%')
          return 1;
        t++;
      }
  return 0;
}

/* Once per process: the first snapshot that could not be written says
   why on stderr; later ones would only repeat it. */
static void
warn_once (const char *const *parts, int n)
{
  if (atomic_exchange (&hi_state.snapshot_warned, 1) == 0)
    hi_prim_warnv (parts, n);
}

static void
warn_file (const char *path, int err)
{
  const char *parts[] = { "cannot write the snapshot ", path, ": ",
                          hi_prim_errstr (err) };
  warn_once (parts, 4);
}

int
hi_snapshot_write (const char *template, int warn)
{
  char path[1024], tmp[1024 + 56];
  if (!template
      || hi_expand_output (path, sizeof path, template,
                           (long) hi_prim_pid ()) < 0)
    {
      if (warn && template)
        {
          const char *parts[] = {
            "cannot write the snapshot: HEAPINSPECT_OUTPUT=", template,
            bad_pattern (template)
            ? ": invalid pattern (only %p and %% are expanded)"
            : ": the file name is too long" };
          warn_once (parts, 3);
        }
      errno = EINVAL;
      return -1;
    }
  /* Each writer its own temporary (PATH.tmp.PID.TID): two threads
     writing at once each publish a whole file, never one the other cut. */
  char *t = put_str (tmp, tmp + sizeof tmp - 48, path);
  t = put_str (t, tmp + sizeof tmp - 48, ".tmp.");
  t = put_uint (t, tmp + sizeof tmp - 25, hi_prim_pid ());
  t = put_str (t, tmp + sizeof tmp - 24, ".");
  t = put_uint (t, tmp + sizeof tmp - 1, hi_prim_tid ());
  *t = '\0';

  /* Region sizes come from one copy of the root, written first, so the
     file is consistent with itself even while threads keep allocating. */
  struct hi_root root = heapinspect_root;
  hi_prim_clocks (&root.snapshot_realtime_ns, &root.snapshot_monotonic_ns);
  /* The program's own time: not the time `run --leak-check` held it at
     its exit stop to scan it (leakstop.c), or its run time would count
     the scan. */
  root.snapshot_realtime_ns -= hi_state.leak_stop.held_ns;
  root.snapshot_monotonic_ns -= hi_state.leak_stop.held_ns;
  struct hi_snap_region reg[HI_MAX_ARENAS + HI_MAX_MORE_ARENAS + 1];
  uint32_t nreg = 0;
  reg[nreg++] = (struct hi_snap_region) {
    (uint64_t) (uintptr_t) &heapinspect_root, sizeof root, 0 };
  for (uint32_t i = 0; i < root.n_arenas
                       && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    {
      const struct hi_arena_desc *a = i < HI_MAX_ARENAS ? &root.arenas[i]
                                      : &root.more_arenas[i - HI_MAX_ARENAS];
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

  /* A device, a FIFO or the program's own stdout (/dev/stdout, a link
     into /proc) is written in place: a rename would replace it, as
     root /dev/null or the link /dev/stdout. */
  int fd = hi_prim_open_special (path);
  int in_place = fd >= 0;
  if (fd == -2)
    {
      fd = hi_prim_create (tmp);
      if (fd < 0 && errno == EEXIST && hi_prim_unlink (tmp) == 0)
        fd = hi_prim_create (tmp);
    }
  if (fd < 0)
    {
      int saved = errno;
      if (warn)
        warn_file (path, saved);
      errno = saved;
      return -1;
    }
  /* A pipe's reader may leave (`| head'): EPIPE, not SIGPIPE. */
  struct hi_prim_sigpipe hold;
  if (in_place)
    hi_prim_sigpipe_hold (&hold);
  static const char pad[16];
  int bad = hi_prim_write_all (fd, &h, sizeof h)
            || hi_prim_write_all (fd, reg, nreg * sizeof reg[0])
            || hi_prim_write_all (fd, &root, sizeof root)
            || hi_prim_write_all (fd, pad, (16 - sizeof root % 16) % 16);
  for (uint32_t i = 1; i < nreg && !bad; i++)
    bad = hi_prim_write_all (fd, (const void *) (uintptr_t) reg[i].addr,
                             reg[i].size)
          || hi_prim_write_all (fd, pad, (16 - reg[i].size % 16) % 16);
  /* A reader scanning memory for the root must not find this copy. */
  *(volatile uint64_t *) &root.magic = 0;
  int saved = errno;
  if (in_place)
    hi_prim_sigpipe_release (&hold);
  if (hi_prim_close (fd) != 0 && !bad)
    {
      bad = 1;
      saved = errno;
    }
  if (bad || (!in_place && hi_prim_rename (tmp, path) != 0))
    {
      if (!bad)
        saved = errno;
      if (!in_place)
        hi_prim_unlink (tmp);
      if (warn)
        warn_file (path, saved);
      errno = saved;
      return -1;
    }
  hi_state.wrote_in_place = in_place;
  HI_ADD (heapinspect_root.totals.snapshots, 1);
  return 0;
}
