/* filter-lib.c - the shared library of filter-chains: one function that
   allocates, one that calls back into the program (a chain through the
   library whose allocating frame is not in it). */
#include <stdlib.h>

void *filter_lib_kept[16];

__attribute__ ((noinline)) void
lib_alloc (int n, size_t size)
{
  for (int i = 0; i < n && i < 16; i++)
    filter_lib_kept[i] = malloc (size);
}

__attribute__ ((noinline)) void
lib_call (void (*f) (void))
{
  f ();
  __asm__ volatile ("");        /* no tail call: lib_call stays a frame */
}
