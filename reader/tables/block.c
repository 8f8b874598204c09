/* block.c - what an address is, as far as the heap goes (seed 004's heap
   annotator, grown for issue 14): inside a live block, a freed one (held
   in the quarantine, or given back to malloc), a block's header, past a
   block's end, a chunk whose header fails its check, free heap memory,
   or no heap at all (a stack, a module's image, nothing mapped).  Found
   from the headers themselves and glibc's chunk sizes, not from a block
   list; every read may fail (a core is torn, a snapshot holds only the
   monitor's data). */
#define _GNU_SOURCE

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "model/chunk.h"
#include "symbols/mapsyms.h"
#include "target/target.h"
#include "tables/tables.h"

#define PAGE 4096
#define SCAN_LIMIT (UINT64_C(64) << 20)
/* glibc's chunks walked forward from a block at most. */
#define WALK_MAX 4096
/* A glibc chunk larger than this is not believed. */
#define CHUNK_MAX (UINT64_C(1) << 40)

/* A header's state (format.h, "Heap errors and guards"). */
enum { HDR_NONE, HDR_LIVE, HDR_QUARANTINED, HDR_FREED };

static int
rd (const struct hi_target *t, uint64_t addr, void *buf, size_t len)
{
  return t->ops->read_memory (t->ctx, addr, buf, len);
}

/* The state of header H read at USER - 16. */
static int
header_state (const struct hi_model *m, uint64_t user,
              const struct hi_block_header *h)
{
  uint32_t want = hi_block_check (m->root.header_salt, user - 16, h->site,
                                  h->size_flags);
  return h->check == want ? HDR_LIVE
         : h->check == (want ^ HI_CHECK_QUARANTINED) ? HDR_QUARANTINED
         : h->check == ~want ? HDR_FREED : HDR_NONE;
}

static void chunk_of (const struct hi_target *t, const struct hi_model *m,
                      const struct hi_block *b, uint64_t *mp,
                      uint64_t *chunk, uint64_t *csize, int *mmapped);

static int
read_word (void *ctx, uint64_t addr, uint64_t *out)
{
  return rd (ctx, addr, out, sizeof *out);
}

/* Whether the block B of a live header is none (model/chunk.h, the
   leak scan's rules): glibc holds its chunk free, or the monitor counts
   no live block of its chain.  The header is then of a block given back
   to malloc: freed. */
static int
stale_header (const struct hi_target *t, const struct hi_model *m,
       const struct hi_block *b)
{
  uint64_t mp, chunk, csize;
  int mmapped;
  chunk_of (t, m, b, &mp, &chunk, &csize, &mmapped);
  if (hi_chunk_state (read_word, (void *) t, mp, b->start + b->size,
                      UINT64_MAX) == HI_CHUNK_FREE)
    return 1;
  if (b->site >= m->n_sites)
    return 0;
  struct hi_thread_regs regs;
  int threads = t->ops->thread_regs
                && t->ops->thread_regs (t->ctx, 0, &regs) == 0;
  uint64_t live, live_bytes;
  hi_model_site_live (m, b->site, &live, &live_bytes);
  return live == 0 && hi_model_site_counts_exact (m, threads);
}

/* The block whose user pointer is USER, if its header is valid. */
static int
block_at (const struct hi_target *t, const struct hi_model *m, uint64_t user,
          struct hi_block *b)
{
  struct hi_block_header h;
  if (user < 16 || rd (t, user - 16, &h, sizeof h) != 0)
    return HDR_NONE;
  int st = header_state (m, user, &h);
  if (st != HDR_NONE)
    {
      memset (b, 0, sizeof *b);
      b->start = user;
      b->size = h.size_flags & HI_BLOCK_SIZE_MASK;
      b->aligned = (h.size_flags & HI_BLOCK_ALIGNED) != 0;
      b->site = h.site;
      if (st == HDR_LIVE && stale_header (t, m, b))
        st = HDR_FREED;
      b->freed = st != HDR_LIVE;
      b->quarantined = st == HDR_QUARANTINED;
    }
  return st;
}

/* Where B's glibc chunk is: *MP the pointer malloc returned (before our
   birth stamp and header, or the aligned block's base), *CHUNK its chunk
   header, *CSIZE the chunk's size (0 if it cannot be read or is not
   believable), *MMAPPED glibc's IS_MMAPPED bit. */
static void
chunk_of (const struct hi_target *t, const struct hi_model *m,
          const struct hi_block *b, uint64_t *mp, uint64_t *chunk,
          uint64_t *csize, int *mmapped)
{
  uint64_t header = b->start - 16;
  *mp = header - m->root.birth_size;
  *csize = 0;
  *mmapped = 0;
  if (b->aligned)
    {
      /* [offset][birth stamp][header]: the offset is from the block
         malloc returned to the header. */
      uint64_t dist;
      if (*mp < 8 || rd (t, *mp - 8, &dist, sizeof dist) != 0
          || dist > header || dist >= CHUNK_MAX)
        {
          *chunk = *mp - 16;
          return;
        }
      *mp = header - dist;
    }
  *chunk = *mp - 16;
  uint64_t sz;
  if (*mp < 16 || rd (t, *chunk + 8, &sz, sizeof sz) != 0)
    return;
  uint64_t size = sz & ~UINT64_C(7);
  if (size < 32 || size % 16 != 0 || size >= CHUNK_MAX
      || b->start + b->size > *chunk + size + 8)
    return;
  *csize = size;
  *mmapped = (sz & 2) != 0;
}

/* Whether the glibc chunk size word of B (a block with a valid header)
   is overwritten: an error record says so, or B is a plain block the
   monitor holds (live or quarantined) and the word is not what glibc
   gives it, as the monitor checks it at a free (hi_guard_chunk_ok): its
   request (our prefix, its bytes, the redzone) and the word rounded up
   to 16, at least 32, or 16 more with the next chunk in use; glibc's
   own mapped chunks at least that. */
static int
size_word_smashed (const struct hi_target *t, const struct hi_model *m,
                   const struct hi_block *b)
{
  for (uint64_t k = 0; k < m->n_errors; k++)
    if (m->errors[k].kind == HI_ERR_HEADER_CORRUPT
        && (m->errors[k].flags & HI_ERROR_FLAG_CHUNK_SIZE)
        && m->errors[k].block == b->start)
      return 1;
  if (b->aligned || (b->freed && !b->quarantined))
    return 0;
  uint64_t mp = b->start - 16 - m->root.birth_size, w, next;
  if (mp < 16 || rd (t, mp - 8, &w, sizeof w) != 0)
    return 0;                   /* not in memory: nothing to say */
  uint64_t req = b->start - mp + b->size + m->redzone;
  uint64_t nb = (req + 8 + 15) & ~UINT64_C(15);
  nb = nb < 32 ? 32 : nb;
  uint64_t cs = w & ~UINT64_C(7);
  if (w & 2)
    return cs < nb || cs >= CHUNK_MAX;
  if (cs == nb)
    return 0;
  if (cs != nb + 16 || rd (t, mp - 16 + cs + 8, &next, sizeof next) != 0)
    return 1;
  uint64_t ncs = next & ~UINT64_C(7);
  return !(next & 1) || (next & 2) || ncs < 16 || ncs % 16 != 0
         || ncs >= CHUNK_MAX;
}

