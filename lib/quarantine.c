/* quarantine.c - HEAPINSPECT_QUARANTINE: freed blocks held back from
   glibc in a FIFO ring (HI_ARENA_QUARANTINE), filled with HI_FREED_BYTE
   and marked quarantined in their header, so that a second free names
   the first one and a write after free is found when the block leaves
   (or at a snapshot).  One lock around the ring; the checks and glibc's
   free of the blocks that leave run outside it. */
#define _GNU_SOURCE
#include "guard.h"

#include <malloc.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <unistd.h>

extern void __libc_free (void *);

#define SLOTS ((uint64_t) HI_QUARANTINE_SLOTS)
#define PRE ((uint64_t) (sizeof (struct hi_block_header) + hi_state.birth))
/* Blocks taken out of the ring under the lock, checked after it.  Only
   as many leave as must: more at once change how glibc reuses the
   chunks, for better or worse as the program goes. */
#define EVICT_BATCH 16
/* Of each block that leaves, the bytes fetched ahead of its check. */
#define PREFETCH_BYTES 1024
/* How far ahead of the ring's head a block is fetched. */
#define AHEAD 16
/* How far ahead of the ring's head its entries are fetched. */
#define RING_AHEAD 64
/* Pieces of the ring given back once all their entries left. */
#define DISCARD (UINT64_C(64) << 10)
_Static_assert (HI_QUARANTINE_SLOTS * sizeof (struct hi_freed)
                % (UINT64_C(64) << 10) == 0, "the ring is whole pieces");

/* The ring's lock.  While the process has one thread (glibc's
   __libc_single_threaded: only this thread can make another, and not
   while it holds the lock) the lock word is set and cleared with plain
   stores: an atomic exchange waits for every store before it (the fill
   of the block, the ring entry) to reach the cache, a large part of a
   free into the quarantine.  A signal handler on this thread still
   finds the word set (hi_lock_try fails); if it is already set, the
   lock is taken the usual way.  1 if taken the plain way, for
   ring_unlock. */
static inline int
ring_lock (void)
{
  _Atomic int *w = (_Atomic int *) &hi_state.quarantine.ring_lock.word;
  if (__libc_single_threaded
      && atomic_load_explicit (w, memory_order_relaxed) == 0)
    {
      atomic_store_explicit (w, 1, memory_order_relaxed);
      atomic_signal_fence (memory_order_seq_cst);
      return 1;
    }
  hi_lock_acquire (&hi_state.quarantine.ring_lock);
  return 0;
}

static inline void
ring_unlock (int plain)
{
  hi_lock *l = &hi_state.quarantine.ring_lock;
  if (plain)
    {
      atomic_signal_fence (memory_order_seq_cst);
      atomic_store_explicit ((_Atomic int *) &l->word, 0,
                             memory_order_relaxed);
    }
  else
    hi_lock_release (l);
}

/* What a held block costs against the limit: its chunk in glibc (header,
   birth stamp, redzone, glibc's size word, rounded as glibc rounds) and
   its ring entry, so that the memory held stays near the limit also for
   small blocks.  (Aligned blocks' padding is not counted.) */
static uint64_t
block_cost (uint64_t size)
{
  uint64_t chunk = (size + PRE + HI_POST + 8 + 15) & ~UINT64_C(15);
  return (chunk < 32 ? 32 : chunk) + sizeof (struct hi_freed);
}

/* Index of the first byte of [P, P + N) that is not V, or N.  32 bytes
   a step while they all match (the blocks are 16-aligned). */
static uint64_t
first_changed (const unsigned char *p, uint64_t n, unsigned char v)
{
  uint64_t i = 0;
  uint64_t word = v * UINT64_C(0x0101010101010101);
  while (i < n && ((uintptr_t) (p + i) & 7) != 0 && p[i] == v)
    i++;
  if (i < n && ((uintptr_t) (p + i) & 7) == 0)
    {
      while (i + 32 <= n)
        {
          const uint64_t *w = (const uint64_t *) (const void *) (p + i);
          if (((w[0] ^ word) | (w[1] ^ word) | (w[2] ^ word)
               | (w[3] ^ word)) != 0)
            break;
          i += 32;
        }
      while (i + 8 <= n && *(const uint64_t *) (const void *) (p + i) == word)
        i += 8;
      while (i < n && p[i] == v)
        i++;
    }
  return i;
}

