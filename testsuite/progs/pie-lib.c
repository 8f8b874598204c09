/* pie-lib.c - a shared library that allocates on its callers' behalf. */
#include <stdlib.h>

void *lib_kept[8];

void
lib_make (int n)
{
  for (int i = 0; i < n && i < 8; i++)
    lib_kept[i] = malloc (64);
}