/* ADDR in or past the chunk at X, whose block of ours has its size word
   overwritten: *C that block, and HI_BLOCK_PAST_SMASHED past its end,
   HI_BLOCK_BAD_HEADER in the chunk's header; HI_BLOCK_NONE if X holds no
   such block or ADDR is in the block itself (found from its header). */
static int
smashed_at (const struct hi_target *t, const struct hi_model *m,
            uint64_t addr, uint64_t x, struct hi_block *c)
{
  if (block_at (t, m, x + 32 + m->root.birth_size, c) == HDR_NONE
      || c->aligned || !size_word_smashed (t, m, c))
    return HI_BLOCK_NONE;
  if (addr < x + 16)
    return HI_BLOCK_BAD_HEADER;
  return addr >= c->start + c->size ? HI_BLOCK_PAST_SMASHED : HI_BLOCK_NONE;
}

/* The nearest header at or below ADDR that the monitor still owns (live
   or quarantined) in *AUTH, and the nearest freed one whose block holds
   ADDR in *STALE (a header of a block given back to malloc may survive
   inside a newer block): each 1 if found.  At most SCAN_LIMIT back. */
static void
scan_back (const struct hi_target *t, const struct hi_model *m,
           uint64_t addr, struct hi_block *auth, int *have_auth,
           struct hi_block *stale, int *have_stale, struct hi_block *near)
{
  uint32_t salt = m->root.header_salt;
  unsigned char page[PAGE + 16];
  /* Candidate user pointers are 16-aligned, at or below ADDR; a header
     may straddle a page boundary, so keep the next page's first bytes. */
  uint64_t user = addr & ~UINT64_C(15);
  uint64_t lowest = addr > SCAN_LIMIT ? addr - SCAN_LIMIT : 0;
  uint64_t page_lo = (user - 16) & ~(uint64_t) (PAGE - 1);
  int have_next = 0;
  unsigned char next[16];
  *have_auth = *have_stale = 0;
  near->start = 0;
  if (user < 16)
    return;
  while (user >= lowest + 16 && user >= 16)
    {
      if (rd (t, page_lo, page, PAGE) != 0)
        return;
      if (have_next)
        memcpy (page + PAGE, next, 16);
      else if (rd (t, page_lo + PAGE, page + PAGE, 16))
        memset (page + PAGE, 0, 16);
      for (; user - 16 >= page_lo && user >= 16; user -= 16)
        {
          struct hi_block_header h;
          memcpy (&h, page + (user - 16 - page_lo), sizeof h);
          uint32_t want = hi_block_check (salt, user - 16, h.site,
                                          h.size_flags);
          if (h.check != want && h.check != (want ^ HI_CHECK_QUARANTINED)
              && h.check != ~want)
            continue;
          struct hi_block b = { 0 };
          int st = header_state (m, user, &h);
          b.start = user;
          b.size = h.size_flags & HI_BLOCK_SIZE_MASK;
          b.aligned = (h.size_flags & HI_BLOCK_ALIGNED) != 0;
          b.site = h.site;
          if (st == HDR_LIVE && stale_header (t, m, &b))
            st = HDR_FREED;
          b.freed = st != HDR_LIVE;
          b.quarantined = st == HDR_QUARANTINED;
          b.type = (uint32_t) ((h.size_flags & HI_BLOCK_TYPE_MASK)
                               >> HI_BLOCK_TYPE_SHIFT);
          if (!near->start)
            *near = b;
          if (st == HDR_FREED)
            {
              int inside = addr - user < b.size || addr == user;
              if (inside && !*have_stale)
                *stale = b, *have_stale = 1;
              continue;
            }
          *auth = b;
          *have_auth = 1;
          return;
        }
      memcpy (next, page, 16);
      have_next = 1;
      if (page_lo < PAGE)
        return;
      page_lo -= PAGE;
    }
}

/* The header just above ADDR whose block's prefix (glibc's chunk header,
   our birth stamp, alignment word and header) holds ADDR: 1 and *B, with
   *STATE HI_BLOCK_CHUNK_HEADER or HI_BLOCK_OUR_HEADER. */
static int
header_above (const struct hi_target *t, const struct hi_model *m,
              uint64_t addr, struct hi_block *b, int *state)
{
  uint64_t first = (addr | 15) + 1;
  uint64_t reach = 16 + (uint64_t) m->root.birth_size + 16 + 8 + 16;
  for (uint64_t user = first; user - addr <= reach && user > addr; user += 16)
    {
      struct hi_block c;
      if (block_at (t, m, user, &c) == HDR_NONE)
        continue;
      uint64_t mp, chunk, csize;
      int mmapped;
      chunk_of (t, m, &c, &mp, &chunk, &csize, &mmapped);
      (void) mmapped;
      uint64_t ours = c.start - 16 - m->root.birth_size - (c.aligned ? 8 : 0);
      if (addr >= ours)
        *state = HI_BLOCK_OUR_HEADER;
      else if (csize && addr >= chunk + 8 && addr < chunk + 16)
        *state = HI_BLOCK_CHUNK_HEADER;
      else if (addr >= mp)
        *state = HI_BLOCK_OUR_HEADER;   /* an aligned block's padding */
      else
        return 0;
      *b = c;
      return 1;
    }
  return 0;
}

/* Whether the in-use glibc chunk whose user memory starts at MEM looks
   freed into glibc's tcache or a fastbin: their first word is the next
   entry's address, safe-linked (glibc 2.32 on: stored as (MEM >> 12) ^
   next), which is 0 or another chunk's 16-aligned memory near it.  Our
   header, overwritten by it, is no corruption then. */
static int
tcache_like (const struct hi_target *t, uint64_t mem)
{
  uint64_t word, sz, next_sz;
  if (rd (t, mem, &word, sizeof word) != 0
      || rd (t, mem - 8, &sz, sizeof sz) != 0)
    return 0;
  uint64_t next = (mem >> 12) ^ word;
  if (next == 0)
    return 1;
  /* A bin holds chunks of one size: the next entry's is this one's. */
  if (next % 16 != 0 || (next > mem ? next - mem : mem - next) > SCAN_LIMIT)
    return 0;
  if (rd (t, next - 8, &next_sz, sizeof next_sz) != 0)
    return 0;
  return (next_sz & ~UINT64_C(7)) == (sz & ~UINT64_C(7));
}

