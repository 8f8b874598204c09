/* pools.c - the client API's pools: blocks of a program's own allocator,
   told by heapinspect_alloc/free, with chains and counters like
   malloc's but no header in the pool's memory (format.h, "Pools"). */
#define _GNU_SOURCE
#include "chain.h"
#include "client.h"

#include "heapinspect/heapinspect.h"

#define PUBLIC __attribute__ ((visibility ("default"), noinline))

/* A live block of a pool, in the monitor's own memory (readers never
   need it): found by (pool, ptr) through the index, listed per pool for
   a reset.  Free records are chained through `next`. */
struct hi_pool_rec
{
  uint64_t ptr;
  uint64_t size;
  uint32_t site;
  uint32_t pool;
  uint32_t prev, next;     /* the pool's list (0: none) */
};

#define RECS_MAX (UINT32_C(1) << 22)
#define INDEX_FIRST (UINT32_C(1) << 12)

/* Live pools (hi_state.pools.index): pool key -> 1 + entry index, open
   addressing; and each pool's list of live blocks. */
#define POOL_SLOTS (2u * HI_POOLS_MAX)
struct hi_pool_index
{
  uint64_t key[POOL_SLOTS];
  uint32_t id[POOL_SLOTS];   /* 1 + index; 0 empty */
  uint32_t head[HI_POOLS_MAX];
};

static struct hi_pool *
pools (void)
{
  return hi_state.pools.arena;
}

/* The live pool KEY: 1 + its index, or 0; *SLOT its slot (or where it
   would go). */
static uint32_t
pool_find (uint64_t key, uint32_t *slot)
{
  struct hi_pools *ps = &hi_state.pools;
  uint32_t h = hi_mix (key, 7) % POOL_SLOTS;
  while (ps->index->id[h] && ps->index->key[h] != key)
    h = (h + 1) % POOL_SLOTS;
  *slot = h;
  return ps->index->id[h];
}

/* Take the pool in SLOT out of the table (backward-shift deletion: no
   tombstones, lookups stay short). */
static void
pool_unslot (uint32_t slot)
{
  struct hi_pools *ps = &hi_state.pools;
  uint32_t i = slot, j = slot;
  for (;;)
    {
      j = (j + 1) % POOL_SLOTS;
      if (!ps->index->id[j])
        break;
      uint32_t k = hi_mix (ps->index->key[j], 7) % POOL_SLOTS;
      /* Move j back to i unless its home k lies cyclically in (i, j]. */
      if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
        continue;
      ps->index->key[i] = ps->index->key[j];
      ps->index->id[i] = ps->index->id[j];
      i = j;
    }
  ps->index->id[i] = 0;
  ps->index->key[i] = 0;
}

static uint32_t
rec_home (uint32_t pool, uint64_t ptr)
{
  struct hi_pools *ps = &hi_state.pools;
  return hi_mix (ptr, pool) & ps->index_mask;
}

/* The record of block PTR of pool POOL: its id, or 0; *SLOT its slot. */
static uint32_t
rec_find (uint32_t pool, uint64_t ptr, uint32_t *slot)
{
  struct hi_pools *ps = &hi_state.pools;
  uint32_t h = rec_home (pool, ptr);
  for (;;)
    {
      uint32_t id = ps->index_slots[h];
      if (!id || (ps->recs[id].ptr == ptr && ps->recs[id].pool == pool))
        {
          *slot = h;
          return id;
        }
      h = (h + 1) & ps->index_mask;
    }
}

static void
rec_unslot (uint32_t slot)
{
  struct hi_pools *ps = &hi_state.pools;
  uint32_t i = slot, j = slot;
  for (;;)
    {
      j = (j + 1) & ps->index_mask;
      uint32_t id = ps->index_slots[j];
      if (!id)
        break;
      uint32_t k = rec_home (ps->recs[id].pool, ps->recs[id].ptr);
      if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
        continue;
      ps->index_slots[i] = id;
      i = j;
    }
  ps->index_slots[i] = 0;
  ps->index_used--;
}

/* Room in the index for one more record: 0, or -1. */
static int
index_room (void)
{
  struct hi_pools *ps = &hi_state.pools;
  if (ps->index_slots && (ps->index_used + 1) * 2 <= ps->index_mask + 1)
    return 0;
  uint32_t size = ps->index_slots ? (ps->index_mask + 1) * 2 : INDEX_FIRST;
  if (size > RECS_MAX * 2)
    return -1;
  uint32_t *t = hi_prim_alloc_nodump (size * sizeof *t);
  if (!t)
    return -1;
  uint32_t *old = ps->index_slots, old_size = old ? ps->index_mask + 1 : 0;
  ps->index_slots = t;
  ps->index_mask = size - 1;
  for (uint32_t i = 0; i < old_size; i++)
    if (old[i])
      {
        uint32_t h = rec_home (ps->recs[old[i]].pool, ps->recs[old[i]].ptr);
        while (t[h])
          h = (h + 1) & ps->index_mask;
        t[h] = old[i];
      }
  if (old)
    hi_prim_release (old, old_size * sizeof *old);
  return 0;
}

