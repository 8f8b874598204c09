/* cache.c - the monitor's arenas kept between heap commands while the
   inferior does not run (over gdbserver a command read ~24 MB each time).

   The copy lives in a memfd that gdb keeps open (found again by its name
   in /proc/self/fd: the plugin is dlclosed after every command).  It is
   valid while the key is unchanged: the root (arena counts, totals) and,
   per thread, the counters the monitor adds to on every call (calls,
   allocations, frees, bytes).  The inferior cannot change an arena
   without changing one of those, so a stop with no allocator call in
   between reuses the copy, and any call invalidates it.  The key costs
   one small read per thread. */
#define _GNU_SOURCE
#include "plugin.h"

#include <heapinspect/format.h>

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_NAME "heapinspect-gdb-cache"
#define CACHE_MAGIC UINT64_C(0x0145484341434948) /* "HICACHE\1" */
#define MAX_RANGES (HI_MAX_ARENAS + HI_MAX_MORE_ARENAS)
/* Per thread, the key: the record's start up to the end of calls[]. */
#define THREAD_KEY (offsetof (struct hi_thread, calls) \
                    + sizeof ((struct hi_thread *) 0)->calls)
#define MAX_THREADS 4096u

struct range
{
  uint64_t addr, len, offset;   /* offset in the file */
};

struct header
{
  uint64_t magic;
  uint64_t root_addr;
  uint64_t key_len;             /* key bytes follow the header */
  uint64_t n_ranges;
  struct range ranges[MAX_RANGES];
};

struct hi_gdb_cache
{
  struct hi_target inner;
  int fd;
  int valid;                    /* the file's copy is the inferior's now */
  int off;                      /* neither use the file nor fill it */
  struct header h;
  unsigned char *key;
  uint64_t end;                 /* where the next range's bytes go */
  struct hi_root root;
  uint64_t from_inferior, from_cache;
};

static int
direct_read (struct hi_gdb_cache *c, uint64_t addr, void *buf, size_t len)
{
  c->from_inferior += len;
  return c->inner.ops->read_memory (c->inner.ctx, addr, buf, len);
}

/* 1 if [ADDR, ADDR+LEN) lies in one arena's entries in use. */
static int
in_arena (const struct hi_root *r, uint64_t addr, uint64_t len)
{
  for (uint32_t i = 0; i < r->n_arenas
                       && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    {
      const struct hi_arena_desc *a = i < HI_MAX_ARENAS ? &r->arenas[i]
                                      : &r->more_arenas[i - HI_MAX_ARENAS];
      uint64_t size = a->count * a->entry_size;
      if (a->entry_size && a->count <= UINT64_MAX / a->entry_size
          && addr >= a->addr && len <= size && addr - a->addr <= size - len)
        return 1;
    }
  return 0;
}

static int
cache_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct hi_gdb_cache *c = ctx;
  if (c->valid)
    for (uint64_t i = 0; i < c->h.n_ranges; i++)
      {
        const struct range *g = &c->h.ranges[i];
        if (addr >= g->addr && len <= g->len && addr - g->addr <= g->len - len)
          {
            if (pread (c->fd, buf, len, (off_t) (g->offset + addr - g->addr))
                == (ssize_t) len)
              {
                c->from_cache += len;
                return 0;
              }
            break;
          }
      }
  if (direct_read (c, addr, buf, len) != 0)
    return -1;
  if (c->off || c->valid)
    return 0;
  if (c->h.n_ranges == MAX_RANGES)
    c->off = 1;               /* more than we expected: keep nothing */
  else if (in_arena (&c->root, addr, len))
    {
      if (pwrite (c->fd, buf, len, (off_t) c->end) != (ssize_t) len)
        {
          c->off = 1;
          return 0;
        }
      c->h.ranges[c->h.n_ranges++] = (struct range) { addr, len, c->end };
      c->end += (len + 15) & ~(uint64_t) 15;
    }
  return 0;
}

static int
cache_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct hi_gdb_cache *c = ctx;
  return c->inner.ops->lookup_symbol (c->inner.ctx, name, addr);
}

static const struct hi_target_ops cache_ops = {
  cache_read, cache_symbol, NULL, NULL, NULL, NULL, NULL
};

