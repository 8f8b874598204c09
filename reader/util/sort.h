/* sort.h - ordering: the comparison qsort's comparators use, and the
   binary search over arrays sorted by an address. */
#ifndef HI_SORT_H
#define HI_SORT_H

#include <stddef.h>
#include <stdint.h>

/* -1, 0 or 1 as A is below, equal to or above B: a key in ascending
   order; hi_cmp_u64 (B, A) sorts it descending.  A comparator tries
   its keys in turn and returns the first that is not 0. */
static inline int
hi_cmp_u64 (uint64_t a, uint64_t b)
{
  return (a > b) - (a < b);
}

/* The index of the first of the N elements at BASE (SIZE bytes each,
   in ascending order of the uint64_t at OFFSET in each) whose key is
   above KEY; N if none.  The one before it, if any, is the last whose
   key is at most KEY: the one that may hold an address KEY. */
static inline size_t
hi_upper_bound_u64 (const void *base, size_t n, size_t size, size_t offset,
                    uint64_t key)
{
  const char *p = base;
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (*(const uint64_t *) (p + mid * size + offset) <= key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

#endif
