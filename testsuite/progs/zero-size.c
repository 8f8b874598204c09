/* zero-size.c - malloc (0) blocks, some freed, beside 100-byte ones:
   zeros () allocates ZEROS 0-byte blocks and frees ZEROS_FREED of them;
   hundreds () keeps HUNDREDS blocks of 100 bytes.  Prints the counts. */
#include <stdlib.h>
#include "report.h"

#define ZEROS 10
#define ZEROS_FREED 4
#define HUNDREDS 3

static void *volatile sink;
static void *blocks[ZEROS];

__attribute__ ((noinline)) static void
zeros (void)
{
  for (int i = 0; i < ZEROS; i++)
    blocks[i] = malloc (0);
  for (int i = 0; i < ZEROS_FREED; i++)
    free (blocks[i]);
}

__attribute__ ((noinline)) static void
hundreds (void)
{
  for (int i = 0; i < HUNDREDS; i++)
    sink = malloc (100);
}

int
main (void)
{
  zeros ();
  hundreds ();
  say ("zeros: %d\nzeros_freed: %d\nhundreds: %d\n", ZEROS, ZEROS_FREED,
       HUNDREDS);
  return 0;
}
