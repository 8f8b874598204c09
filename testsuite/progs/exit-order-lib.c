/* exit-order-lib.c - a shared library that allocates in its constructor
   and frees in its destructor, which the loader runs after the
   monitor's own destructor: memcheck.exp checks those frees count.
   With EXIT_ORDER_HANDLERS=40 in the environment its constructor also
   registers 40 empty exit handlers, before the program starts: glibc's
   first 32 slots fill, atexit allocates a block for the rest, and the
   loader's own exit handler lands in that block too -- exit() frees it
   after running the last handler in it, the monitor's. */
#include <stdlib.h>

#define LIB_BLOCKS 5
#define LIB_SIZE 100

static void *blocks[LIB_BLOCKS];

static void
empty_handler (void)
{
}

__attribute__ ((constructor)) static void
lib_init (void)
{
  for (int i = 0; i < LIB_BLOCKS; i++)
    blocks[i] = malloc (LIB_SIZE);
  const char *n = getenv ("EXIT_ORDER_HANDLERS");
  for (int i = 0; n && i < atoi (n); i++)
    atexit (empty_handler);
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
