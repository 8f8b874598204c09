/* shadow.h - chains from -finstrument-functions' shadow stack
   (shadow.c), under HEAPINSPECT_CHAINS=instrument. */
#ifndef HI_SHADOW_H
#define HI_SHADOW_H

#include "monitor.h"

/* 1 when chains come from -finstrument-functions' shadow
   stack (HEAPINSPECT_CHAINS=instrument); the chain of the allocation
   called from CALLER from it (as hi_unwind), or -1: unwind instead. */
extern HI_HIDDEN int hi_shadow_on;
HI_HIDDEN int hi_shadow_chain (const struct hi_frame *caller, uint64_t *out,
                               int max);

#endif
