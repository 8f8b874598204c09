/* glibc-monitor.c - glibc's in-use chunks of a process the monitor was
   attached to (issue 27): which hold a block of the monitor's, and which
   were not made through it.

   An attached monitor records only what is allocated through the GOT
   entries it redirected.  glibc's heap also holds, in use:
   - the blocks the program allocated before the attach;
   - what the dynamic loader allocates with glibc's malloc, before and
     after the attach (the monitor sends the loader's calls to glibc,
     lib/malloc.c's FROM_LOADER): link maps and scopes of objects it
     loads (the monitor's own library among them), threads' DTVs and
     dynamic TLS blocks;
   - what glibc allocates inside malloc.c without its own GOT (its
     calls through the GOT, strdup's, stdio's, are redirected).
   The monitor's own memory is mapped, not malloc'd, so it is in no
   chunk; its internal blocks (HI_SITE_INTERNAL) have headers.

   A chunk holds a block of the monitor's when its memory (chunk + 16)
   begins with a header valid for its address under the process's salt
   (after the birth stamp, with lifetimes), live or quarantined, whose
   size fits the chunk; or, for an aligned block, holds one at the
   offset lib/malloc.c's alloc_aligned_sized puts it (a multiple of the
   alignment, at least the header, the birth stamp and the offset word,
   less the header) with that offset in the word before it.  Random
   bytes pass the check with odds 2^-32 per place tried.  Chunks glibc
   holds free in a list (fastbins, bins, every thread's tcache) are
   not in use; the tcaches must be known (libthread_db), else nothing
   is counted. */
#define _GNU_SOURCE
#include "glibc/glibc.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* 1 if the header at H (ROOM bytes from H to the chunk's end) is the
   monitor's, live or quarantined, its ALIGNED flag ALIGNED. */
static int
header_at (const struct hi_target *t, const struct hi_glibc *g,
           const struct hi_model *m, uint64_t h, uint64_t room, int aligned)
{
  uint64_t w0, w1;
  if (room < 16 || hi_glibc_word (g, t, h, &w0) != 0
      || hi_glibc_word (g, t, h + 8, &w1) != 0)
    return 0;
  struct hi_block_header hd;
  memcpy (&hd.check, &w0, 4);
  memcpy (&hd.site, (const char *) &w0 + 4, 4);
  hd.size_flags = w1;
  if (((hd.size_flags & HI_BLOCK_ALIGNED) != 0) != aligned
      || (hd.size_flags & HI_BLOCK_SIZE_MASK) > room - 16)
    return 0;
  uint32_t want = hi_block_check (m->root.header_salt, h, hd.site,
                                  hd.size_flags);
  return hd.check == want || hd.check == (want ^ HI_CHECK_QUARANTINED);
}

int
hi_glibc_monitors_chunk (const struct hi_target *t, const struct hi_glibc *g,
                         const struct hi_model *m, uint64_t chunk,
                         uint64_t size, int mmapped)
{
  uint64_t mem = chunk + 16;
  uint64_t usable = mmapped ? size - 16 : size - 8;
  uint64_t birth = m->root.version >= 4 ? m->root.birth_size : 0;
  if (birth > 64)
    return 0;
  if (usable > birth && header_at (t, g, m, mem + birth, usable - birth, 0))
    return 1;
  /* An aligned block: pad the least multiple of ALIGN holding the
     header, the birth stamp and the offset word; its header at
     pad - 16, the offset word 8 bytes before the birth stamp. */
  uint64_t last = 0;
  for (uint64_t align = 16; align <= usable; align <<= 1)
    {
      uint64_t pad = align;
      while (pad < 16 + birth + 8)
        pad += align;
      uint64_t off = pad - 16, stored;
      if (off == last || off + 16 > usable)
        continue;
      last = off;
      if (header_at (t, g, m, mem + off, usable - off, 1)
          && hi_glibc_word (g, t, mem + off - birth - 8, &stored) == 0
          && stored == off)
        return 1;
    }
  return 0;
}

