/* glibc-load.c - reading glibc's heap into the model of glibc.h:
   libc found among the target's mappings, its version from its own
   string, main_arena and mp_ from its debug file, then every arena of
   the ring from main_arena, each walked the way int_mallinfo walks it
   (top, fastbins, bins), never trusting a word. */
#define _GNU_SOURCE
#include "glibc/glibc.h"
#include "target/target.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ARENAS 4096u
#define MAX_HEAPS 65536u

struct walk
{
  const struct hi_target *t;
  const struct hi_glibc_layout *l;
  struct hi_glibc *g;
  int nomem;
};

static int
read64 (const struct walk *w, uint64_t addr, uint64_t *v)
{
  return hi_glibc_word (w->g, w->t, addr, v);
}

/* The libc.so.6 mapping's start and file.  0, or -1. */
static int
find_libc (const struct hi_target *t, uint64_t *start, char *path,
           size_t size)
{
  struct hi_map_entry e;
  for (size_t i = 0; t->ops->mapping (t->ctx, i, &e) == 0; i++)
    {
      const char *base = strrchr (e.path, '/');
      if (e.file_offset == 0 && base && strncmp (base, "/libc.so.", 9) == 0)
        {
          *start = e.start;
          snprintf (path, size, "%s", e.path);
          return 0;
        }
    }
  return -1;
}

/* A version string V (digits and dots, NUL-terminated) into G->version.
   0, or -1 if V is not one. */
static int
take_version (struct hi_glibc *g, const char *v)
{
  if (!v[0] || strlen (v) >= sizeof g->version
      || strspn (v, "0123456789.") != strlen (v))
    return -1;
  snprintf (g->version, sizeof g->version, "%s", v);
  return 0;
}

/* libc's banner in its file PATH ("GNU C Library ... release version
   2.31.\n", csu/version.c's, in every version): the version from it.
   For libcs before 2.34, whose __nptl_version is libpthread's.  0, or
   -1. */
static int
banner_version (struct hi_glibc *g, const char *path)
{
  static const char key[] = "release version ";
  enum { BLOCK = 1 << 20, KEEP = 64, MAX_BLOCKS = 64 };
  FILE *f = fopen (path, "rb");
  char *buf = malloc (BLOCK + KEEP + 1);
  int found = -1;
  size_t have = 0;
  for (int b = 0; f && buf && found != 0 && b < MAX_BLOCKS; b++)
    {
      size_t n = fread (buf + have, 1, BLOCK, f);
      if (n == 0)
        break;
      have += n;
      buf[have] = 0;
      /* Every occurrence (memmem: the file holds NULs). */
      for (char *p = buf; found != 0 && p < buf + have;)
        {
          char *k = memmem (p, (size_t) (buf + have - p), key,
                            sizeof key - 1);
          if (!k)
            break;
          char *v = k + sizeof key - 1;
          size_t len = strspn (v, "0123456789.");
          if (v + len < buf + have && len > 1 && len < sizeof g->version
              && v[len - 1] == '.')
            {
              char version[sizeof g->version];
              memcpy (version, v, len - 1);
              version[len - 1] = 0;
              found = take_version (g, version);
            }
          p = k + 1;
        }
      /* Keep the last bytes: the key may straddle two blocks. */
      size_t keep = have < KEEP ? have : KEEP;
      memmove (buf, buf + have - keep, keep);
      have = keep;
    }
  free (buf);
  if (f)
    fclose (f);
  return found;
}

/* glibc's version string ("2.36") into G->version: __nptl_version (in
   libc since 2.34), from the target or from libc's file PATH mapped at
   LIBC (its first PT_LOAD at address 0, as a shared library's); else
   libc's banner.  0, or -1. */