/* HI_FREED_BYTE, as many as glibc's memcmp compares at once well. */
static const unsigned char freed_fill[4096]
  = { [0 ... 4095] = HI_FREED_BYTE };

/* first_changed (P, N, HI_FREED_BYTE): glibc's memcmp against
   freed_fill while all match (it reads 32 or 64 bytes a step), the
   loop above only in the piece that does not, or for a small block. */
static uint64_t
fill_changed (const unsigned char *p, uint64_t n)
{
  if (n < 64)
    return first_changed (p, n, HI_FREED_BYTE);
  uint64_t i = 0;
  while (i < n)
    {
      uint64_t k = n - i < sizeof freed_fill ? n - i : sizeof freed_fill;
      if (memcmp (p + i, freed_fill, k) != 0)
        return i + first_changed (p + i, k, HI_FREED_BYTE);
      i += k;
    }
  return n;
}

/* The block of header H goes back to glibc: marked freed (~WANT), then
   its memory, found as malloc.c's lookup finds it.  0, or -1 if the
   aligned block's offset word is damaged, -2 if glibc's chunk size word
   is (the block is then leaked). */
static int
give_back (struct hi_block_header *h, uint32_t want)
{
  char *base = (char *) h - hi_state.birth;
  if (h->size_flags & HI_BLOCK_ALIGNED)
    {
      uint64_t off = ((const uint64_t *) (const void *) base)[-1];
      if (off <= hi_state.birth || (off & 15) != 0
          || off > (uint64_t) (uintptr_t) h)
        return -1;
      base = (char *) h - off;
    }
  if (HI_UNLIKELY (!hi_guard_chunk_ok (base, h + 1, h->size_flags
                                       & HI_BLOCK_SIZE_MASK,
                                       (h->size_flags & HI_BLOCK_ALIGNED)
                                       != 0)))
    return -2;     /* glibc's size word is smashed: leaked */
  h->check = ~want;
  __libc_free (base);
  return 0;
}

static void
found (const struct hi_freed *e, uint32_t kind, uint32_t when,
       uint64_t offset, int may_abort)
{
  struct hi_error err;
  memset (&err, 0, sizeof err);
  err.kind = kind;
  err.when = when;
  err.addr = e->user;
  err.block = e->user;
  err.block_size = e->size;
  err.alloc_site = e->alloc_site;
  err.free_site = e->free_site;
  err.offset = offset;
  hi_guard_error_freed (&err, may_abort, e->tid);
}

/* Check the held block of entry E for writes since its free: the fill,
   then the redzone; each change is an error found WHEN, and is undone
   (reported once).  MAY_ABORT as for hi_guard_error. */
static void
check_block (const struct hi_freed *e, uint32_t when, int may_abort)
{
  unsigned char *user = (unsigned char *) (uintptr_t) e->user;
  uint64_t at = fill_changed (user, e->size);
  if (at < e->size)
    {
      found (e, HI_ERR_WRITE_AFTER_FREE, when, at, may_abort);
      memset (user, HI_FREED_BYTE, e->size);
    }
  if (HI_POST)
    {
      at = first_changed (user + e->size, HI_POST, HI_REDZONE_BYTE);
      if (at < HI_POST)
        {
          found (e, HI_ERR_REDZONE, when, e->size + at, may_abort);
          hi_guard_fill_redzone (user, e->size);
        }
    }
}

/* Entry E left the ring: check its block, give it back to glibc. */
static void
evict (const struct hi_freed *e)
{
  struct hi_block_header *h = (struct hi_block_header *) (uintptr_t) e->user - 1;
  uint32_t want = hi_block_check (heapinspect_root.header_salt,
                                  e->user - sizeof *h, h->site,
                                  h->size_flags);
  if (h->check != (want ^ HI_CHECK_QUARANTINED) || h->site != e->alloc_site
      || (h->size_flags & HI_BLOCK_SIZE_MASK) != e->size)
    {
      /* Written over while held: not given back (its base is not
         known for sure); the fill is not checked either. */
      found (e, HI_ERR_HEADER_CORRUPT, HI_WHEN_EVICT, 0, 1);
      return;
    }
  check_block (e, HI_WHEN_EVICT, 1);
  int r = give_back (h, want);
  if (r == -2)
    hi_guard_chunk_smashed (e->user, e->size, e->alloc_site, e->free_site,
                            NULL, HI_WHEN_EVICT);
  else if (r != 0)
    found (e, HI_ERR_HEADER_CORRUPT, HI_WHEN_EVICT, 0, 1);
}

