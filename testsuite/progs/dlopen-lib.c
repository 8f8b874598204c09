/* dlopen-lib.c - a library loaded with dlopen that allocates. */
#define _GNU_SOURCE
#include <stdlib.h>

void **
dl_allocate (int n)
{
  void **v = malloc ((size_t) n * sizeof *v);
  for (int i = 0; i < n; i++)
    v[i] = malloc (333);
  return v;
}