/* ADDR in no block found from the headers: the glibc chunk whose memory
   starts at ADDR rounded down to 16 bytes (a freed pointer), if glibc's
   tcache or a fastbin holds it (its header overwritten) or it is free. */
static int
chunk_guess (const struct hi_target *t, const struct hi_model *m,
             uint64_t addr, struct hi_block_info *out)
{
  uint64_t user = addr & ~UINT64_C(15);
  uint64_t mem = user - 16 - m->root.birth_size, sz, next_sz;
  if (user < 64 || rd (t, mem - 8, &sz, sizeof sz) != 0)
    return HI_BLOCK_NONE;
  uint64_t size = sz & ~UINT64_C(7);
  if (size < 32 || size % 16 != 0 || size >= CHUNK_MAX || (sz & 2)
      || rd (t, mem - 16 + size + 8, &next_sz, sizeof next_sz) != 0)
    return HI_BLOCK_NONE;
  out->chunk = mem - 16;
  out->chunk_size = size;
  if (!(next_sz & 1))
    return HI_BLOCK_NONE;     /* free chunks are found from a block before */
  return tcache_like (t, mem) ? HI_BLOCK_FREED_CHUNK : HI_BLOCK_NONE;
}

/* ADDR past the end of B (the nearest block before it): in B's redzone
   or slack, in free heap memory after it, in a chunk whose header fails
   its check; else HI_BLOCK_NONE.  Fills OUT's chunk fields. */
static int
past_end (const struct hi_target *t, const struct hi_model *m,
          uint64_t addr, const struct hi_block *b, struct hi_block_info *out)
{
  uint64_t end = b->start + b->size;
  out->past = addr - end;
  if (m->redzone && out->past < m->redzone)
    {
      out->in_redzone = 1;
      return HI_BLOCK_PAST_END;
    }
  if (size_word_smashed (t, m, b))
    return HI_BLOCK_PAST_SMASHED;
  uint64_t mp, chunk, csize;
  int mmapped;
  chunk_of (t, m, b, &mp, &chunk, &csize, &mmapped);
  if (!csize)
    return HI_BLOCK_NONE;
  uint64_t usable_end = chunk + csize + (mmapped ? 0 : 8);
  if (addr < usable_end)
    return HI_BLOCK_PAST_END;
  if (mmapped)
    return HI_BLOCK_NONE;
  /* glibc's chunks after B's, up to the one holding ADDR: [X + 8,
     X + size + 8) is chunk X's (its prev_size field is the chunk
     before's when that one is in use). */
  uint64_t x = chunk + csize;
  for (int step = 0; step < WALK_MAX; step++)
    {
      uint64_t sz, next_sz;
      out->chunk = x;
      /* A chunk whose size word an overflow wrote: the walk ends here. */
      struct hi_block smashed;
      int st = smashed_at (t, m, addr, x, &smashed);
      if (st == HI_BLOCK_BAD_HEADER)
        {
          out->chunk_size = 0;
          return st;
        }
      if (st == HI_BLOCK_PAST_SMASHED)
        {
          out->block = smashed;
          out->past = addr - (smashed.start + smashed.size);
          return st;
        }
      if (rd (t, x + 8, &sz, sizeof sz) != 0)
        return HI_BLOCK_NONE;
      uint64_t xs = sz & ~UINT64_C(7);
      if (xs < 32 || xs % 16 != 0 || xs >= CHUNK_MAX || x + xs < x)
        {
          /* glibc's own header is overwritten: past B's end, where the
             next chunk should start. */
          out->chunk_size = 0;
          return HI_BLOCK_BAD_HEADER;
        }
      out->chunk_size = xs;
      if (addr < x + xs + 8)
        {
          /* In use if the chunk after it says so (PREV_INUSE); the top
             chunk has none readable after it. */
          int in_use = rd (t, x + xs + 8, &next_sz, sizeof next_sz) == 0
                       && (next_sz & 1);
          if (!in_use)
            return HI_BLOCK_FREE_MEMORY;
          struct hi_block c;
          uint64_t user = x + 16 + m->root.birth_size + 16;
          if (block_at (t, m, user, &c) != HDR_NONE)
            {
              /* A valid block the backward scan did not reach: ADDR is in
                 its prefix. */
              out->block = c;
              return addr < user ? HI_BLOCK_OUR_HEADER : HI_BLOCK_LIVE;
            }
          /* An aligned block's header is further in: ADDR is in its
             padding if the block's chunk is this one. */
          for (uint64_t u = (addr | 15) + 1; u <= x + xs + 8 && u - addr
               <= (UINT64_C(1) << 20); u += 16)
            if (block_at (t, m, u, &c) != HDR_NONE && c.aligned)
              {
                uint64_t cmp, cchunk, ccsize;
                int cmm;
                chunk_of (t, m, &c, &cmp, &cchunk, &ccsize, &cmm);
                if (cchunk == x)
                  {
                    out->block = c;
                    return HI_BLOCK_OUR_HEADER;
                  }
                break;
              }
          return tcache_like (t, x + 16) ? HI_BLOCK_FREED_CHUNK
                                         : HI_BLOCK_BAD_HEADER;
        }
      x += xs;
    }
  return HI_BLOCK_NONE;
}

/* What ADDR is when it is in no block: a thread's stack, a module's
   image, a mapping, nothing. */
static void
where_of (const struct hi_target *t, const struct hi_model *m, uint64_t addr,
          struct hi_block_info *out)
{
  struct hi_map_entry e;
  int mapped = -1;            /* -1: the target has no map */
  if (t->ops->mapping)
    {
      mapped = 0;
      for (size_t i = 0; t->ops->mapping (t->ctx, i, &e) == 0; i++)
        if (addr >= e.start && addr < e.end)
          {
            mapped = 1;
            break;
          }
    }
  if (mapped == 1)
    {
      e.path[HI_MAP_PATH_MAX - 1] = '\0';
      struct hi_thread_regs regs;
      for (size_t i = 0; t->ops->thread_regs
           && t->ops->thread_regs (t->ctx, i, &regs) == 0; i++)
        if (regs.sp >= e.start && regs.sp < e.end)
          {
            out->where = HI_WHERE_IS_STACK;
            out->tid = regs.tid;
            return;
          }
      if (strcmp (e.path, "[stack]") == 0)
        {
          out->where = HI_WHERE_IS_STACK;
          return;
        }
    }
  for (uint64_t i = 0; i < m->n_modules; i++)
    if (addr >= m->modules[i].start && addr < m->modules[i].end)
      {
        out->where = HI_WHERE_IS_MODULE;
        out->module = i;
        return;
      }
  if (mapped == 1)
    {
      out->where = strcmp (e.path, "[heap]") == 0 ? HI_WHERE_IS_HEAP
                   : HI_WHERE_IS_MAPPING;
      snprintf (out->mapping, sizeof out->mapping, "%s", e.path);
      return;
    }
  if (mapped == 0)
    {
      out->where = HI_WHERE_IS_UNMAPPED;
      return;
    }
  unsigned char byte;
  if (rd (t, addr, &byte, 1) == 0)
    out->where = HI_WHERE_IS_UNKNOWN;
  else
    out->where = m->read_source == HI_READ_SNAPSHOT
                 ? HI_WHERE_IS_NOT_IN_SNAPSHOT : HI_WHERE_IS_UNREADABLE;
}

