/* reach-map.c - the target's memory map, threads and reads, as the
   reachability scan sees them. */
#define _GNU_SOURCE
#include "target/target.h"
#include "model/model.h"
#include "reach/reach-int.h"
#include "util/vec.h"
#include "util/sort.h"
#include "heapinspect/leak-stop.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAPS_MAX 10000000u
#define THREADS_MAX 100000u
#define PAGE 4096u

_Static_assert (HI_EXIT_STOP_REGS <= sizeof ((struct hi_scan *) 0)->exit_regs
                / sizeof (uint64_t), "room for the exit stop's registers");

int
hi_ranges_add (struct hi_ranges *r, uint64_t start, uint64_t end)
{
  if (end <= start)
    return 0;
  if (hi_grow ((void **) &r->v, &r->cap, r->n + 1, sizeof *r->v) != 0)
    return -1;
  r->v[r->n++] = (struct hi_range) { start, end };
  return 0;
}

static int
range_cmp (const void *x, const void *y)
{
  const struct hi_range *a = x, *b = y;
  return hi_cmp_u64 (a->start, b->start);
}

void
hi_ranges_normalize (struct hi_ranges *r)
{
  if (r->n < 2)
    return;
  qsort (r->v, r->n, sizeof *r->v, range_cmp);
  size_t n = 1;
  for (size_t i = 1; i < r->n; i++)
    if (r->v[i].start <= r->v[n - 1].end)
      {
        if (r->v[i].end > r->v[n - 1].end)
          r->v[n - 1].end = r->v[i].end;
      }
    else
      r->v[n++] = r->v[i];
  r->n = n;
}

void
hi_ranges_free (struct hi_ranges *r)
{
  free (r->v);
  *r = (struct hi_ranges) { 0 };
}

static int
map_cmp (const void *x, const void *y)
{
  const struct hi_map_entry *a = x, *b = y;
  return hi_cmp_u64 (a->start, b->start);
}

/* The arena described by D as memory: its entries, to the end of their
   last page (the monitor maps whole pages). */
static void
add_arena (struct hi_scan *s, const struct hi_arena_desc *d, int *failed)
{
  if (!d->addr || !d->capacity || !d->entry_size)
    return;
  uint64_t bytes = d->capacity * d->entry_size;
  if (bytes / d->entry_size != d->capacity || d->addr + bytes < d->addr)
    return;
  uint64_t end = d->addr + bytes;
  end = end + (PAGE - 1) < end ? end : (end + PAGE - 1) & ~(uint64_t) (PAGE - 1);
  if (hi_ranges_add (&s->monitor, d->addr & ~(uint64_t) (PAGE - 1), end))
    *failed = 1;
}

/* The monitor's exit stop record, if the target holds one that is set
   (the target is held at `run --leak-check`'s stop) and names one of its
   threads, with exit()'s frame on that thread's stack above its stack
   pointer.  Anything else leaves the roots as they are. */
static void
exit_stop (struct hi_scan *s)
{
  const struct hi_target *t = s->t;
  struct hi_exit_stop rec;
  uint64_t addr;
  s->exit_thread = SIZE_MAX;
  if (!t->ops->lookup_symbol
      || t->ops->lookup_symbol (t->ctx, HI_EXIT_STOP_SYMBOL, &addr) != 0
      || t->ops->read_memory (t->ctx, addr, &rec, sizeof rec) != 0
      || rec.magic != HI_EXIT_STOP_MAGIC)
    return;
  for (size_t i = 0; i < s->n_threads; i++)
    {
      if (s->threads[i].tid != rec.tid)
        continue;
      const struct hi_map_entry *e = hi_scan_mapping_of (s,
                                                         s->threads[i].sp);
      if (!e || rec.cfa < s->threads[i].sp || rec.cfa > e->end)
        return;
      s->exit_thread = i;
      s->exit_cfa = rec.cfa;
      s->n_exit_regs = rec.n_regs == HI_EXIT_STOP_REGS ? HI_EXIT_STOP_REGS
                       : 0;
      for (unsigned k = 0; k < s->n_exit_regs; k++)
        s->exit_regs[k] = rec.regs[k];
      return;
    }
}

