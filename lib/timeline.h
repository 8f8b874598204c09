/* timeline.h - the heap over time (timeline.c). */
#ifndef HI_TIMELINE_H
#define HI_TIMELINE_H

#include "monitor.h"

/* Take a point of the timeline if none is being taken (the
   clock reached next_clock); reset it in a forked child. */
HI_HIDDEN void hi_timeline_point (uint64_t clock);
HI_HIDDEN void hi_timeline_forked (void);

#endif
