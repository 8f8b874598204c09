/* sort.h - the three-way comparison the reader's qsort comparators use. */
#ifndef HI_SORT_H
#define HI_SORT_H

#include <stdint.h>

/* -1, 0 or 1 as A is below, equal to or above B: a key in ascending
   order; hi_cmp_u64 (B, A) sorts it descending.  A comparator tries
   its keys in turn and returns the first that is not 0. */
static inline int
hi_cmp_u64 (uint64_t a, uint64_t b)
{
  return (a > b) - (a < b);
}

#endif
