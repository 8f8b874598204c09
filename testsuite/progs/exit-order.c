/* exit-order.c - frees made by exit handlers, for exit-order.exp: a
   library destructor (exit-order-lib.c) frees 5 blocks of 100 bytes; an
   atexit handler frees 2 of main's 3 blocks of 50 bytes and registers
   another, which frees one block of 70 bytes allocated by the first;
   a destructor of the program frees one block of 30.  No stdio: nothing
   else allocates.  Left live at the end: 1 block of 50 bytes.
   The library registers exit handlers of its own on request (see
   exit-order-lib.c). */
#include <stdlib.h>
#include <unistd.h>

int exit_order_lib_blocks (void);

static void *mine[3], *late, *own;

static void
late_handler (void)
{
  free (late);
}

static void
first_handler (void)
{
  free (mine[0]);
  free (mine[1]);
  late = malloc (70);
  atexit (late_handler);
}

__attribute__ ((destructor)) static void
program_fini (void)
{
  free (own);
}

int
main (void)
{
  if (exit_order_lib_blocks () != 5)
    return 1;
  for (int i = 0; i < 3; i++)
    mine[i] = malloc (50);
  own = malloc (30);
  atexit (first_handler);
  if (write (1, "ready\n", 6) != 6)
    return 1;
  return 0;
}
