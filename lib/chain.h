/* chain.h - an allocation's chain and its site: hi_chain_site inline
   (a hit in the chain cache), else chain.c's capture and interning of
   the chain into the calling-context tree.  Include it after defining
   _GNU_SOURCE (unwind.h). */
#ifndef HI_CHAIN_H
#define HI_CHAIN_H

#include "chain-cache.h"
#include "shadow.h"

/* hi_chain_site (below) when the chain cache does not have the chain,
   or chains come from elsewhere; CACHE_TRIED: the cache was looked in
   already. */
HI_HIDDEN uint32_t hi_chain_site_slow (const struct hi_frame *caller,
                                       int cache_tried);
/* The site of the chain of SITE with RET as one more innermost frame
   (a pool's node, format.h); HI_SITE_UNKNOWN if it cannot be. */
HI_HIDDEN uint32_t hi_chain_site_under (uint32_t site, uint64_t ret);

/* Count a chain of N frames, CACHED of them found without a pair lookup,
   in thread T's record. */
static inline void
hi_count_chain (struct hi_thread *t, int n, int cached)
{
  if (HI_UNLIKELY (hi_tls.shared_slot))
    {
      HI_ADD (t->chains, 1);
      HI_ADD (t->frames, (uint64_t) n);
      HI_ADD (t->frames_cached, (uint64_t) cached);
    }
  else
    {
      HI_OWN_ADD (t->chains, 1);
      HI_OWN_ADD (t->frames, (uint64_t) n);
      HI_OWN_ADD (t->frames_cached, (uint64_t) cached);
    }
}

/* The site of the calling context of the allocation whose entry point
   was called from frame CALLER.  The common case inline (a chain in the
   chain cache, no shadow stack, no check against libgcc); else
   hi_chain_site_slow. */
static inline uint32_t
hi_chain_site (const struct hi_frame *caller)
{
  if (HI_LIKELY (!hi_state.shadow.on && !hi_state.check_unwind))
    {
      int n;
      uint32_t site = hi_chain_cache_lookup (caller, NULL, &n);
      if (HI_LIKELY (site))
        {
          if (HI_UNLIKELY (n > hi_state.depth))
            {
              n = hi_state.depth;
              HI_ADD (heapinspect_root.totals.chains_truncated, 1);
            }
          hi_count_chain (hi_this_thread (), n, n);
          return site;
        }
      return hi_chain_site_slow (caller, 1);
    }
  return hi_chain_site_slow (caller, 0);
}

#endif
