/* exit-order-lib.c - a shared library that allocates in its constructor
   and frees in its destructor, which the loader runs after the
   monitor's own destructor: exit-order.exp checks those frees count. */
#include <stdlib.h>

#define LIB_BLOCKS 5
#define LIB_SIZE 100

static void *blocks[LIB_BLOCKS];

__attribute__ ((constructor)) static void
lib_init (void)
{
  for (int i = 0; i < LIB_BLOCKS; i++)
    blocks[i] = malloc (LIB_SIZE);
}

__attribute__ ((destructor)) static void
lib_fini (void)
{
  for (int i = 0; i < LIB_BLOCKS; i++)
    free (blocks[i]);
}

/* Called by the program so that it links against this library. */
int
exit_order_lib_blocks (void)
{
  return blocks[0] != NULL ? LIB_BLOCKS : 0;
}