/* Count the allocation or free of BYTES by SITE of pool P. */
static void
count (struct hi_pool *p, uint32_t site, uint64_t bytes, int alloc)
{
  unsigned sc = hi_size_class (bytes);
  if (alloc)
    {
      HI_ADD (p->allocs, 1);
      HI_ADD (p->bytes, bytes);
      if (site != HI_SITE_UNKNOWN)
        {
          HI_ADD (hi_state.sites[site].allocs[sc], 1);
          HI_ADD (hi_state.sites[site].bytes[sc], bytes);
        }
    }
  else
    {
      HI_ADD (p->frees, 1);
      HI_ADD (p->bytes_freed, bytes);
      if (site != HI_SITE_UNKNOWN)
        {
          HI_ADD (hi_state.sites[site].frees[sc], 1);
          HI_ADD (hi_state.sites[site].bytes_freed[sc], bytes);
        }
    }
}

/* Free record ID (in the index's SLOT) of pool index POOL. */
static void
rec_release (uint32_t id, uint32_t slot)
{
  struct hi_pools *ps = &hi_state.pools;
  struct hi_pool_rec *r = &ps->recs[id];
  count (&pools ()[r->pool], r->site, r->size, 0);
  if (r->prev)
    ps->recs[r->prev].next = r->next;
  else
    ps->index->head[r->pool] = r->next;
  if (r->next)
    ps->recs[r->next].prev = r->prev;
  rec_unslot (slot);
  r->ptr = 0;
  r->next = ps->free_recs;
  ps->free_recs = id;
}

/* Every live block of pool index POOL given back. */
static void
release_all (uint32_t pool)
{
  struct hi_pools *ps = &hi_state.pools;
  while (ps->index->head[pool])
    {
      uint32_t id = ps->index->head[pool], slot;
      rec_find (pool, ps->recs[id].ptr, &slot);
      rec_release (id, slot);
    }
}

static int
ready (void)
{
  struct hi_pools *ps = &hi_state.pools;
  if (hi_tls.busy || !hi_ensure_init () || !hi_state.pools.arena)
    return 0;
  if (HI_UNLIKELY (!HI_LOAD_ACQ (ps->index)))
    {
      /* The records first, then the index that says they are there. */
      hi_lock_acquire (&ps->lock);
      if (!ps->index)
        {
          ps->recs = hi_prim_alloc_nodump ((size_t) RECS_MAX
                                           * sizeof *ps->recs);
          if (ps->recs)
            HI_STORE_REL (ps->index, hi_prim_alloc_nodump (sizeof *ps->index));
        }
      hi_lock_release (&ps->lock);
    }
  return HI_LOAD_ACQ (ps->index) != NULL;
}

static void
missed (void)
{
  HI_ADD (heapinspect_root.client[HI_CLIENT_POOL_MISSES], 1);
}

PUBLIC void
heapinspect_pool_create_ (const void *pool, const char *name)
{
  struct hi_pools *ps = &hi_state.pools;
  if (!ready ())
    return;
  hi_tls.busy++;
  hi_lock_acquire (&ps->lock);
  uint64_t key = (uint64_t) (uintptr_t) pool;
  uint32_t slot, id = pool_find (key, &slot);
  struct hi_arena_desc *a = hi_arena_at (HI_A_POOLS);
  if (id)
    missed ();               /* it exists: keep it */
  else if (a->count < HI_POOLS_MAX
           && hi_arena_commit (HI_A_POOLS, a->count + 1) == 0)
    {
      uint32_t i = (uint32_t) a->count;
      struct hi_pool *p = &pools ()[i];
      p->key = key;
      size_t n = 0;
      while (name && name[n] && n < HI_POOL_NAME_MAX - 1)
        {
          p->name[n] = name[n];
          n++;
        }
      p->name[n] = '\0';
      p->flags = HI_POOL_LIVE
                 | (name && name[n] ? HI_POOL_NAME_CUT : 0u);
      HI_STORE_REL (a->count, (uint64_t) i + 1);
      ps->index->key[slot] = key;
      ps->index->id[slot] = i + 1;
      ps->index->head[i] = 0;
    }
  else
    missed ();
  hi_lock_release (&ps->lock);
  hi_tls.busy--;
}