/* Fetch the header and the first PREFETCH_BYTES of entry E's block. */
static inline void
fetch_block (const struct hi_freed *e)
{
  const char *u = (const char *) (uintptr_t) e->user;
  /* glibc's chunk size word (give_back), before the header. */
  __builtin_prefetch (u - PRE - 8);
  __builtin_prefetch (u - 16);
  for (uint64_t at = 48; at < e->size && at < PREFETCH_BYTES; at += 64)
    {
      __builtin_prefetch (u + at);
      /* A loop of prefetches alone is deleted by gcc 12's dead code
         elimination (and the prefetch before it with it). */
      __asm__ volatile ("" : : "r" (u + at));
    }
}

/* Under the ring lock: take the oldest entry out into *OUT. */
static void
pop (struct hi_freed *out)
{
  struct hi_quarantine *q = &hi_state.quarantine;
  struct hi_root *r = &heapinspect_root;
  uint64_t head = r->quarantine_head;
  struct hi_freed *slot = &q->ring[head % SLOTS];
  /* The entries were written as long ago as their blocks were freed:
     the one RING_AHEAD places on is fetched now, so that a run of
     blocks leaving does not wait for each entry in turn. */
  __builtin_prefetch (&q->ring[(head + RING_AHEAD) % SLOTS]);
  *out = *slot;
  HI_STORE_REL (slot->user, 0);
  HI_STORE_REL (r->quarantine_head, head + 1);
  /* Every DISCARD bytes of entries that left, their pages go back: the
     ring's memory in use stays what the limit counts, not all of the
     ring the entries ever went through.  (SLOTS entries are a whole
     number of DISCARD bytes: the last piece ends at the wrap.) */
  uint64_t was = (head % SLOTS) * sizeof *slot / DISCARD;
  if (((head + 1) % SLOTS) * sizeof *slot / DISCARD != was)
    hi_prim_discard ((char *) q->ring + was * DISCARD, DISCARD);
  q->cost -= block_cost (out->size);
  HI_STORE_REL (r->quarantine_bytes, r->quarantine_bytes - out->size);
}

/* Check and give back the N entries OUT took out of the ring.  Their
   memory was last touched when they were freed, long ago: the blocks
   after the first FETCHED (fetched ahead already) are fetched for all of
   them first, so that the misses overlap instead of waiting one after
   the other. */
static void
evict_all (const struct hi_freed *out, int n, int fetched_n)
{
  for (int i = fetched_n; i < n; i++)
    fetch_block (&out[i]);
  for (int i = 0; i < n; i++)
    evict (&out[i]);
}

/* Of the N entries popped from position H0 on, how many were fetched
   ahead (positions before FETCHED). */
static inline int
fetched_of (uint64_t h0, int n)
{
  uint64_t fetched = hi_state.quarantine.fetched;
  return fetched <= h0 ? 0 : fetched - h0 < (uint64_t) n ? (int) (fetched - h0)
         : n;
}

/* glibc's free memory is looked at every LOOK_EVERY bytes put in the
   quarantine (at least LOOK_MIN), and no more often than keeps the looks
   within 1/LOOK_SHARE of the time: mallinfo2 walks all of glibc's free
   chunks, and malloc_trim them again, milliseconds a look in a large
   heap. */
#define LOOK_EVERY(limit) ((limit) / 8)
#define LOOK_MIN (UINT64_C(4) << 20)
#define LOOK_SHARE 20

/* A held block cannot merge with its free neighbours, and a block that
   leaves is often of a size the program no longer asks for: glibc's free
   memory grows beside the quarantine.  What it grew by since the first
   look is held fewer (down to half the limit), and the whole pages of
   it go back to the kernel (malloc_trim), so that the quarantine and
   the free memory it causes stay near the limit together. */
