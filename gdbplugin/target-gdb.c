/* target-gdb.c - gdb's inferior as a reader target: its memory through
   the JIT reader's target_read, and for heap lost and heap block its
   memory map (and the bulk of its memory) from the core file gdb reads
   or the live process, else the map gdb printed, with the threads'
   registers heap-run.gdb passed.  Every read fails once Ctrl-C is
   pending (interrupt.c). */
#define _GNU_SOURCE
#include <gdb/jit-reader.h>

#include "plugin.h"

#include <dirent.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
gdb_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct hi_gdb_inferior *g = ctx;
  if (hi_gdb_interrupted ())
    return -1;
  while (len > 0)
    {
      int n = len > (1u << 30) ? 1 << 30 : (int) len;
      if (g->read ((GDB_CORE_ADDR) addr, buf, n) != GDB_SUCCESS)
        return -1;
      buf = (char *) buf + n;
      addr += (uint64_t) n;
      len -= (size_t) n;
    }
  return 0;
}

static int
gdb_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct hi_gdb_inferior *g = ctx;
  if (strcmp (name, "heapinspect_root") != 0 || !g->root)
    return -1;
  *addr = g->root;
  return 0;
}

static const struct hi_target_ops gdb_ops = {
  gdb_read, gdb_symbol, NULL, NULL, NULL, NULL, NULL
};

void
hi_gdb_target (struct hi_gdb_inferior *g, struct hi_target *out)
{
  out->ops = &gdb_ops;
  out->ctx = g;
  out->thread_db = 0;          /* gdb has its own proc_service */
}

static int
lost_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct hi_gdb_mapped *l = ctx;
  if (hi_gdb_interrupted ())
    return -1;
  /* The scan reads all the writable memory: from the core file or the
     process directly when they hold it (the same bytes: find_side
     checked), far faster than gdb's reads; else through gdb. */
  if (l->have_side
      && l->side.ops->read_memory (l->side.ctx, addr, buf, len) == 0)
    return 0;
  return l->inner.ops->read_memory (l->inner.ctx, addr, buf, len);
}

static int
lost_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct hi_gdb_mapped *l = ctx;
  if (l->inner.ops->lookup_symbol (l->inner.ctx, name, addr) == 0)
    return 0;
  /* Others (glibc's, for its heap) from the side's modules. */
  return l->have_side && l->side.ops->lookup_symbol
         ? l->side.ops->lookup_symbol (l->side.ctx, name, addr) : -1;
}

static int
lost_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  struct hi_gdb_mapped *l = ctx;
  if (hi_gdb_interrupted ())
    return -1;
  if (!l->have_side)
    {
      if (i >= l->n_map)
        return -1;
      *out = l->map[i];
      return 0;
    }
  return l->side.ops->mapping ? l->side.ops->mapping (l->side.ctx, i, out)
                              : -1;
}

static int
lost_regs (void *ctx, size_t i, struct hi_thread_regs *out)
{
  struct hi_gdb_mapped *l = ctx;
  if (i >= l->n_regs)
    return -1;
  *out = l->regs[i];
  return 0;
}

static const struct hi_target_ops lost_ops = {
  lost_read, lost_symbol, NULL, NULL, NULL, lost_mapping, lost_regs
};
static const struct hi_target_ops lost_ops_no_map = {
  lost_read, lost_symbol, NULL, NULL, NULL, NULL, lost_regs
};

/* heap block's threads: the side's (a core's NT_PRSTATUS; a live
   process opened for its map has none: its stack is named by the map). */
static int
block_regs (void *ctx, size_t i, struct hi_thread_regs *out)
{
  struct hi_gdb_mapped *l = ctx;
  return l->side.ops->thread_regs ? l->side.ops->thread_regs (l->side.ctx, i,
                                                              out) : -1;
}

static const struct hi_target_ops block_ops = {
  lost_read, lost_symbol, NULL, NULL, NULL, lost_mapping, block_regs
};

/* What the side must hold as the inferior does: the monitor's root, or
   with none the bytes at the threads' stack pointers. */
struct probe
{
  uint64_t root;
  const struct hi_thread_regs *regs;
  size_t n_regs;
};

/* 1 if INNER and SIDE hold the same LEN bytes at ADDR. */
static int
same_bytes (const struct hi_target *inner, const struct hi_target *side,
            uint64_t addr, size_t len)
{
  unsigned char *a = malloc (2 * len);
  int same = a && inner->ops->read_memory (inner->ctx, addr, a, len) == 0
             && side->ops->read_memory (side->ctx, addr, a + len, len) == 0
             && memcmp (a, a + len, len) == 0;
  free (a);
  return same;
}

/* 1 if SIDE is the inferior INNER: the same monitor root (the salt and
   the totals make it unique), or the same top of every stack that gdb
   and SIDE can both read (at least one). */
static int
same_inferior (const struct hi_target *inner, const struct hi_target *side,
               const struct probe *p)
{
  if (p->root)
    return same_bytes (inner, side, p->root, sizeof (struct hi_root));
  size_t same = 0;
  for (size_t i = 0; i < p->n_regs; i++)
    {
      uint64_t sp = p->regs[i].sp;
      unsigned char x;
      if (inner->ops->read_memory (inner->ctx, sp, &x, 1) != 0)
        continue;
      if (!same_bytes (inner, side, sp, 256))
        return 0;
      same++;
    }
  return same > 0;
}