/* ADDR in no block the memory shows (a snapshot holds no heap memory; a
   core may lack it; a header may be gone): the block the quarantine's
   ring names (held when read), else the first one an error record names,
   if either holds ADDR.  A block of unknown size holds its start only. */
static void
from_records (const struct hi_model *m, uint64_t addr,
              struct hi_block_info *out)
{
  for (uint64_t k = 0; k < m->n_quarantine; k++)
    {
      const struct hi_freed *f = &m->quarantine[k];
      if (addr < f->user || addr - f->user >= (f->size ? f->size : 1))
        continue;
      out->state = HI_BLOCK_QUARANTINED;
      out->block = (struct hi_block) { 0 };
      out->block.start = f->user;
      out->block.size = f->size;
      out->block.site = f->alloc_site;
      out->block.freed = out->block.quarantined = 1;
      out->freed = f;
      out->free_site = f->free_site;
      out->from_records = 1;
      return;
    }
  for (uint64_t k = 0; k < m->n_errors; k++)
    {
      const struct hi_error *e = &m->errors[k];
      if (!e->block || addr < e->block
          || addr - e->block >= (e->block_size ? e->block_size : 1))
        continue;
      /* A double free or a write after free says the block was freed;
         the others (an interior free, a redzone, a header) say nothing
         of it since. */
      int freed = e->kind == HI_ERR_DOUBLE_FREE
                  || e->kind == HI_ERR_WRITE_AFTER_FREE
                  || e->free_site != HI_SITE_UNKNOWN;
      out->state = freed ? HI_BLOCK_FREED : HI_BLOCK_RECORDED;
      out->block = (struct hi_block) { 0 };
      out->block.start = e->block;
      out->block.size = e->block_size;
      out->block.site = e->alloc_site;
      out->block.freed = freed;
      out->free_site = e->free_site;
      out->from_records = 1;
      out->record = k + 1;
      return;
    }
}

void
hi_block_classify (const struct hi_target *t, const struct hi_model *m,
                   uint64_t addr, struct hi_block_info *out)
{
  memset (out, 0, sizeof *out);
  out->addr = addr;
  struct hi_block auth, stale, above, near;
  int have_auth, have_stale, above_state;
  scan_back (t, m, addr, &auth, &have_auth, &stale, &have_stale, &near);
  if (have_auth && (addr - auth.start < auth.size || addr == auth.start))
    {
      out->block = auth;
      out->state = auth.quarantined ? HI_BLOCK_QUARANTINED : HI_BLOCK_LIVE;
    }
  else if (header_above (t, m, addr, &above, &above_state)
           && (!have_stale || !above.freed || above.quarantined))
    {
      out->block = above;
      out->state = above_state;
    }
  else if (have_stale)
    {
      out->block = stale;
      out->state = HI_BLOCK_FREED;
    }
  else if (have_auth)
    {
      out->block = auth;
      out->state = past_end (t, m, addr, &auth, out);
      if (out->state == HI_BLOCK_NONE)
        out->block = (struct hi_block) { 0 };
      else if (out->state == HI_BLOCK_BAD_HEADER
               || out->state == HI_BLOCK_FREE_MEMORY
               || out->state == HI_BLOCK_FREED_CHUNK)
        {
          /* The nearest header before the chunk, freed ones too: the
             likeliest to have overflowed into it. */
          out->before = near.start > auth.start && near.start < out->chunk + 16
                        ? near : auth;
          out->past = addr - (out->before.start + out->before.size);
        }
    }
  else
    out->state = HI_BLOCK_NONE;
  if (out->state == HI_BLOCK_BAD_HEADER || out->state == HI_BLOCK_FREE_MEMORY
      || out->state == HI_BLOCK_FREED_CHUNK)
    out->block = (struct hi_block) { 0 };
  if ((out->state == HI_BLOCK_OUR_HEADER
       || out->state == HI_BLOCK_CHUNK_HEADER) && have_auth
      && auth.start < out->block.start)
    {
      /* The block right before, if its chunk ends where this one's
         starts: an address here is also past its end (an overflow). */
      uint64_t mp, chunk, csize, mp2, chunk2, csize2;
      int mm, mm2;
      chunk_of (t, m, &auth, &mp, &chunk, &csize, &mm);
      chunk_of (t, m, &out->block, &mp2, &chunk2, &csize2, &mm2);
      if (csize && !mm && chunk + csize == chunk2
          && addr >= auth.start + auth.size
          && addr - chunk2 < 32 + (uint64_t) m->root.birth_size + 8)
        {
          out->before = auth;
          out->past = addr - (auth.start + auth.size);
        }
    }
  if (out->state == HI_BLOCK_NONE)
    out->state = chunk_guess (t, m, addr, out);
  out->in_padding = out->state == HI_BLOCK_OUR_HEADER && out->block.aligned
                    && addr < out->block.start - 16 - m->root.birth_size - 8;
  if (out->block.quarantined)
    {
      out->freed = hi_model_quarantined (m, out->block.start);
      out->free_site = out->freed ? out->freed->free_site : HI_SITE_UNKNOWN;
      /* Gone from the ring (found as it left: a write after free): an
         error record may still say who freed it. */
      for (uint64_t k = 0; !out->freed && k < m->n_errors; k++)
        if (m->errors[k].block == out->block.start
            && m->errors[k].free_site != HI_SITE_UNKNOWN)
          {
            out->free_site = m->errors[k].free_site;
            break;
          }
    }
  if (out->state == HI_BLOCK_NONE)
    {
      where_of (t, m, addr, out);
      from_records (m, addr, out);
    }
}

int
hi_block_in_bytes (const struct hi_model *m, const struct hi_block_info *i)
{
  return i->state == HI_BLOCK_LIVE || i->state == HI_BLOCK_QUARANTINED
         || i->state == HI_BLOCK_FREED || i->state == HI_BLOCK_RECORDED
         || (i->state == HI_BLOCK_FREED_CHUNK
             && i->addr >= i->chunk + 32 + m->root.birth_size);
}

