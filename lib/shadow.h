/* shadow.h - chains from -finstrument-functions' shadow stack
   (shadow.c), under HEAPINSPECT_CHAINS=instrument. */
#ifndef HI_SHADOW_H
#define HI_SHADOW_H

#include "monitor.h"

/* The chain of the allocation called from CALLER, from the shadow
   stack (as hi_unwind), or -1: unwind instead.  hi_state.shadow.on
   says whether chains come from it. */
HI_HIDDEN int hi_shadow_chain (const struct hi_frame *caller, uint64_t *out,
                               int max);

#endif
