/* chain.c - call chains: capture, and interning into the calling-context
   tree of caller/callee pairs with mprof's chain-prefix caching. */
#define _GNU_SOURCE
#include "chain.h"
#include "modules.h"

#include <string.h>

static inline uint32_t
pair_hash (uint32_t parent, uint64_t ret)
{
  uint64_t x = ret * UINT64_C(0x9e3779b97f4a7c15) ^ parent;
  x ^= x >> 29;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  return (uint32_t) (x >> 32);
}

/* The node of pair (PARENT, RET) (hash HASH) in table T, or 0 with
   *SLOT_OUT the empty slot where it would go. */
static uint32_t
probe (const struct hi_hash *t, uint32_t parent, uint64_t ret, uint32_t hash,
       uint32_t *slot_out)
{
  uint32_t h = hash & t->mask;
  for (;;)
    {
      uint32_t id = HI_LOAD_ACQ (t->slots[h]);
      if (id == 0)
        {
          *slot_out = h;
          return 0;
        }
      const struct hi_node *n = &hi_state.nodes[id];
      if (n->ret == ret && n->parent == parent)
        return id;
      h = (h + 1) & t->mask;
    }
}

/* Under table_lock: a table four times larger holding every node, or
   NULL (then the old one keeps serving, fuller). */
static struct hi_hash *
grow (struct hi_hash *old)
{
  uint32_t size = (old->mask + 1) * 4;
  if (size > HI_CAP_HASH)
    return NULL;
  struct hi_hash *t = hi_prim_alloc (sizeof *t + size * sizeof (uint32_t));
  if (!t)
    return NULL;
  t->mask = size - 1;
  uint64_t count = heapinspect_root.arenas[HI_A_NODES].count;
  for (uint32_t id = HI_NODE_CUT + 1; id < count; id++)
    {
      const struct hi_node *n = &hi_state.nodes[id];
      uint32_t h = pair_hash (n->parent, n->ret) & t->mask;
      while (t->slots[h])
        h = (h + 1) & t->mask;
      t->slots[h] = id;
      t->used++;
    }
  struct hi_arena_desc *a = &heapinspect_root.arenas[HI_A_HASH];
  a->addr = (uint64_t) (uintptr_t) t;
  a->capacity = a->count = size + 2;
  return t;
}

/* This thread's most recent pairs and their nodes, direct-mapped by the
   pair's hash: most lookups of a chain's changed frames are of pairs the
   thread met a moment ago, found here without the shared table's two
   dependent loads.  A pair's node never changes once made. */
#define PAIR_MEMO 512
struct pair_memo
{
  uint64_t ret;
  uint32_t parent, node;        /* node 0: empty */
};
static __thread struct pair_memo pair_memo_data[PAIR_MEMO]
  HI_TLS_MODEL;
#define pair_memos HI_TLS (pair_memo_data, HI_TLS_SLOT_PAIRS)

/* The node for pair (PARENT, RET), created if new; 0 if the table is
   full.  *CREATED is set when this call made it. */