hi_status
hi_block_find (const struct hi_target *t, const struct hi_model *m,
               uint64_t addr, struct hi_block *out)
{
  struct hi_block_info i;
  hi_block_classify (t, m, addr, &i);
  if (i.state != HI_BLOCK_LIVE && i.state != HI_BLOCK_QUARANTINED
      && i.state != HI_BLOCK_FREED)
    return HI_E_NOT_BLOCK;
  *out = i.block;
  return HI_OK;
}

/* The report: one prose row.  Text fragments are text only; the chains
   and the facts have JSON keys. */
enum { C_T0, C_ALLOC, C_T1, C_FREE, C_T2, C_BEFORE_ALLOC, C_T3, C_ADDRESS,
       C_STATE, C_BLOCK, C_SIZE, C_OFFSET, C_PAST, C_REDZONE, C_CHUNK,
       C_CHUNK_SIZE, C_BEFORE, C_BEFORE_SIZE, C_THREAD, C_WHERE, C_WHAT,
       C_ERROR, C_TYPE, C_PADDING, C_FROM_RECORDS, C_THREAD_START,
       C_NCOLS };

static const struct hi_column columns[C_NCOLS] = {
  [C_T0] = { .head = "" },
  [C_ALLOC] = { .key = "allocated_by", .head = "", .type = HI_CELL_PATH },
  [C_T1] = { .head = "" },
  [C_FREE] = { .key = "freed_by", .head = "", .type = HI_CELL_PATH },
  [C_T2] = { .head = "" },
  [C_BEFORE_ALLOC] = { .key = "block_before_allocated_by", .head = "",
                       .type = HI_CELL_PATH },
  [C_ADDRESS] = { .key = "address", .type = HI_CELL_TEXT },
  [C_STATE] = { .key = "state", .type = HI_CELL_TEXT },
  [C_BLOCK] = { .key = "block", .type = HI_CELL_TEXT },
  [C_SIZE] = { .key = "size", .type = HI_CELL_BYTES },
  [C_OFFSET] = { .key = "offset", .type = HI_CELL_COUNT },
  [C_PAST] = { .key = "past_end", .type = HI_CELL_COUNT },
  [C_REDZONE] = { .key = "in_redzone", .type = HI_CELL_COUNT },
  [C_CHUNK] = { .key = "chunk", .type = HI_CELL_TEXT },
  [C_CHUNK_SIZE] = { .key = "chunk_size", .type = HI_CELL_BYTES },
  [C_BEFORE] = { .key = "block_before", .type = HI_CELL_TEXT },
  [C_BEFORE_SIZE] = { .key = "block_before_size", .type = HI_CELL_BYTES },
  [C_THREAD] = { .key = "thread", .type = HI_CELL_COUNT },
  [C_WHERE] = { .key = "where", .type = HI_CELL_TEXT },
  [C_T3] = { .head = "" },
  [C_WHAT] = { .key = "mapping", .type = HI_CELL_TEXT },
  [C_ERROR] = { .key = "error", .type = HI_CELL_COUNT },
  [C_TYPE] = { .key = "type", .type = HI_CELL_TEXT },
  [C_PADDING] = { .key = "in_padding", .type = HI_CELL_COUNT },
  [C_FROM_RECORDS] = { .key = "from_records", .type = HI_CELL_COUNT },
  [C_THREAD_START] = { .key = "thread_start", .type = HI_CELL_TEXT },
};

/* "byte" or "bytes", as N wants. */
static const char *
bytes_word (uint64_t n)
{
  return n == 1 ? "byte" : "bytes";
}

/* The type the program named for block B (typed.h), or NULL. */
static const char *
block_type (struct hi_analysis *a, const struct hi_block *b)
{
  if (b->type && b->type < a->m->n_type_recs
      && a->m->type_recs[b->type].kind == HI_TREC_TYPE
      && hi_types_ready (a) == HI_OK && a->type_of_rec
      && a->type_of_rec[b->type] != UINT32_MAX)
    return a->types[a->type_of_rec[b->type]].name;
  return NULL;
}

const char *
hi_block_state_name (int state)
{
  static const char *const names[] = {
    [HI_BLOCK_NONE] = "none", [HI_BLOCK_LIVE] = "live",
    [HI_BLOCK_QUARANTINED] = "quarantined", [HI_BLOCK_FREED] = "freed",
    [HI_BLOCK_OUR_HEADER] = "header", [HI_BLOCK_CHUNK_HEADER] = "chunk_header",
    [HI_BLOCK_PAST_END] = "past_end", [HI_BLOCK_BAD_HEADER] = "bad_header",
    [HI_BLOCK_FREE_MEMORY] = "free_memory",
    [HI_BLOCK_FREED_CHUNK] = "freed_chunk", [HI_BLOCK_RECORDED] = "recorded",
    [HI_BLOCK_PAST_SMASHED] = "past_smashed_chunk",
  };
  return state >= 0 && state <= HI_BLOCK_PAST_SMASHED ? names[state] : "?";
}

static const char *
hex (struct hi_rmodel *r, uint64_t v)
{
  char s[32];
  snprintf (s, sizeof s, "0x%" PRIx64, v);
  return hi_rmodel_strdup (r, s);
}

static struct hi_cell
text_cell (struct hi_rmodel *r, const char *s)
{
  return hi_cell_text (hi_rmodel_strdup (r, s));
}

struct hi_cell
hi_site_cell (struct hi_analysis *a, uint32_t site, struct hi_rmodel *r)
{
  char s[64];
  if (site == HI_SITE_INTERNAL)
    return text_cell (r, "the heapinspect monitor itself");
  if (site == a->m->n_sites && a->m->attached)
    return text_cell (r, "not made through the monitor (before the "
                      "attach, or by the loader or glibc itself): no chain");
  if (site >= a->m->n_sites)
    {
      snprintf (s, sizeof s, "an unknown chain (site %" PRIu32
                ": damaged?)", site);
      return text_cell (r, s);
    }
  return hi_path_cell (a, site, r);
}

/* "the 24-byte block at 0x..." / "the freed ..." into S. */
static void
block_phrase (const struct hi_block *b, const char *article, char *s,
              size_t size)
{
  snprintf (s, size, "%s%s %" PRIu64 "-byte block at 0x%" PRIx64, article,
            b->quarantined || b->freed ? " freed" : "", b->size, b->start);
}

