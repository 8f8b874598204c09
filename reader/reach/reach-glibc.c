/* reach-glibc.c - glibc's own pointers into its heap, which are not the
   program's: the main arena's state (its top chunk, last remainder and
   bins).  A free chunk's or the top chunk's address is 8 bytes before
   the end of the block before it when that block fills its chunk, so
   these words would be interior pointers into live blocks; under
   valgrind glibc's malloc is never used and they do not exist.  The
   main arena lives in libc's data (a static program's own): found by
   its bins, each empty one pointing at itself, the others into the
   heap. */
#define _GNU_SOURCE
#include "reach/reach-int.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define NBINS_CHECKED 126u    /* glibc's NBINS - 2 usable bins, in pairs */
#define BINS_AT 16u           /* from &top: top, last_remainder, bins[] */
#define BEFORE_TOP 96u        /* mutex, flags, have_fastchunks, pad,
                                 fastbinsY[10] */
#define STATE_SIZE 2200u      /* sizeof (struct malloc_state) */
#define WINDOW 65536u         /* bytes of a mapping searched at a time */

static int
in_heap (const struct hi_scan *s, uint64_t a)
{
  /* The first range ending past A. */
  size_t lo = hi_upper_bound_u64 (s->heap.v, s->heap.n, sizeof *s->heap.v,
                                   offsetof (struct hi_range, end), a);
  return lo < s->heap.n && a >= s->heap.v[lo].start;
}

/* Whether the words W (from address AT) hold a malloc_state whose top
   is at W[K]: bins pairs (fd, bk) both the bin itself or both in the
   heap, at least one empty, and the top in the heap. */
static int
arena_at (const struct hi_scan *s, const uint64_t *w, size_t nw, size_t k,
          uint64_t at)
{
  if (k + 2 + 2 * NBINS_CHECKED > nw || !in_heap (s, w[k]))
    return 0;
  unsigned empty = 0;
  for (unsigned i = 0; i < NBINS_CHECKED; i++)
    {
      uint64_t self = at + 8 * k + 16 * i;   /* bin_at (i + 1) */
      uint64_t fd = w[k + 2 + 2 * i], bk = w[k + 3 + 2 * i];
      if (fd == self && bk == self)
        empty++;
      else if (!in_heap (s, fd) || !in_heap (s, bk))
        return 0;
    }
  return empty > 0;
}

hi_status
hi_scan_glibc (struct hi_scan *s, struct hi_ranges *exclude)
{
  if (!s->heap.n)
    return HI_OK;
  uint64_t *w = malloc (WINDOW + STATE_SIZE);
  if (!w)
    return HI_E_NOMEM;
  for (size_t i = 0; i < s->n_maps; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      /* libc's data: a file's readable, writable mapping */
      if (!hi_scan_map_is_root (e) || !e->in_target || !e->path[0]
          || e->path[0] == '[' || e->end - e->start > ((uint64_t) 64 << 20))
        continue;
      /* In windows overlapping by a malloc_state, so that one across
         a window's end (or a 64K boundary) is seen whole. */
      for (uint64_t at = e->start; at < e->end; at += WINDOW)
        {
          uint64_t len = e->end - at < WINDOW + STATE_SIZE ? e->end - at
                                                           : WINDOW + STATE_SIZE;
          len &= ~(uint64_t) 7;
          if (s->t->ops->read_memory (s->t->ctx, at, w, len) != 0)
            continue;
          size_t nw = (size_t) (len / 8);
          for (size_t k = 0; k < nw && 8 * k < WINDOW; k++)
            if (arena_at (s, w, nw, k, at))
              {
                uint64_t top = at + 8 * k;
                uint64_t lo = top - BEFORE_TOP;
                if (hi_ranges_add (exclude, lo, lo + STATE_SIZE))
                  {
                    free (w);
                    return HI_E_NOMEM;
                  }
                k += 2 * NBINS_CHECKED;
              }
        }
    }
  free (w);
  return HI_OK;
}