/* Our memfd among gdb's descriptors, or a new one; -1 if neither. */
static int
cache_fd (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (d)
    {
      struct dirent *e;
      int found = -1;
      while (found < 0 && (e = readdir (d)) != NULL)
        {
          char link[300], target[256];
          snprintf (link, sizeof link, "/proc/self/fd/%s", e->d_name);
          ssize_t n = readlink (link, target, sizeof target - 1);
          if (n <= 0)
            continue;
          target[n] = '\0';
          struct stat st;
          int fd = atoi (e->d_name);
          if (strcmp (target, "/memfd:" CACHE_NAME " (deleted)") == 0
              && fd != dirfd (d) && fstat (fd, &st) == 0
              && S_ISREG (st.st_mode) && st.st_uid == getuid ())
            found = fd;
        }
      closedir (d);
      if (found >= 0)
        return found;
    }
  return memfd_create (CACHE_NAME, MFD_CLOEXEC);
}

/* The key of the inferior now: the root, then each thread's counters. */
static int
read_key (struct hi_gdb_cache *c, uint64_t root)
{
  if (direct_read (c, root, &c->root, sizeof c->root) != 0
      || c->root.magic != HI_ROOT_MAGIC
      || c->root.n_arenas > HI_MAX_ARENAS + HI_MAX_MORE_ARENAS)
    return -1;
  const struct hi_arena_desc *threads = NULL;
  for (uint32_t i = 0; i < c->root.n_arenas && i < HI_MAX_ARENAS; i++)
    if (c->root.arenas[i].kind == HI_ARENA_THREADS)
      threads = &c->root.arenas[i];
  if (!threads || threads->entry_size != sizeof (struct hi_thread)
      || threads->count > MAX_THREADS)
    return -1;
  c->h.key_len = sizeof c->root + threads->count * THREAD_KEY;
  c->key = malloc (c->h.key_len);
  if (!c->key)
    return -1;
  memcpy (c->key, &c->root, sizeof c->root);
  for (uint64_t t = 0; t < threads->count; t++)
    if (direct_read (c, threads->addr + t * sizeof (struct hi_thread),
                     c->key + sizeof c->root + t * THREAD_KEY, THREAD_KEY))
      return -1;
  return 0;
}

struct hi_gdb_cache *
hi_gdb_cache_open (const struct hi_target *inner, uint64_t root,
                   struct hi_target *out)
{
  *out = *inner;
  struct hi_gdb_cache *c = calloc (1, sizeof *c);
  if (!c)
    return NULL;
  c->inner = *inner;
  c->fd = -1;
  if (read_key (c, root) != 0 || (c->fd = cache_fd ()) < 0)
    {
      /* No cache: the model reads directly (the counts stay right). */
      c->off = 1;
      *out = (struct hi_target) { &cache_ops, c, 0 };
      return c;
    }
  struct header old;
  unsigned char *old_key = malloc (c->h.key_len);
  c->valid = old_key && pread (c->fd, &old, sizeof old, 0) == sizeof old
             && old.magic == CACHE_MAGIC && old.root_addr == root
             && old.key_len == c->h.key_len && old.n_ranges <= MAX_RANGES
             && pread (c->fd, old_key, c->h.key_len, sizeof old)
                == (ssize_t) c->h.key_len
             && memcmp (old_key, c->key, c->h.key_len) == 0;
  free (old_key);
  if (c->valid)
    c->h = old;
  else
    {
      c->h.magic = 0;               /* written, valid, at close */
      c->h.root_addr = root;
      c->h.n_ranges = 0;
      if (ftruncate (c->fd, 0) != 0
          || pwrite (c->fd, c->key, c->h.key_len, sizeof c->h)
             != (ssize_t) c->h.key_len)
        c->off = 1;
      c->end = (sizeof c->h + c->h.key_len + 15) & ~(uint64_t) 15;
    }
  *out = (struct hi_target) { &cache_ops, c, 0 };
  return c;
}

void
hi_gdb_cache_close (struct hi_gdb_cache *c, FILE *out)
{
  if (!c)
    return;
  if (!c->valid && !c->off)
    {
      c->h.magic = CACHE_MAGIC;
      if (pwrite (c->fd, &c->h, sizeof c->h, 0) != sizeof c->h)
        (void) ftruncate (c->fd, 0);
    }
  if (getenv ("HEAPINSPECT_GDB_DEBUG"))
    fprintf (out, "heap: debug: %" PRIu64 " bytes read from the inferior, %"
             PRIu64 " from the cache\n", c->from_inferior, c->from_cache);
  free (c->key);
  free (c);
}
