/* vec.h - the reader's one growable array: room for more elements, and
   freeing an array of owned strings. */
#ifndef HI_VEC_H
#define HI_VEC_H

#include <stddef.h>
#include <stdint.h>

/* Make room in the array *P, of capacity *CAP elements of ELEM (> 0)
   bytes, for NEED elements: the capacity doubles, from 16, until it
   holds NEED, and never passes MAX elements (the bound of the caller's
   ids or of the bytes it wants to hold).  Returns 0 (*P and *CAP
   updated), or -1 if NEED passes MAX or SIZE_MAX bytes or memory runs
   out (*P and *CAP as they were).  *P is the caller's: NULL or from
   malloc, freed with free.  Thread-safe on distinct arrays. */
int hi_grow_max (void **p, size_t *cap, size_t need, size_t elem,
                 size_t max);

/* hi_grow_max with no bound but memory. */
static inline int
hi_grow (void **p, size_t *cap, size_t need, size_t elem)
{
  return need <= *cap ? 0 : hi_grow_max (p, cap, need, elem, SIZE_MAX);
}

/* hi_grow for an array counted in uint32_t: at most UINT32_MAX
   elements, so that every index fits and UINT32_MAX never is one. */
static inline int
hi_grow32 (void **p, uint32_t *cap, size_t need, size_t elem)
{
  size_t c = *cap;
  if (need <= c)
    return 0;
  if (hi_grow_max (p, &c, need, elem, UINT32_MAX) != 0)
    return -1;
  *cap = (uint32_t) c;
  return 0;
}

/* Frees the N strings of the array V and V itself (NULL if N is 0).
   Thread-safe on distinct arrays. */
void hi_free_strings (char **v, size_t n);

#endif