static int
find_version (const struct hi_target *t, struct hi_glibc *g,
              const char *path, uint64_t libc)
{
  uint64_t at;
  char v[sizeof g->version];
  memset (v, 0, sizeof v);
  if (t->ops->lookup_symbol
      && t->ops->lookup_symbol (t->ctx, "__nptl_version", &at) == 0)
    for (size_t n = sizeof v - 1; n > 0; n--)
      if (hi_target_read_object (t, at, v, n, path, libc) == 0)
        break;
  v[sizeof v - 1] = 0;
  if (take_version (g, v) == 0)
    return 0;
  return banner_version (g, path);
}

/* A chunk's size from its size word, or 0 if it cannot be one (a bad
   size is damage; the caller stops). */
static uint64_t
chunk_size (const struct walk *w, uint64_t chunk, uint64_t limit)
{
  uint64_t word;
  if ((chunk & 15) || read64 (w, chunk + 8, &word) != 0)
    return 0;
  uint64_t size = word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
  return size >= HI_GLIBC_MIN_CHUNK && size <= limit && !(size & 15) ? size : 0;
}

/* Walk one list from FIRST: NEXT_AT is where a chunk keeps its link
   (16 fd, 24 bk), PROTECTED whether links are PROTECT_PTR'd, END where
   the list ends (0 or the bin).  Counts into *N and *BYTES; the largest
   into *LARGEST.  A cycle, a bad chunk or an unreadable one ends it as
   damage. */
static void
note_free (struct walk *w, uint64_t chunk, uint32_t list, uint32_t index)
{
  struct hi_glibc *g = w->g;
  size_t cap = (size_t) g->cap_frees;
  if (hi_grow ((void **) &g->frees, &cap, (size_t) g->n_frees + 1,
               sizeof *g->frees) != 0)
    {
      w->nomem = 1;
      return;
    }
  g->cap_frees = cap;
  g->frees[g->n_frees++] = (struct hi_glibc_free) { chunk, list, index };
}

/* Damage to a list: counted, and the first kept for verify: HOLDER is
   the chunk whose link is bad (0: the list's head). */
static void
broken (struct walk *w, uint64_t holder, const char *what)
{
  struct hi_glibc *g = w->g;
  if (!g->damaged++)
    {
      g->broken_chunk = holder;
      g->broken_what = what;
    }
}

static void
walk_list (struct walk *w, uint64_t first, unsigned next_at, int protected,
           uint64_t end, uint64_t limit, uint32_t list, uint32_t index,
           uint64_t *n, uint64_t *bytes, uint64_t *largest,
           struct hi_glibc_sizes *sz)
{
  uint64_t p = first, slow = first, steps = 0, holder = 0;
  while (p != end)
    {
      uint64_t size = chunk_size (w, p, limit), link;
      if (!size || read64 (w, p + next_at, &link) != 0)
        {
          broken (w, holder, list == HI_GLIBC_FASTBIN
                  ? ((p & 15) ? "malloc(): unaligned fastbin chunk detected"
                     : "malloc(): memory corruption (fast)")
                  : "malloc(): corrupted double-linked list");
          return;
        }
      holder = p;
      (*n)++;
      *bytes += size;
      if (!sz->count++ || size < sz->from)
        sz->from = size;
      if (size > sz->to)
        sz->to = size;
      sz->total += size;
      note_free (w, p, list, index);
      if (size > *largest)
        *largest = size;
      p = protected ? ((p + next_at) >> 12) ^ link : link;
      /* Floyd: a cycle meets the slow walker. */
      if (++steps % 2 == 0 && read64 (w, slow + next_at, &link) == 0)
        slow = protected ? ((slow + next_at) >> 12) ^ link : link;
      if (p == slow && p != end)
        {
          broken (w, holder, list == HI_GLIBC_FASTBIN
                  ? "free(): double free detected (a fastbin cycle)"
                  : "malloc(): corrupted double-linked list (a cycle)");
          return;
        }
    }
}