hi_status
hi_scan_map (struct hi_scan *s)
{
  const struct hi_target *t = s->t;
  if (!t->ops->mapping)
    return HI_E_NO_MEMORY;
  size_t cap = 0;
  struct hi_map_entry e;
  for (size_t i = 0; i < MAPS_MAX && t->ops->mapping (t->ctx, i, &e) == 0;
       i++)
    {
      if (e.end <= e.start)
        continue;
      if (hi_grow ((void **) &s->maps, &cap, s->n_maps + 1,
                   sizeof *s->maps) != 0)
        return HI_E_NOMEM;
      e.path[HI_MAP_PATH_MAX - 1] = '\0';
      s->maps[s->n_maps++] = e;
    }
  /* In address order, none overlapping (a hostile target may say
     otherwise: the later one is cut). */
  if (s->n_maps)
    qsort (s->maps, s->n_maps, sizeof *s->maps, map_cmp);
  size_t n = 0;
  for (size_t i = 0; i < s->n_maps; i++)
    {
      struct hi_map_entry *m = &s->maps[i];
      if (n && m->start < s->maps[n - 1].end)
        m->start = s->maps[n - 1].end;
      if (m->end > m->start)
        s->maps[n++] = *m;
    }
  s->n_maps = n;
  if (!n)
    s->r->skipped.no_mappings = 1;
  cap = 0;
  struct hi_thread_regs th;
  for (size_t i = 0; t->ops->thread_regs && i < THREADS_MAX
       && t->ops->thread_regs (t->ctx, i, &th) == 0; i++)
    {
      if (hi_grow ((void **) &s->threads, &cap, s->n_threads + 1,
                   sizeof *s->threads) != 0)
        return HI_E_NOMEM;
      if (th.n_regs > HI_THREAD_REGS_MAX)
        th.n_regs = HI_THREAD_REGS_MAX;
      s->threads[s->n_threads++] = th;
    }
  if (!s->n_threads)
    s->r->skipped.no_threads = 1;
  exit_stop (s);
  if (!s->m)
    return HI_OK;               /* glibc's heap alone: no monitor memory */
  int failed = 0;
  const struct hi_root *r = &s->m->root;
  for (uint32_t i = 0; i < r->n_arenas && i < HI_MAX_ARENAS; i++)
    add_arena (s, &r->arenas[i], &failed);
  for (uint32_t i = HI_MAX_ARENAS; r->version >= 4 && i < r->n_arenas
       && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    add_arena (s, &r->more_arenas[i - HI_MAX_ARENAS], &failed);
  /* The monitor's private region (format 5): its caches and indexes, no
     root, and left out of cores by design. */
  uint64_t private = r->version >= 5 ? r->client[HI_CLIENT_PRIVATE] : 0;
  if (private && private + HI_PRIVATE_BYTES > private
      && hi_ranges_add (&s->monitor, private, private + HI_PRIVATE_BYTES))
    failed = 1;
  hi_ranges_normalize (&s->monitor);
  return failed ? HI_E_NOMEM : HI_OK;
}

const struct hi_map_entry *
hi_scan_mapping_of (const struct hi_scan *s, uint64_t addr)
{
  size_t lo = hi_upper_bound_u64 (s->maps, s->n_maps, sizeof *s->maps,
                                   offsetof (struct hi_map_entry, start),
                                   addr);
  if (lo == 0)
    return NULL;
  const struct hi_map_entry *e = &s->maps[lo - 1];
  return addr < e->end ? e : NULL;
}

int
hi_scan_map_is_root (const struct hi_map_entry *e)
{
  if ((e->prot & (HI_MAP_READ | HI_MAP_WRITE))
      != (HI_MAP_READ | HI_MAP_WRITE))
    return 0;
  /* memcheck leaves devices alone (reading one may hang or have
     effects), but for /dev/zero, which is plain memory. */
  if (strncmp (e->path, "/dev/", 5) == 0
      && strncmp (e->path, "/dev/zero", 9) != 0
      && strncmp (e->path, "/dev/shm/", 9) != 0)
    return 0;
  return 1;
}

const unsigned char *
hi_scan_read (struct hi_scan *s, uint64_t addr, size_t len)
{
  uint64_t base = addr & ~(HI_SCAN_SLOT - 1);
  if (len == 0 || addr + len < addr)
    return NULL;
  /* A core file's bytes where they lie: no copy. */
  const void *view = hi_target_core_view (s->t, addr, len);
  if (view)
    return view;
  if (addr + len > base + HI_SCAN_SLOT)
    {
      /* Across two pieces (a word, at most): read it as it is. */
      if (len > sizeof s->scratch
          || s->t->ops->read_memory (s->t->ctx, addr, s->scratch, len) != 0)
        return NULL;
      return s->scratch;
    }
  size_t k = hi_scan_slot (addr);
  unsigned char *slot = s->cache + k * HI_SCAN_SLOT;
  if (addr >= s->slot_lo[k] && addr + len <= s->slot_hi[k])
    return slot + (addr - base);
  const struct hi_map_entry *e = hi_scan_mapping_of (s, addr);
  if (!e || !e->in_target || len > e->end - addr)
    return NULL;
  /* The piece, as far as the mapping goes. */
  uint64_t lo = base < e->start ? e->start : base;
  uint64_t hi = e->end - base < HI_SCAN_SLOT ? e->end : base + HI_SCAN_SLOT;
  s->slot_lo[k] = s->slot_hi[k] = 0;
  s->slot_gen[k]++;
  if (s->t->ops->read_memory (s->t->ctx, lo, slot + (lo - base), hi - lo) != 0)
    {
      /* A torn mapping: read just what was asked. */
      lo = addr;
      hi = addr + len;
      if (s->t->ops->read_memory (s->t->ctx, lo, slot + (lo - base), len) != 0)
        return NULL;
    }
  s->slot_lo[k] = lo;
  s->slot_hi[k] = hi;
  return slot + (addr - base);
}
