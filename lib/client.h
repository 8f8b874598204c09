/* client.h - what the entry points and init.c call of the client
   API's bookkeeping: block types (types.c) and pools (pools.c). */
#ifndef HI_CLIENT_H
#define HI_CLIENT_H

#include "monitor.h"

/* types.c: a block of type SIZE_FLAGS's (HI_BLOCK_TYPE_MASK, not 0)
   from SITE was freed; hi_types_moved: ... and realloc made TO (NULL if
   it failed) of it, which takes its type. */
HI_HIDDEN void hi_types_freed (uint64_t size_flags, uint32_t site);
HI_HIDDEN void hi_types_moved (void *to, uint64_t size_flags, uint32_t site);

/* pools.c: hold, release (the parent) or reset (the child) its lock
   around fork: PHASE 0, 1, 2.  types.c: the same for its lock. */
HI_HIDDEN void hi_pools_fork (int phase);
HI_HIDDEN void hi_types_fork (int phase);

#endif