static void
walk_arena (struct walk *w, const uint64_t *st, uint64_t addr,
            struct hi_glibc_arena *a)
{
  const struct hi_glibc_layout *l = w->l;
  a->addr = addr;
  a->system_bytes = st[l->state_system_mem / 8];
  a->max_system_bytes = st[l->state_max_system_mem / 8];
  /* No chunk is larger than what the arena holds (but the first heap's
     top, which may be as large as the heap). */
  uint64_t heap_max = w->g->heap_max;
  uint64_t limit = a->system_bytes > heap_max ? a->system_bytes : heap_max;
  uint64_t top = st[l->state_top / 8];
  a->top = top;
  a->top_bytes = chunk_size (w, top, limit);
  if (!a->top_bytes)
    w->g->damaged++;
  a->largest_free = a->top_bytes;
  for (uint32_t i = 0; i < l->nfastbins && i < HI_GLIBC_NFASTBINS; i++)
    {
      uint64_t first = st[l->state_fastbins / 8 + i];
      walk_list (w, first, 16, l->safe_linking, 0, limit, HI_GLIBC_FASTBIN,
                 i, &a->fast_chunks, &a->fast_bytes, &a->largest_free,
                 &a->fast[i]);
    }
  for (uint32_t i = 1; i < l->nbins && i < HI_GLIBC_NBINS; i++)
    {
      /* bin_at (i): the pair of bins[] at (i - 1) * 2, taken as a chunk
         whose fd is at 16. */
      uint64_t pair = l->state_bins + (uint64_t) (i - 1) * 16;
      uint64_t bin = addr + pair - 16;
      uint64_t last = st[pair / 8 + 1];       /* bk */
      walk_list (w, last, 24, 0, bin, limit, HI_GLIBC_BIN, i,
                 &a->bin_chunks, &a->bin_bytes, &a->largest_free,
                 &a->bins[i]);
    }
  if (a->is_main)
    return;
  /* Its heaps: the top's heap_info, then prev by prev. */
  uint64_t h = top & ~(heap_max - 1);
  if (read64 (w, h + l->heap_size, &a->heap_bytes) != 0
      || read64 (w, h + l->heap_mprotect_size, &a->heap_mprotect) != 0)
    {
      w->g->damaged++;
      return;
    }
  size_t cap = 0;
  while (h && a->heaps < MAX_HEAPS)
    {
      uint64_t prev, size;
      a->heaps++;
      if (read64 (w, h + l->heap_size, &size) == 0 && size <= heap_max
          && hi_grow ((void **) &a->heap_list, &cap,
                      (size_t) a->n_heap_list + 1, sizeof *a->heap_list)
             == 0)
        a->heap_list[a->n_heap_list++] = (struct hi_glibc_heap) { h,
                                                                 h + size };
      if (read64 (w, h + l->heap_prev, &prev) != 0)
        {
          w->g->damaged++;
          return;
        }
      if (prev & (heap_max - 1))
        {
          w->g->damaged++;
          return;
        }
      h = prev;
    }
}

#define TCACHE_BINS 64u         /* the most any layout has */

/* One thread's tcache at PTR (its tcache_perthread_struct) into *TC:
   every bin's list walked (links PROTECT_PTR'd, entries point at user
   memory, 16 bytes into the chunk) and checked against its count. */
