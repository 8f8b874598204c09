/* vec.c - the reader's one growable array. */
#include <stdlib.h>

#include "util/vec.h"

int
hi_grow_max (void **p, size_t *cap, size_t need, size_t elem, size_t max)
{
  if (need <= *cap)
    return 0;
  size_t limit = SIZE_MAX / elem < max ? SIZE_MAX / elem : max;
  if (need > limit)
    return -1;
  size_t c = *cap ? *cap : 16;
  while (c < need)
    c = c > limit / 2 ? limit : 2 * c;
  void *v = realloc (*p, c * elem);
  if (!v)
    return -1;
  *p = v;
  *cap = c;
  return 0;
}

void
hi_free_strings (char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (v[i]);
  free (v);
}