static uint32_t
intern (uint32_t parent, uint64_t ret, int *created)
{
  /* One multiplication: the memo's index is on each frame's critical
     path (the next frame's parent is this one's node). */
  uint64_t mix = (ret ^ ((uint64_t) parent << 24)) * UINT64_C(0x9e3779b97f4a7c15);
  struct pair_memo *pm = &pair_memos[mix >> (64 - 9)];
  _Static_assert (PAIR_MEMO == 1 << 9, "PAIR_MEMO is 2^9");
  if (pm->ret == ret && pm->parent == parent && pm->node)
    return pm->node;
  uint32_t hash = pair_hash (parent, ret);
  uint32_t slot;
  struct hi_hash *t = atomic_load_explicit (&hi_state.hash,
                                            memory_order_acquire);
  uint32_t id = probe (t, parent, ret, hash, &slot);
  if (id)
    {
      *pm = (struct pair_memo) { ret, parent, id };
      return id;
    }
  hi_lock_acquire (&hi_state.table_lock);
  t = atomic_load_explicit (&hi_state.hash, memory_order_relaxed);
  id = probe (t, parent, ret, hash, &slot); /* another thread may have won */
  if (!id)
    {
      struct hi_arena_desc *a = &heapinspect_root.arenas[HI_A_NODES];
      if ((t->used + 1) * 2 > t->mask + 1)
        {
          struct hi_hash *bigger = grow (t);
          if (bigger)
            {
              atomic_store_explicit (&hi_state.hash, bigger,
                                     memory_order_release);
              t = bigger;
              probe (t, parent, ret, hash, &slot);
            }
        }
      if (a->count < HI_CAP_NODES && (t->used + 1) * 4 < (t->mask + 1) * 3
          && hi_arena_commit (HI_A_NODES, a->count + 1) == 0)
        {
          id = (uint32_t) a->count;
          hi_state.nodes[id].ret = ret;
          hi_state.nodes[id].parent = parent;
          HI_STORE_REL (a->count, a->count + 1);
          HI_STORE_REL (t->slots[slot], id);
          t->used++;
          *created = 1;
        }
    }
  hi_lock_release (&hi_state.table_lock);
  if (id)
    *pm = (struct pair_memo) { ret, parent, id };
  return id;
}

static uint32_t
site_of (uint32_t node, uint32_t depth)
{
  uint32_t site = HI_LOAD_ACQ (hi_state.nodes[node].site);
  if (HI_LIKELY (site != 0))
    return site;
  hi_lock_acquire (&hi_state.table_lock);
  site = hi_state.nodes[node].site;
  if (!site)
    {
      struct hi_arena_desc *a = &heapinspect_root.arenas[HI_A_SITES];
      /* The site's time entry is readable, and counted, before the
         site is. */
      struct hi_arena_desc *at = hi_arena_at (HI_A_SITE_TIME);
      if (a->count < HI_CAP_SITES
          && hi_arena_commit (HI_A_SITES, a->count + 1) == 0
          && hi_arena_commit (HI_A_SITE_TIME, a->count + 1) == 0)
        {
          site = (uint32_t) a->count;
          hi_state.sites[site].node = node;
          hi_state.sites[site].depth = depth;
          HI_STORE_REL (at->count, a->count + 1);
          HI_STORE_REL (a->count, a->count + 1);
          HI_STORE_REL (hi_state.nodes[node].site, site);
        }
    }
  hi_lock_release (&hi_state.table_lock);
  return site;
}

/* libgcc's chain for the allocation called from CALLER: the frames from
   the caller outward, the monitor's own frames skipped.  How many. */
static int
libgcc_chain (const struct hi_frame *caller, uint64_t *out, int max)
{
  uint64_t *raw = hi_tls.raw;
  int n = hi_prim_backtrace (raw, max + HI_OWN_FRAMES_MAX);
  int first = 0;
  while (first < n && first < HI_OWN_FRAMES_MAX && raw[first] != caller->ip)
    first++;
  if (first == n || first == HI_OWN_FRAMES_MAX)
    first = 0;
  n -= first;
  if (n > max)
    n = max;
  memcpy (out, raw + first, (size_t) (n > 0 ? n : 0) * sizeof *out);
  return n;
}

/* With HEAPINSPECT_CHECK_UNWIND: compare the N frames of CHAIN with
   libgcc's. */
static void
check_chain (const struct hi_frame *caller, const uint64_t *chain, int n)
{
  uint64_t *ref = hi_tls.check;
  int m = libgcc_chain (caller, ref, hi_state.depth + 1);
  HI_ADD (heapinspect_root.totals.unwind_checked, 1);
  if (m != n || memcmp (ref, chain, (size_t) n * sizeof *chain) != 0)
    HI_ADD (heapinspect_root.totals.unwind_mismatches, 1);
}