PUBLIC void
heapinspect_pool_destroy_ (const void *pool)
{
  struct hi_pools *ps = &hi_state.pools;
  if (!ready ())
    return;
  hi_tls.busy++;
  hi_lock_acquire (&ps->lock);
  uint32_t slot, id = pool_find ((uint64_t) (uintptr_t) pool, &slot);
  if (id)
    {
      release_all (id - 1);
      HI_STORE_REL (pools ()[id - 1].flags,
                    pools ()[id - 1].flags & ~HI_POOL_LIVE);
      pool_unslot (slot);
    }
  else
    missed ();
  hi_lock_release (&ps->lock);
  hi_tls.busy--;
}

PUBLIC void
heapinspect_pool_reset_ (const void *pool)
{
  struct hi_pools *ps = &hi_state.pools;
  if (!ready ())
    return;
  hi_tls.busy++;
  hi_lock_acquire (&ps->lock);
  uint32_t slot, id = pool_find ((uint64_t) (uintptr_t) pool, &slot);
  if (id)
    {
      release_all (id - 1);
      HI_ADD (pools ()[id - 1].resets, 1);
    }
  else
    missed ();
  hi_lock_release (&ps->lock);
  hi_tls.busy--;
}

PUBLIC void
heapinspect_alloc_ (const void *pool, const void *ptr, unsigned long size)
{
  struct hi_pools *ps = &hi_state.pools;
  HI_CALLER_FRAME (caller);
  if (!ready ())
    return;
  uint64_t key = (uint64_t) (uintptr_t) pool;
  uint32_t slot;
  hi_lock_acquire (&ps->lock);
  uint32_t id = pool_find (key, &slot);
  hi_lock_release (&ps->lock);
  if (!id)
    {
      missed ();
      return;
    }
  /* The chain outside the lock: the caller's, then the pool's node. */
  hi_tls.busy++;
  uint32_t site = HI_SITE_UNKNOWN;
  if (atomic_load_explicit (&hi_unwind_ready, memory_order_relaxed))
    site = hi_chain_site_under (hi_chain_site (&caller),
                                HI_POOL_FRAME + (id - 1));
  hi_lock_acquire (&ps->lock);
  uint32_t pi = pool_find (key, &slot);
  uint32_t rslot, old;
  if (pi != id || !ps->recs)
    missed ();               /* destroyed meanwhile */
  else if (ps->index_slots
           && (old = rec_find (pi - 1, (uint64_t) (uintptr_t) ptr, &rslot)))
    {
      /* Handed out again without a free: the old block went. */
      rec_release (old, rslot);
    }
  if (pi == id && ps->recs)
    {
      uint32_t r = ps->free_recs;
      if (!r && ps->n_recs < RECS_MAX && index_room () == 0)
        r = ps->n_recs++;
      else if (r)
        {
          if (index_room () == 0)
            ps->free_recs = ps->recs[r].next;
          else
            r = 0;
        }
      if (!r)
        HI_ADD (heapinspect_root.client[HI_CLIENT_POOL_DROPPED], 1);
      else
        {
          uint32_t p = id - 1;
          ps->recs[r] = (struct hi_pool_rec) { (uint64_t) (uintptr_t) ptr,
                                               size, site, p, 0,
                                               ps->index->head[p] };
          if (ps->index->head[p])
            ps->recs[ps->index->head[p]].prev = r;
          ps->index->head[p] = r;
          rec_find (p, ps->recs[r].ptr, &rslot);
          ps->index_slots[rslot] = r;
          ps->index_used++;
          count (&pools ()[p], site, size, 1);
        }
    }
  hi_lock_release (&ps->lock);
  hi_tls.busy--;
}

PUBLIC void
heapinspect_free_ (const void *pool, const void *ptr)
{
  struct hi_pools *ps = &hi_state.pools;
  if (!ready () || !ptr)
    return;
  hi_tls.busy++;
  hi_lock_acquire (&ps->lock);
  uint32_t slot, rslot, id = pool_find ((uint64_t) (uintptr_t) pool, &slot);
  uint32_t r = id && ps->index_slots
               ? rec_find (id - 1, (uint64_t) (uintptr_t) ptr, &rslot) : 0;
  if (r)
    rec_release (r, rslot);
  else
    missed ();
  hi_lock_release (&ps->lock);
  hi_tls.busy--;
}

void
hi_pools_fork (int phase)
{
  struct hi_pools *ps = &hi_state.pools;
  if (phase == 0)
    hi_lock_acquire (&ps->lock);
  else if (phase == 1)
    hi_lock_release (&ps->lock);
  else
    ps->lock.word = 0;
}