static const char *
where_text (const struct hi_analysis *a, const struct hi_block_info *i,
            char *s, size_t size)
{
  char path[HI_PATH_MAX + 64];
  switch (i->where)
    {
    case HI_WHERE_IS_STACK:
      if (i->tid && i->thread_start)
        snprintf (s, size, ": it is on the stack of thread %" PRIu64
                  " (started at %.400s)", i->tid, i->thread_start);
      else if (i->tid)
        snprintf (s, size, ": it is on the stack of thread %" PRIu64, i->tid);
      else
        snprintf (s, size, ": it is on the main thread's stack");
      break;
    case HI_WHERE_IS_MODULE:
      hi_escape (a->m->modules[i->module].path, path, sizeof path);
      snprintf (s, size, ": it is in the image of %s (code or static data)",
                path);
      break;
    case HI_WHERE_IS_HEAP:
      snprintf (s, size, ": it is in the heap, in memory not allocated "
                "through heapinspect");
      break;
    case HI_WHERE_IS_MAPPING:
      hi_escape (i->mapping, path, sizeof path);
      if (path[0])
        snprintf (s, size, ": it is in a mapping of %s", path);
      else
        snprintf (s, size, ": it is in anonymous memory");
      break;
    case HI_WHERE_IS_UNMAPPED:
      snprintf (s, size, ": no memory is mapped there");
      break;
    case HI_WHERE_IS_NOT_IN_SNAPSHOT:
      snprintf (s, size, ": it is not in the snapshot's memory (a snapshot "
                "holds only the monitor's own data)");
      break;
    case HI_WHERE_IS_UNREADABLE:
      snprintf (s, size, ": its memory cannot be read (not mapped, or not "
                "in the core)");
      break;
    default:
      s[0] = '\0';
    }
  return s;
}

static const char *const where_names[] = {
  [HI_WHERE_IS_UNKNOWN] = "unknown", [HI_WHERE_IS_STACK] = "stack",
  [HI_WHERE_IS_MODULE] = "module", [HI_WHERE_IS_HEAP] = "heap",
  [HI_WHERE_IS_MAPPING] = "mapping", [HI_WHERE_IS_UNMAPPED] = "unmapped",
  [HI_WHERE_IS_NOT_IN_SNAPSHOT] = "not_in_snapshot",
  [HI_WHERE_IS_UNREADABLE] = "unreadable",
};

/* For an address in a block's bytes that only the monitor's records
   name: the cells that say so, and the note on how the block is known
   into HOW. */
static void
record_note (const struct hi_block_info *i, struct hi_cell *c, char *how,
             size_t size)
{
  char why[160];
  c[C_FROM_RECORDS] = hi_cell_count (1);
  c[C_WHERE] = hi_cell_text (where_names[i->where]);
  snprintf (why, sizeof why, "%s",
            i->where == HI_WHERE_IS_NOT_IN_SNAPSHOT
            ? "a snapshot holds no heap memory"
            : i->where == HI_WHERE_IS_UNREADABLE
            ? "its memory cannot be read"
            : "no valid header of it is left in memory");
  if (i->record)
    snprintf (how, size, " (from heap error %" PRIu64 "'s record: %s)",
              i->record, why);
  else
    snprintf (how, size, " (held in the quarantine, from its ring: %s)",
              why);
  if (i->block.site == HI_SITE_UNKNOWN)
    c[C_ALLOC] = (struct hi_cell) { 0 };
}

/* Who freed the block, where it is known, after its sentence. */
static void
free_cells (struct hi_analysis *a, const struct hi_block_info *i,
            struct hi_rmodel *r, struct hi_cell *c)
{
  char s[64];
  if (i->state == HI_BLOCK_QUARANTINED && i->freed)
    {
      c[C_T1] = hi_cell_text (", freed by ");
      c[C_FREE] = hi_site_cell (a, i->freed->free_site, r);
      snprintf (s, sizeof s, " (by thread %" PRIu64 ")", i->freed->tid);
      c[C_T2] = text_cell (r, s);
      c[C_THREAD] = hi_cell_count (i->freed->tid);
    }
  else if ((i->state == HI_BLOCK_QUARANTINED || i->from_records)
           && i->free_site != HI_SITE_UNKNOWN)
    {
      c[C_T1] = hi_cell_text (", freed by ");
      c[C_FREE] = hi_site_cell (a, i->free_site, r);
    }
  else if (i->state == HI_BLOCK_QUARANTINED)
    c[C_T1] = hi_cell_text ("; the quarantine's record of its free is "
                            "lost");
}

/* An address in a block's bytes (live, quarantined, freed, recorded):
   how far into which block, allocated and freed by whom. */
static void
block_cells (struct hi_analysis *a, const struct hi_block_info *i,
             struct hi_rmodel *r, struct hi_cell *c)
{
  const struct hi_block *b = &i->block;
  uint64_t addr = i->addr;
  char s[1024], how[256];
  c[C_OFFSET] = hi_cell_count (addr - b->start);
  const char *type = block_type (a, b);
  const char *by_vtable = "";
  if (!type && i->cxx_type)
    {
      type = i->cxx_type;
      by_vtable = " (by its vtable)";
    }
  if (type)
    c[C_TYPE] = text_cell (r, type);
  if (i->from_records)
    record_note (i, c, how, sizeof how);
  else
    snprintf (how, sizeof how, "%s",
              i->state == HI_BLOCK_QUARANTINED && i->freed
              ? " (held in the quarantine)"
              : i->state == HI_BLOCK_QUARANTINED
              ? " (leaving the quarantine: out of its ring, not yet "
              "given back to malloc)"
              : i->state == HI_BLOCK_FREED ? " (given back to malloc, "
              "which may have reused it)" : "");
  const char *freed = i->state == HI_BLOCK_QUARANTINED
                      || i->state == HI_BLOCK_FREED ? " freed" : "";
  int alloc = c[C_ALLOC].type != HI_CELL_EMPTY;
  if (b->size || alloc || !i->from_records)
    snprintf (s, sizeof s, "0x%" PRIx64 " is %" PRIu64 " %s into a%s %"
              PRIu64 "-byte block%s%.800s%s at 0x%" PRIx64 "%s%s", addr,
              addr - b->start, bytes_word (addr - b->start), freed,
              b->size, type ? " of type " : "", type ? type : "", by_vtable,
              b->start, how, alloc ? ", allocated by " : "");
  else
    snprintf (s, sizeof s, "0x%" PRIx64 " is the start of a%s block at "
              "0x%" PRIx64 " whose size the record does not give%s",
              addr, freed, b->start, how);
  c[C_T0] = text_cell (r, s);
  free_cells (a, i, r, c);
}

/* An address in a block's headers (heapinspect's, glibc's, or the
   alignment padding), and the block before it if it is known. */