/* The process gdb's map says it is of ("process N", on a live or remote
   target), else the monitor's root's; 0 if neither says. */
static int
inferior_pid (const struct hi_target *inner, uint64_t root,
              const char *maps_text)
{
  const char *p = maps_text ? strstr (maps_text, "process ") : NULL;
  if (p && (p == maps_text || p[-1] == '\n'))
    {
      long pid = strtol (p + 8, NULL, 10);
      if (pid > 0 && pid < 0x7fffffff)
        return (int) pid;
    }
  struct hi_root r;
  if (root && inner->ops->read_memory (inner->ctx, root, &r, sizeof r) == 0
      && r.pid > 0 && r.pid < 0x7fffffff)
    return (int) r.pid;
  return 0;
}

/* Where the inferior's memory map is: the core file gdb has open (found
   among gdb's descriptors), else the live process (its /proc/PID/maps);
   either only if it is the inferior (same_inferior).  0 with *SIDE
   open, or -1. */
static int
find_side (const struct hi_target *inner, const struct probe *pr,
           const char *maps_text, struct hi_target *side)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;
  while (d && (e = readdir (d)) != NULL)
    {
      int fd = atoi (e->d_name);
      struct stat st;
      unsigned char h[EI_NIDENT + 2];
      if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd (d)
          || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
          || pread (fd, h, sizeof h, 0) != (ssize_t) sizeof h
          || memcmp (h, ELFMAG, SELFMAG) != 0
          || h[EI_NIDENT] + 256 * h[EI_NIDENT + 1] != ET_CORE)
        continue;
      char path[64];
      snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      if (hi_target_open_core (path, NULL, side) != HI_OK)
        continue;
      if (same_inferior (inner, side, pr))
        {
          closedir (d);
          return 0;
        }
      hi_target_close (side);
    }
  if (d)
    closedir (d);
  int pid = inferior_pid (inner, pr->root, maps_text);
  if (pid && hi_target_open_maps (pid, side) == HI_OK)
    {
      if (same_inferior (inner, side, pr))
        return 0;
      hi_target_close (side);
    }
  return -1;
}

static void
mapped_open (struct hi_gdb_mapped *m, const struct hi_target *inner,
             const struct probe *pr, const char *maps_text)
{
  *m = (struct hi_gdb_mapped) { *inner, { NULL, NULL, 0 }, 0, NULL, 0, NULL,
                                0, NULL };
  m->have_side = find_side (inner, pr, maps_text, &m->side) == 0;
  if (!m->have_side && maps_text)
    hi_gdb_parse_maps (maps_text, &m->map, &m->n_map);
}

void
hi_gdb_mapped_open (struct hi_gdb_mapped *m, const struct hi_target *inner,
                    uint64_t root, const char *maps_text)
{
  struct probe pr = { root, NULL, 0 };
  mapped_open (m, inner, &pr, maps_text);
}

void
hi_gdb_mapped_open_stacks (struct hi_gdb_mapped *m,
                           const struct hi_target *inner,
                           const struct hi_thread_regs *regs, size_t n_regs,
                           const char *maps_text)
{
  struct probe pr = { 0, regs, n_regs };
  mapped_open (m, inner, &pr, maps_text);
}

void
hi_gdb_mapped_lost (struct hi_gdb_mapped *m,
                    const struct hi_thread_regs *regs, size_t n_regs,
                    struct hi_target *out)
{
  m->regs = regs;
  m->n_regs = n_regs;
  out->ops = m->have_side || m->n_map ? &lost_ops : &lost_ops_no_map;
  out->ctx = m;
  out->thread_db = 0;          /* gdb has its own proc_service */
  free (m->own_regs);
  m->own_regs = n_regs ? malloc (n_regs * sizeof *regs) : NULL;
  if (!m->own_regs)
    return;
  for (size_t i = 0; i < n_regs; i++)
    {
      m->own_regs[i] = regs[i];
      uint64_t tid;
      if (hi_target_thread_id (out, regs[i].fs_base, &tid) == 0)
        m->own_regs[i].tid = tid;
    }
  m->regs = m->own_regs;
}

void
hi_gdb_mapped_block (struct hi_gdb_mapped *m, struct hi_target *out)
{
  m->regs = NULL;
  m->n_regs = 0;
  if (m->have_side)
    *out = (struct hi_target) { &block_ops, m, 0 };
  else if (m->n_map)
    *out = (struct hi_target) { &lost_ops, m, 0 };   /* no threads */
  else
    *out = m->inner;
}

const struct hi_target *
hi_gdb_mapped_clock (const struct hi_gdb_mapped *m)
{
  return m->have_side ? &m->side : NULL;
}

void
hi_gdb_mapped_close (struct hi_gdb_mapped *m)
{
  if (m->have_side)
    hi_target_close (&m->side);
  m->have_side = 0;
  free (m->map);
  m->map = NULL;
  m->n_map = 0;
  free (m->own_regs);
  m->own_regs = NULL;
}