const char *
hi_glibc_not_whole (const struct hi_glibc *g)
{
  if (!g->tcache_known)
    return "the threads' tcaches cannot be read (no threads listed, or "
           "no libthread_db)";
  if (g->damaged)
    return "glibc's heap is damaged (heapinspect verify)";
  return NULL;
}

struct foreign
{
  const struct hi_target *t;
  const struct hi_glibc *g;
  const struct hi_model *m;
  int (*fn) (void *, uint64_t, uint64_t, int);
  int (*heap) (void *, uint64_t, uint64_t);
  void *ctx;
};

static int
one_chunk (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  struct foreign *f = ctx;
  if (hi_glibc_monitors_chunk (f->t, f->g, f->m, chunk, size, mmapped))
    return 0;
  return f->fn (f->ctx, chunk, size, mmapped);
}

static int
one_heap (void *ctx, uint64_t start, uint64_t end)
{
  struct foreign *f = ctx;
  return f->heap (f->ctx, start, end);
}

int
hi_glibc_each_foreign (const struct hi_target *t, const struct hi_glibc *g,
                       const struct hi_model *m,
                       int (*fn) (void *ctx, uint64_t chunk, uint64_t size,
                                  int mmapped),
                       int (*heap) (void *ctx, uint64_t start, uint64_t end),
                       void *ctx)
{
  struct foreign f = { t, g, m, fn, heap, ctx };
  return hi_glibc_each_in_use (t, g, one_chunk, heap ? one_heap : NULL, &f);
}

static int
count_one (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  (void) chunk;
  struct hi_model *m = ctx;
  m->foreign_blocks++;
  m->foreign_bytes += mmapped ? size - 16 : size - 8;
  return 0;
}

hi_status
hi_model_count_foreign (const struct hi_target *t, struct hi_model *m)
{
  m->foreign_counted = 0;
  m->foreign_blocks = m->foreign_bytes = 0;
  m->foreign_why = NULL;
  if (!m->attached)
    return HI_OK;
  if (!t->ops->mapping)
    {
      m->foreign_why = "the input holds the monitor's data only (a "
                       "snapshot file), not glibc's heap";
      return HI_OK;
    }
  struct hi_glibc *g;
  const char *why = NULL;
  hi_status s = hi_glibc_load (t, &g, &why);
  if (s == HI_E_NOMEM)
    return s;
  if (s != HI_OK)
    {
      m->foreign_why = why ? why : "glibc's heap cannot be read";
      return HI_OK;
    }
  m->foreign_why = hi_glibc_not_whole (g);
  if (!m->foreign_why)
    {
      struct foreign f = { t, g, m, count_one, NULL, m };
      if (hi_glibc_each_in_use (t, g, one_chunk, NULL, &f) == 0)
        m->foreign_counted = 1;
    }
  hi_glibc_free (g);
  return HI_OK;
}

static int
count_chunk (void *ctx, uint64_t chunk, uint64_t size, int mmapped)
{
  (void) chunk;
  uint64_t *n = ctx;
  n[0]++;
  n[1] += mmapped ? size - 16 : size - 8;
  return 0;
}

hi_status
hi_glibc_in_use (const struct hi_target *t, uint64_t *blocks,
                 uint64_t *bytes, const char **why)
{
  *blocks = *bytes = 0;
  *why = NULL;
  if (!t->ops->mapping)
    {
      *why = "no memory map";
      return HI_E_NO_GLIBC;
    }
  struct hi_glibc *g;
  hi_status s = hi_glibc_load (t, &g, why);
  if (s != HI_OK)
    return s;
  uint64_t n[2] = { 0, 0 };
  *why = hi_glibc_not_whole (g);
  if (!*why && hi_glibc_each_in_use (t, g, count_chunk, NULL, n) == 0)
    {
      *blocks = n[0];
      *bytes = n[1];
    }
  hi_glibc_free (g);
  return *why ? HI_E_NO_GLIBC : HI_OK;
}

void
hi_model_set_foreign_at_attach (struct hi_model *m, uint64_t blocks,
                                uint64_t bytes)
{
  if (!m->attached || m->foreign_counted)
    return;
  m->foreign_counted = 2;
  m->foreign_blocks = blocks;
  m->foreign_bytes = bytes;
  m->foreign_why = NULL;
}