static void
header_cells (struct hi_analysis *a, const struct hi_block_info *i,
              struct hi_rmodel *r, struct hi_cell *c)
{
  const struct hi_block *b = &i->block;
  uint64_t addr = i->addr;
  char s[1024], phrase[128];
  block_phrase (b, "the", phrase, sizeof phrase);
  snprintf (s, sizeof s, "0x%" PRIx64 " is in %s of %s (%" PRIu64
            " %s before it), allocated by ", addr,
            i->in_padding ? "the alignment padding"
            : i->state == HI_BLOCK_OUR_HEADER ? "heapinspect's header"
            : "glibc's chunk header", phrase, b->start - addr,
            bytes_word (b->start - addr));
  if (i->in_padding)
    c[C_PADDING] = hi_cell_count (1);
  c[C_T0] = text_cell (r, s);
  if (i->before.start)
    {
      const struct hi_block *p = &i->before;
      block_phrase (p, "the", phrase, sizeof phrase);
      snprintf (s, sizeof s, "; %" PRIu64 " %s past the end of %s, "
                "allocated by ", i->past, bytes_word (i->past), phrase);
      c[C_T2] = text_cell (r, s);
      c[C_BEFORE_ALLOC] = hi_site_cell (a, p->site, r);
      c[C_PAST] = hi_cell_count (i->past);
      c[C_BEFORE] = hi_cell_text (hex (r, p->start));
      c[C_BEFORE_SIZE] = hi_cell_bytes (p->size);
    }
}

/* An address past a block's end: in its redzone or its slack. */
static void
past_end_cells (const struct hi_block_info *i, struct hi_rmodel *r,
                struct hi_cell *c)
{
  char s[1024], phrase[128];
  block_phrase (&i->block, "the", phrase, sizeof phrase);
  c[C_PAST] = hi_cell_count (i->past);
  c[C_REDZONE] = hi_cell_count (i->in_redzone);
  snprintf (s, sizeof s, "0x%" PRIx64 " is %" PRIu64 " %s past the "
            "end of %s (in its %s), allocated by ", i->addr, i->past,
            bytes_word (i->past), phrase,
            i->in_redzone ? "redzone" : "slack: bytes malloc gave it "
            "beyond its size");
  c[C_T0] = text_cell (r, s);
}

/* An address past the end of a block whose chunk size word is
   overwritten: how far, and that the heap after it cannot be walked. */
static void
past_smashed_cells (const struct hi_block_info *i, struct hi_rmodel *r,
                    struct hi_cell *c)
{
  char s[1024], phrase[128];
  block_phrase (&i->block, "the", phrase, sizeof phrase);
  c[C_PAST] = hi_cell_count (i->past);
  snprintf (s, sizeof s, "0x%" PRIx64 " is %" PRIu64 " %s past the end of "
            "%s, whose chunk size word (malloc's, before its header) is "
            "overwritten: where its chunk ends, and what follows up to the "
            "next valid block, cannot be told (heap corruption), allocated "
            "by ", i->addr, i->past, bytes_word (i->past), phrase);
  c[C_T0] = text_cell (r, s);
}

/* The sentence for an address in a glibc chunk that glibc's tcache or a
   fastbin holds, into S; PHRASE names the block before it. */
static void
freed_chunk_text (struct hi_analysis *a, const struct hi_block_info *i,
                  struct hi_rmodel *r, struct hi_cell *c, const char *phrase,
                  char *s, size_t size)
{
  uint64_t addr = i->addr, user = i->chunk + 32 + a->m->root.birth_size;
  const struct hi_block *p = &i->before;
  if (addr < user)
    {
      snprintf (s, size, "0x%" PRIx64 " is in the headers of the %" PRIu64
                "-byte heap chunk at 0x%" PRIx64 ", freed to malloc "
                "(glibc's tcache or a fastbin holds it), after %s, "
                "allocated by ", addr, i->chunk_size, i->chunk, phrase);
      return;
    }
  c[C_BLOCK] = hi_cell_text (hex (r, user));
  c[C_OFFSET] = hi_cell_count (addr - user);
  snprintf (s, size, "0x%" PRIx64 " is %" PRIu64 " %s into "
            "a block at 0x%" PRIx64 " freed to malloc (in the %"
            PRIu64 "-byte heap chunk at 0x%" PRIx64 ", which "
            "glibc's tcache or a fastbin holds, over its "
            "heapinspect header: its size and chain are gone)%s%s%s",
            addr, addr - user, bytes_word (addr - user), user,
            i->chunk_size, i->chunk,
            p->start ? ", after " : "", p->start ? phrase : "",
            p->start ? ", allocated by " : "");
}

/* The sentence for an address in a glibc chunk whose header fails its
   check, into S; PHRASE names the nearest valid block before it. */
static void
bad_header_text (struct hi_analysis *a, const struct hi_block_info *i,
                 const char *phrase, char *s, size_t size)
{
  const struct hi_block *p = &i->before;
  uint64_t addr = i->addr;
  if (i->chunk_size)
    {
      uint64_t hdr = i->chunk + 16 + a->m->root.birth_size;
      uint64_t gap = p->start + p->size <= hdr
                     ? hdr - (p->start + p->size) : 0;
      snprintf (s, size, "0x%" PRIx64 " is in the %" PRIu64
                "-byte heap chunk at 0x%" PRIx64 ", whose heapinspect "
                "header at 0x%" PRIx64 " fails its check (overwritten: "
                "heap corruption; or a block not allocated through "
                "heapinspect); the nearest valid block before it is %s, "
                "whose end is %" PRIu64 " %s before that header, "
                "allocated by ", addr, i->chunk_size, i->chunk,
                i->chunk + 16 + a->m->root.birth_size, phrase, gap,
                bytes_word (gap));
    }
  else
    /* The header is [chunk, chunk + 16): prev_size, then size. */
    snprintf (s, size, "0x%" PRIx64 " is %s corrupted chunk "
              "header at 0x%" PRIx64 " (glibc's size field is "
              "overwritten: heap corruption); the nearest valid block "
              "before it is %s, whose end is %" PRIu64 " %s before "
              "0x%" PRIx64 ", allocated by ", addr,
              addr >= i->chunk && addr - i->chunk < 16 ? "in the"
              : "after a", i->chunk, phrase, i->past,
              bytes_word (i->past), addr);
}

/* An address in a glibc chunk that is no block of ours (a bad header,
   free memory, a chunk glibc holds), after the nearest valid block. */
static void
chunk_cells (struct hi_analysis *a, const struct hi_block_info *i,
             struct hi_rmodel *r, struct hi_cell *c)
{
  const struct hi_block *p = &i->before;
  char s[1024], phrase[128];
  block_phrase (p, "the", phrase, sizeof phrase);
  c[C_CHUNK] = hi_cell_text (hex (r, i->chunk));
  if (i->chunk_size)
    c[C_CHUNK_SIZE] = hi_cell_bytes (i->chunk_size);
  if (p->start)
    {
      c[C_BEFORE] = hi_cell_text (hex (r, p->start));
      c[C_BEFORE_SIZE] = hi_cell_bytes (p->size);
      c[C_BEFORE_ALLOC] = hi_site_cell (a, p->site, r);
    }
  if (i->state == HI_BLOCK_FREE_MEMORY)
    snprintf (s, sizeof s, "0x%" PRIx64 " is in free memory of the "
              "heap (a free %" PRIu64 "-byte chunk at 0x%" PRIx64 "), %"
              PRIu64 " %s past the end of %s, allocated by ", i->addr,
              i->chunk_size, i->chunk, i->past, bytes_word (i->past),
              phrase);
  else if (i->state == HI_BLOCK_FREED_CHUNK)
    freed_chunk_text (a, i, r, c, phrase, s, sizeof s);
  else
    bad_header_text (a, i, phrase, s, sizeof s);
  c[C_T0] = text_cell (r, s);
}