static void
look_at_free_memory (void)
{
  struct hi_quarantine *q = &hi_state.quarantine;
  if (atomic_exchange (&q->look_busy, 1))
    return;
  hi_tls.busy++;
  uint64_t start = hi_prim_monotonic_ns ();
  /* The program let go of a sixteenth of the limit since the last look
     and the heap did not grow (one thread: glibc's one heap, its top
     where it was): a look would find memory let go of, which is not
     trimmed (below), and mallinfo2 walks every fast chunk, millions
     when a structure is torn down.  The quarantine holds fewest. */
  uint64_t live = atomic_load_explicit ((_Atomic uint64_t *)
                                        &heapinspect_root.totals.live_bytes,
                                        memory_order_relaxed);
  uint64_t top = (uint64_t) (uintptr_t) sbrk (0);
  if (__libc_single_threaded && top == q->look_last_top
      && live + q->limit / 16 < q->look_last_live)
    {
      q->look_last_live = live;
      hi_lock_acquire (&q->ring_lock);
      q->shrink = q->limit / 2;
      q->next_look_ns = start + (q->look_took * LOOK_SHARE << 3);
      hi_lock_release (&q->ring_lock);
      hi_tls.busy--;
      atomic_store (&q->look_busy, 0);
      return;
    }
  q->look_last_live = live;
  q->look_last_top = top;
  struct mallinfo2 mi = mallinfo2 ();
  uint64_t free_now = mi.fordblks > mi.keepcost ? mi.fordblks - mi.keepcost
                      : 0;
  if (free_now < q->look_base)
    q->look_base = free_now;
  uint64_t grown = free_now - q->look_base;
  /* Free memory that rose by more than 1/8 of the limit since the last
     look while glibc's heap did not grow is memory the program let go
     of (a structure torn down, the end of the run): it was in use a
     moment ago, so the peak already counted it, and plain glibc keeps
     it too.  It is not trimmed (a trim then is the costly one); the
     quarantine still holds fewer for it, and once the heap grows again
     it is trimmed as before. */
  uint64_t heap = mi.arena;
  int freed = q->look_last != UINT64_MAX
              && free_now > q->look_last + q->limit / 8
              && heap <= q->look_last_heap;
  if (grown > q->limit / 16 && !freed)
    malloc_trim (0);
  uint64_t end = hi_prim_monotonic_ns ();
  q->look_took = end - start;
  hi_lock_acquire (&q->ring_lock);
  q->shrink = 2 * grown < q->limit / 2 ? 2 * grown : q->limit / 2;
  /* While glibc's free memory stays as it was, a look changes nothing:
     each look that finds it within 1/64 of the limit of the last waits
     twice as long as the last did, up to 8 times.  Memory let go of
     (above) waits 8 times at once: no trim consolidates the fast chunks
     mallinfo2 walks then. */
  uint64_t delta = free_now > q->look_last ? free_now - q->look_last
                   : q->look_last - free_now;
  q->look_calm = freed ? 3 : delta >= q->limit / 64 ? 0
                 : q->look_calm < 3 ? q->look_calm + 1 : 3;
  q->look_last = free_now;
  q->look_last_heap = heap;
  q->next_look_ns = end + ((end - start) * LOOK_SHARE << q->look_calm);
  hi_lock_release (&q->ring_lock);
  hi_tls.busy--;
  atomic_store (&q->look_busy, 0);
}

