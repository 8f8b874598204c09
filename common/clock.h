/* clock.h - a clock's reading in ns, as the monitor and the reader both
   take it. */
#ifndef HI_CLOCK_H
#define HI_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock ID now, in ns; 0 if it cannot be read.  Async-signal-safe. */
static inline uint64_t
hi_clock_ns (clockid_t id)
{
  struct timespec ts;
  if (clock_gettime (id, &ts) != 0 || ts.tv_sec < 0)
    return 0;
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

#endif