static void
walk_tcache (struct walk *w, uint64_t ptr, struct hi_glibc_tcache *tc)
{
  const struct hi_glibc_layout *l = w->l;
  uint16_t counts[TCACHE_BINS];
  uint64_t entries[TCACHE_BINS];
  unsigned bins = l->tcache_bins < TCACHE_BINS ? l->tcache_bins
                                               : TCACHE_BINS;
  if (w->t->ops->read_memory (w->t->ctx, ptr + l->tcache_counts, counts,
                              bins * sizeof counts[0]) != 0
      || w->t->ops->read_memory (w->t->ctx, ptr + l->tcache_entries, entries,
                                 bins * sizeof entries[0]) != 0)
    {
      w->g->damaged++;
      return;
    }
  for (unsigned b = 0; b < bins; b++)
    {
      uint64_t e = entries[b], n = 0;
      /* A bin's chunks are all of one size: 32 + 16 * b. */
      uint64_t size = 32 + 16 * (uint64_t) b;
      /* As many entries as its count, the last one's link empty: a
         double free makes a cycle, longer than the count.  Each link is
         checked before it is followed: one that decodes to an
         unaligned address (a link written over) is named as glibc
         names it, past the count too (free's double-free walk and
         tcache_thread_shutdown follow the list to its end). */
      uint64_t holder = 0;
      while (e && n < counts[b])
        {
          uint64_t link;
          if ((e & 15) || chunk_size (w, e - 16, size) != size
              || read64 (w, e, &link) != 0)
            break;
          n++;
          note_free (w, e - 16, HI_GLIBC_TCACHE,
                     (uint32_t) (tc - w->g->tcaches));
          holder = e - 16;
          e = w->l->safe_linking ? (e >> 12) ^ link : link;
        }
      if (e & 15)
        broken (w, holder, "malloc(): unaligned tcache chunk detected");
      else if (e && n < counts[b])
        broken (w, holder, "tcache chunk of the wrong size or unreadable");
      else if (e)
        broken (w, holder, "tcache bin longer than its count (a double "
                "free?)");
      else if (n != counts[b])
        broken (w, holder, "tcache bin shorter than its count");
      tc->chunks += n;
      tc->bytes += n * size;
    }
}

/* Every thread's tcache, through libthread_db: the TLS variable
   `tcache` (its offset in libc's TLS block from the debug file) in each
   thread; without it (gdb gives the threads), from each thread's thread
   pointer.  Leaves G->tcache_known 0 when that cannot be had. */
static hi_status
read_tcaches (struct walk *w, const char *path, uint64_t libc,
              uint64_t bias)
{
  uint64_t addr, offset, map;
  struct hi_db_thread *th;
  size_t n;
  const char *why;
  if (hi_find_debug_symbol (path, libc, "tcache", &addr, &offset) != 0
      || hi_target_link_map (w->t, bias, &map) != 0
      || (hi_thread_db_list_tls (w->t, map, offset, &th, &n, &why) != 0
          && hi_threads_static_tls (w->t, map, offset, &th, &n) != 0))
    return HI_OK;
  if (n == 0)
    {
      /* No thread listed (a target without threads: a raw dump, gdb's
         inferior read for its map only): every process has one, so
         its tcache is not known to be empty. */
      free (th);
      return HI_OK;
    }
  w->g->tcaches = calloc (n, sizeof *w->g->tcaches);
  if (!w->g->tcaches)
    {
      free (th);
      return HI_E_NOMEM;
    }
  w->g->tcache_known = 1;
  for (size_t i = 0; i < n; i++)
    {
      struct hi_glibc_tcache *tc = &w->g->tcaches[w->g->n_tcaches++];
      tc->tid = th[i].tid;
      uint64_t ptr;
      if (!th[i].tls || read64 (w, th[i].tls, &ptr) != 0)
        {
          w->g->damaged++;
          continue;
        }
      tc->perthread = ptr;
      if (ptr)                  /* 0: the thread never allocated */
        walk_tcache (w, ptr, tc);
    }
  free (th);
  return HI_OK;
}

/* main_arena without symbols: a malloc_state in libc's writable data
   (the mappings of PATH that are writable) whose bins are each either
   empty (fd and bk both the bin itself: a signature no other data
   has) or two pointers into mapped memory, most of them empty, with a
   page-multiple system_mem and a ring pointer that is mapped.  0 and
   *ARENA, or -1. */
