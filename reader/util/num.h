/* num.h - counter arithmetic that never wraps. */
#ifndef HI_NUM_H
#define HI_NUM_H

#include <stdint.h>

/* Counter arithmetic that never wraps: a damaged input may claim
   anything, and a table must not print a wrapped-around number. */
static inline uint64_t
hi_add_sat (uint64_t x, uint64_t y)
{
  return x + y < x ? UINT64_MAX : x + y;
}
static inline uint64_t
hi_sub0 (uint64_t x, uint64_t y)
{
  return x > y ? x - y : 0;
}
static inline uint64_t
hi_mul_sat (uint64_t x, uint64_t y)
{
  return y && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

#endif