/* An address in no block of ours: where it is instead. */
static void
outside_cells (const struct hi_analysis *a, const struct hi_block_info *i,
               struct hi_rmodel *r, struct hi_cell *c)
{
  char s[1024], w[HI_PATH_MAX + 128];
  c[C_WHERE] = hi_cell_text (where_names[i->where]);
  if (i->where == HI_WHERE_IS_MODULE)
    c[C_WHAT] = text_cell (r, a->m->modules[i->module].path);
  else if (i->where == HI_WHERE_IS_MAPPING || i->where == HI_WHERE_IS_HEAP)
    c[C_WHAT] = text_cell (r, i->mapping);
  if (i->where == HI_WHERE_IS_STACK && i->tid)
    c[C_THREAD] = hi_cell_count (i->tid);
  if (i->where == HI_WHERE_IS_STACK && i->thread_start)
    c[C_THREAD_START] = text_cell (r, i->thread_start);
  snprintf (s, sizeof s, "0x%" PRIx64 " is not in a block allocated "
            "through heapinspect%s", i->addr, where_text (a, i, w, sizeof w));
  c[C_T0] = text_cell (r, s);
}

/* The first heap error recorded about the block (or chunk, or
   pointer): -t errors has its story. */
static void
error_cells (const struct hi_analysis *a, const struct hi_block_info *i,
             struct hi_rmodel *r, struct hi_cell *c)
{
  const struct hi_block *b = &i->block;
  char s[128];
  uint64_t target = b->start ? b->start
    : i->state == HI_BLOCK_BAD_HEADER || i->state == HI_BLOCK_FREED_CHUNK
    ? i->chunk + 32 + a->m->root.birth_size : 0;
  for (uint64_t k = 0; k < a->m->n_errors; k++)
    {
      const struct hi_error *e = &a->m->errors[k];
      if ((target && (e->block == target || e->addr == target
                      || e->other == target))
          || (i->state == HI_BLOCK_NONE && e->block == 0
              && e->addr == i->addr))
        {
          snprintf (s, sizeof s, "; heap error %" PRIu64 " of -t errors "
                    "names it", k + 1);
          c[C_T3] = text_cell (r, s);
          c[C_ERROR] = hi_cell_count (k + 1);
          return;
        }
    }
}

hi_status
hi_block_table (struct hi_analysis *a, const struct hi_block_info *i,
                struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "block", NULL, columns, C_NCOLS);
  struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
  if (!c)
    return HI_E_NOMEM;
  t->prose = 1;
  const struct hi_block *b = &i->block;
  c[C_ADDRESS] = hi_cell_text (hex (r, i->addr));
  c[C_STATE] = hi_cell_text (hi_block_state_name (i->state));
  if (b->start)
    {
      c[C_BLOCK] = hi_cell_text (hex (r, b->start));
      c[C_SIZE] = hi_cell_bytes (b->size);
      c[C_ALLOC] = hi_site_cell (a, b->site, r);
    }
  switch (i->state)
    {
    case HI_BLOCK_LIVE:
    case HI_BLOCK_QUARANTINED:
    case HI_BLOCK_FREED:
    case HI_BLOCK_RECORDED:
      block_cells (a, i, r, c);
      break;
    case HI_BLOCK_OUR_HEADER:
    case HI_BLOCK_CHUNK_HEADER:
      header_cells (a, i, r, c);
      break;
    case HI_BLOCK_PAST_END:
      past_end_cells (i, r, c);
      break;
    case HI_BLOCK_PAST_SMASHED:
      past_smashed_cells (i, r, c);
      break;
    case HI_BLOCK_BAD_HEADER:
    case HI_BLOCK_FREE_MEMORY:
    case HI_BLOCK_FREED_CHUNK:
      chunk_cells (a, i, r, c);
      break;
    default:
      outside_cells (a, i, r, c);
      break;
    }
  error_cells (a, i, r, c);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

hi_status
hi_block_report (const struct hi_target *t, const struct hi_model *m,
                 const char *exe, uint64_t addr,
                 const struct hi_options *opt, FILE *out)
{
  struct hi_symbolizer *sym = hi_symbolizer_new (m, exe);
  struct hi_analysis a;
  hi_status s = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
  if (s == HI_OK)
    {
      struct hi_block_info i;
      hi_block_classify (t, m, addr, &i);
      /* The target's own symbols: a C++ object's class by its vtable. */
      struct hi_mapsyms *ms = hi_mapsyms_new (t, HI_MAPSYMS_VTABLES
                                                 | HI_MAPSYMS_FUNCTIONS);
      if (!ms)
        s = HI_E_NOMEM;
      else if (i.state == HI_BLOCK_LIVE && i.block.size >= 8)
        i.cxx_type = hi_mapsyms_class_at (ms, t, i.block.start);
      struct hi_stack_thread th;
      if (ms && i.state == HI_BLOCK_NONE && i.where == HI_WHERE_IS_STACK
          && hi_stack_thread (t, addr, &th) == 0 && th.tid == i.tid)
        {
          i.thread_start = th.start ? hi_mapsyms_function (ms, th.start)
                                    : NULL;
        }
      struct hi_rmodel r;
      hi_rmodel_init (&r);
      r.source = "block";
      r.incomplete = m->damaged != 0;
      if (s == HI_OK)
        s = hi_block_table (&a, &i, &r);
      /* What only glibc knows, where the block is no live one: the
         chunk's state (which bin or tcache a freed block sits in). */
      if (s == HI_OK && i.state != HI_BLOCK_LIVE
          && i.state != HI_BLOCK_QUARANTINED && i.state != HI_BLOCK_PAST_END
          && i.state != HI_BLOCK_OUR_HEADER
          && i.state != HI_BLOCK_CHUNK_HEADER)
        s = hi_glibc_block_table (t, addr, &r);
      if (s == HI_OK)
        {
          hi_emit_text_or_json (&r, opt, out);
          s = hi_block_in_bytes (m, &i) ? HI_OK : HI_E_NOT_BLOCK;
        }
      hi_rmodel_free (&r);
      hi_mapsyms_free (ms);
      hi_analysis_free (&a);
    }
  hi_symbolizer_free (sym);
  return s;
}