uint32_t
hi_chain_site_slow (const struct hi_frame *caller, int cache_tried)
{
  uint64_t *chain = hi_tls.chain;       /* innermost first */
  int depth = hi_state.depth;
  int n = -1, unwound = -1;             /* unwound: frames of our own unwind */
  uint32_t site;
  int shadow = 0;
  if (HI_UNLIKELY (hi_state.shadow.on))
    {
      n = hi_shadow_chain (caller, chain, depth + 1);
      shadow = n >= 0;
    }
  if (!shadow)
    {
      /* A chain this thread met lately, still on the stack: its site
         (hi_chain_site looked already unless the chain is checked). */
      site = cache_tried ? 0
             : hi_chain_cache_lookup (caller,
                                      HI_UNLIKELY (hi_state.check_unwind)
                                      ? chain : NULL, &n);
      if (site)
        {
          if (HI_UNLIKELY (hi_state.check_unwind))
            check_chain (caller, chain, n);
          if (n > depth)
            {
              n = depth;
              HI_ADD (heapinspect_root.totals.chains_truncated, 1);
            }
          hi_count_chain (hi_this_thread (), n, n);
          return site;
        }
      n = hi_unwind (caller, chain, depth + 1);
      unwound = n;
    }
  if (n < 0)
    {
      HI_ADD (heapinspect_root.totals.unwind_fallbacks, 1);
      n = libgcc_chain (caller, chain, depth + 1);
    }
  else if (HI_UNLIKELY (hi_state.check_unwind) && !shadow)
    check_chain (caller, chain, n);
  int cut = n > depth;
  if (cut)
    n = depth;

  struct hi_thread *t = hi_this_thread ();
  if (n == 0)
    return HI_SITE_UNKNOWN;
  if (cut)
    HI_ADD (heapinspect_root.totals.chains_truncated, 1);

  /* Compare with the previous chain from the root side; only frames past
     the first difference are looked up in the pair table. */
  int same = 0;
  if (hi_tls.prev_cut == cut)
    {
      int m = hi_tls.prev_n < n ? hi_tls.prev_n : n;
      while (same < m && hi_tls.prev_ret[same] == chain[n - 1 - same])
        same++;
    }
  uint32_t node = same ? hi_tls.prev_node[same - 1]
                       : cut ? HI_NODE_CUT : HI_NODE_ROOT;
  /* From here prev_ret/prev_node describe this chain, also when it is
     dropped part way (prev_n then says how far). */
  hi_tls.prev_cut = cut;
  int refresh = 0;
  for (int i = same; i < n; i++)
    {
      uint64_t ret = chain[n - 1 - i];
      int created = 0;
      node = intern (node, ret, &created);
      if (HI_UNLIKELY (created) && !refresh && !hi_modules_cover (ret))
        refresh = 1;
      if (HI_UNLIKELY (node == 0))
        {
          hi_tls.prev_n = i;
          HI_ADD (heapinspect_root.totals.chains_dropped, 1);
          return HI_SITE_UNKNOWN;
        }
      hi_tls.prev_ret[i] = ret;
      hi_tls.prev_node[i] = node;
    }
  hi_tls.prev_n = n;
  if (HI_UNLIKELY (refresh))
    hi_modules_refresh ();

  hi_count_chain (t, n, same);
  site = site_of (node, (uint32_t) n);
  if (!site)
    HI_ADD (heapinspect_root.totals.chains_dropped, 1);
  else if (unwound > 0)
    hi_chain_cache_fill (caller, unwound, site);
  return site;
}

uint32_t
hi_chain_site_under (uint32_t site, uint64_t ret)
{
  uint32_t node = HI_NODE_ROOT, depth = 0;
  if (site != HI_SITE_UNKNOWN && site != HI_SITE_INTERNAL)
    {
      node = hi_state.sites[site].node;
      depth = hi_state.sites[site].depth;
    }
  int created = 0;
  node = intern (node, ret, &created);
  if (!node)
    {
      HI_ADD (heapinspect_root.totals.chains_dropped, 1);
      return HI_SITE_UNKNOWN;
    }
  site = site_of (node, depth + 1);
  return site ? site : HI_SITE_UNKNOWN;
}