static int
search_arena (struct walk *w, const char *path, uint64_t *arena)
{
  const struct hi_glibc_layout *l = w->l;
  struct hi_map_entry e;
  for (size_t i = 0; w->t->ops->mapping (w->t->ctx, i, &e) == 0; i++)
    {
      if (strcmp (e.path, path) != 0 || !(e.prot & HI_MAP_WRITE)
          || e.end - e.start > ((uint64_t) 16 << 20))
        continue;
      for (uint64_t s = e.start; s + l->state_size <= e.end; s += 8)
        {
          unsigned empty = 0, ok = 1;
          for (uint32_t b = 1; b < l->nbins && ok; b++)
            {
              uint64_t slot = s + l->state_bins + (uint64_t) (b - 1) * 16;
              uint64_t fd, bk;
              if (read64 (w, slot, &fd) != 0 || read64 (w, slot + 8, &bk))
                return -1;
              if (fd == slot - 16 && bk == slot - 16)
                empty++;
              else if ((fd & 15) || (bk & 15) || !fd || !bk)
                ok = 0;
              /* Two runs of 8 empty bins or none: fail fast. */
              if (b == 16 && empty < 8)
                ok = 0;
            }
          uint64_t sys, next;
          if (!ok || empty < l->nbins / 2
              || read64 (w, s + l->state_system_mem, &sys) != 0
              || read64 (w, s + l->state_next, &next) != 0
              || !sys || (sys & 4095) || !next)
            continue;
          *arena = s;
          return 0;
        }
    }
  return -1;
}

/* Without mp_: the brk heap starts where the mapping of main_arena's top
   starts; mmapped chunks are counted from their mappings. */
static int
count_mmapped (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  struct hi_glibc *g = ctx;
  (void) chunk;
  if (mmapped)
    {
      g->mmapped_chunks++;
      g->mmapped_bytes += size;
    }
  return 0;
}

static int
by_chunk (const void *x, const void *y)
{
  const struct hi_glibc_free *a = x, *b = y;
  return a->chunk < b->chunk ? -1 : a->chunk > b->chunk;
}