void
hi_quarantine_put (struct hi_block_header *h, void *base, uint64_t size,
                   uint32_t site, const struct hi_frame *caller)
{
  struct hi_quarantine *q = &hi_state.quarantine;
  struct hi_root *r = &heapinspect_root;
  uint64_t cost = block_cost (size);
  uint64_t user = (uint64_t) (uintptr_t) (h + 1);
  uint32_t want = h->check;
  (void) base;
  if (cost > q->limit)
    {
      /* Larger than the whole quarantine: straight back. */
      give_back (h, want);
      return;
    }
  /* The time of a free at the tick's resolution: a full clock reading
     costs as much as the rest of the bookkeeping. */
  uint64_t now = hi_prim_monotonic_coarse_ns ();
  struct hi_freed e = { user, size, site, hi_guard_call_site (caller),
                        hi_guard_tid (),
                        now > hi_state.start_ns ? now - hi_state.start_ns
                        : 0 };
  memset (h + 1, HI_FREED_BYTE, size);
  h->check = want ^ HI_CHECK_QUARANTINED;
  struct hi_freed out[EVICT_BATCH];
  int n;
  int plain = ring_lock ();
  uint64_t limit = q->limit - q->shrink;
  int look = (q->freed += size) >= q->next_look
             && now >= q->next_look_ns;
  if (HI_UNLIKELY (look))
    {
      uint64_t every = LOOK_EVERY (q->limit);
      q->next_look = q->freed + (every > LOOK_MIN ? every
                                             : LOOK_MIN);
    }
  uint64_t h0;
  for (;;)
    {
      n = 0;
      h0 = r->quarantine_head;
      while (n < EVICT_BATCH && r->quarantine_tail > r->quarantine_head
             && (r->quarantine_tail - r->quarantine_head >= SLOTS
                 || q->cost + cost > limit))
        pop (&out[n++]);
      if (n < EVICT_BATCH)
        break;
      int done = fetched_of (h0, n);
      ring_unlock (plain);
      evict_all (out, n, done);
      plain = ring_lock ();
    }
  int done = fetched_of (h0, n);
  uint64_t t = r->quarantine_tail;
  if (t < SLOTS
      && t + 1 > HI_LOAD_ACQ (hi_arena_at (q->ring_index)->capacity)
      && hi_arena_commit (q->ring_index, t + 1) != 0)
    {
      /* No memory for the entry: the block is not held. */
      ring_unlock (plain);
      evict_all (out, n, done);
      evict (&e);
      return;
    }
  q->ring[t % SLOTS] = e;
  q->cost += cost;
  HI_STORE_REL (r->quarantine_bytes, r->quarantine_bytes + size);
  HI_STORE_REL (r->quarantine_tail, t + 1);
  if (t < SLOTS)
    HI_STORE_REL (hi_arena_at (q->ring_index)->count, t + 1);
  /* The blocks to leave next were freed long ago: their memory is cold.
     Each of the AHEAD blocks nearest the ring's head is fetched once,
     a few frees before it leaves: FETCHED is the position up to which
     they were (a free that makes many leave jumps past it). */
  uint64_t from = q->fetched > r->quarantine_head ? q->fetched
                  : r->quarantine_head;
  uint64_t upto = r->quarantine_head + AHEAD < r->quarantine_tail
                  ? r->quarantine_head + AHEAD : r->quarantine_tail;
  for (int k = 0; from < upto && k < AHEAD; from++, k++)
    fetch_block (&q->ring[from % SLOTS]);
  q->fetched = from;
  ring_unlock (plain);
  evict_all (out, n, done);
  if (HI_UNLIKELY (look))
    look_at_free_memory ();
}

uint32_t
hi_quarantine_free_site (uint64_t user, uint64_t *tid)
{
  struct hi_quarantine *q = &hi_state.quarantine;
  *tid = 0;
  if (!hi_state.guard.quarantine)
    return HI_SITE_UNKNOWN;
  struct hi_root *r = &heapinspect_root;
  uint32_t site = HI_SITE_UNKNOWN;
  hi_lock_acquire (&q->ring_lock);
  for (uint64_t pos = r->quarantine_tail; pos > r->quarantine_head; pos--)
    if (q->ring[(pos - 1) % SLOTS].user == user)
      {
        site = q->ring[(pos - 1) % SLOTS].free_site;
        *tid = q->ring[(pos - 1) % SLOTS].tid;
        break;
      }
  hi_lock_release (&q->ring_lock);
  return site;
}

void
hi_quarantine_check (void)
{
  struct hi_quarantine *q = &hi_state.quarantine;
  /* The exiting thread rewrites the exit snapshot after exit()'s last
     frees (init.c): the blocks were checked a moment ago. */
  if (!hi_state.guard.quarantine || hi_tls.exit_writer)
    return;
  /* A snapshot may be written from a signal handler: never wait for a
     lock the interrupted thread may hold. */
  int locked = 0;
  for (int i = 0; i < 100 && !(locked = hi_lock_try (&q->ring_lock));
       i++)
    hi_prim_yield ();
  if (!locked)
    return;
  struct hi_root *r = &heapinspect_root;
  for (uint64_t pos = r->quarantine_head; pos < r->quarantine_tail; pos++)
    {
      const struct hi_freed *e = &q->ring[pos % SLOTS];
      if (e->user)
        check_block (e, HI_WHEN_SNAPSHOT, 0);
    }
  hi_lock_release (&q->ring_lock);
}