hi_status
hi_glibc_load (const struct hi_target *t, struct hi_glibc **out,
               const char **why)
{
  *out = NULL;
  char path[HI_MAP_PATH_MAX];
  uint64_t libc;
  if (!t->ops->mapping || find_libc (t, &libc, path, sizeof path) != 0)
    {
      *why = "no libc.so.6 is mapped in it (a static program, or no "
             "memory map)";
      return HI_E_NO_GLIBC;
    }
  /* Its version, symbols and layout come from the file of that name on
     this machine: only if it is the same libc. */
  if (hi_target_file_differs (t, libc, path))
    {
      static _Thread_local char other[HI_MAP_PATH_MAX + 160];
      snprintf (other, sizeof other, "its libc is not this machine's %s "
                "(their build-ids differ): read it where it ran, or where "
                "that libc is", path);
      *why = other;
      return HI_E_NO_GLIBC;
    }
  struct hi_glibc *g = calloc (1, sizeof *g);
  if (!g)
    return HI_E_NOMEM;
  struct walk w = { t, NULL, g, 0 };
  uint64_t main_arena, mp, value, value_arena = 0;
  if (find_version (t, g, path, libc) != 0)
    *why = "glibc's version string cannot be read";
  else if (!(w.l = hi_glibc_layout (g->version)))
    {
      static _Thread_local char unknown[160];
      snprintf (unknown, sizeof unknown, "glibc %s's malloc layout is not "
                "one this heapinspect knows (it reads glibc %s)",
                g->version, hi_glibc_versions ());
      *why = unknown;
    }
  else if (hi_find_debug_symbol (path, libc, "main_arena", &main_arena,
                                 &value_arena) == 0
           && hi_find_debug_symbol (path, libc, "mp_", &mp, &value) == 0)
    {
      *why = NULL;
      g->found_by = "libc's debug symbols";
    }
  else if (search_arena (&w, path, &main_arena) == 0)
    {
      *why = NULL;
      mp = 0;
      g->found_by = "a search of libc's data (no debug symbols, so no "
                    "tcache; Debian: apt-get install libc6-dbg)";
    }
  else
    *why = "libc's debug symbols are not installed (Debian: apt-get "
           "install libc6-dbg), and no arena was found in libc's data";
  if (*why)
    {
      free (g);
      return HI_E_NO_GLIBC;
    }
  g->cache = hi_glibc_cache_new ();     /* NULL: reads go uncached */
  g->layout = w.l;
  g->layout_tested = hi_glibc_layout_tested (w.l, g->version);
  /* heap_max_size (): 4 huge pages when glibc.malloc.hugetlb asked for
     them (2.35+), if that is a power of two a heap can be. */
  g->heap_max = w.l->heap_max;
  uint64_t hp = 0;
  if (mp && w.l->par_hp_pagesize
      && read64 (&w, mp + w.l->par_hp_pagesize, &hp) == 0 && hp
      && !(hp & (hp - 1)) && hp >= 4096 && hp <= (UINT64_C(1) << 32))
    g->heap_max = hp * 4;
  int32_t n_mmaps = 0;
  if (mp && (t->ops->read_memory (t->ctx, mp + w.l->par_n_mmaps, &n_mmaps,
                                  4) != 0
             || read64 (&w, mp + w.l->par_mmapped_mem, &g->mmapped_bytes)
                != 0))
    g->damaged++;
  g->mmapped_chunks = n_mmaps > 0 ? (uint64_t) n_mmaps : 0;
  if (mp && read64 (&w, mp + w.l->par_sbrk_base, &g->sbrk_base) != 0)
    g->damaged++;
  uint64_t *st = malloc (w.l->state_size);
  size_t cap = 0;
  uint64_t a = main_arena;
  hi_status s = st ? HI_OK : HI_E_NOMEM;
  while (s == HI_OK && g->n_arenas < MAX_ARENAS)
    {
      if (t->ops->read_memory (t->ctx, a, st, w.l->state_size) != 0)
        {
          g->damaged++;
          break;
        }
      if (hi_grow ((void **) &g->arenas, &cap, g->n_arenas + 1,
                   sizeof *g->arenas) != 0)
        {
          s = HI_E_NOMEM;
          break;
        }
      struct hi_glibc_arena *ar = &g->arenas[g->n_arenas++];
      memset (ar, 0, sizeof *ar);
      ar->is_main = a == main_arena;
      walk_arena (&w, st, a, ar);
      a = st[w.l->state_next / 8];
      if (a == main_arena)
        break;
      /* The ring passes each arena once. */
      for (uint64_t k = 0; k < g->n_arenas; k++)
        if (g->arenas[k].addr == a)
          {
            g->damaged++;
            a = main_arena;
            break;
          }
      if (a == main_arena)
        break;
    }
  free (st);
  if (s == HI_OK && mp)
    s = read_tcaches (&w, path, libc, main_arena - value_arena);

  if (s == HI_OK && w.nomem)
    s = HI_E_NOMEM;
  if (s == HI_OK && g->n_frees > 1)
    qsort (g->frees, (size_t) g->n_frees, sizeof *g->frees, by_chunk);
  if (s == HI_OK && !mp && g->n_arenas)
    {
      struct hi_map_entry e;
      if (hi_target_mapping_of (t, g->arenas[0].top, &e) == 0)
        g->sbrk_base = e.start;
      hi_glibc_each_in_use (t, g, count_mmapped, NULL, g);
    }
  if (s != HI_OK)
    {
      hi_glibc_free (g);
      return s;
    }
  *out = g;
  return HI_OK;
}

void
hi_glibc_free (struct hi_glibc *g)
{
  if (!g)
    return;
  for (uint64_t i = 0; i < g->n_arenas; i++)
    free (g->arenas[i].heap_list);
  free (g->arenas);
  free (g->cache);
  free (g->tcaches);
  free (g->frees);
  free (g);
}
