/* heap-fill.c - allocate 1 MiB blocks until malloc fails (at most
   4096), touch each, and print how many it got: the heap a program gets
   under an address-space limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kept where the compiler cannot drop the blocks. */
void *volatile kept[4096];

int
main (void)
{
  int n = 0;
  while (n < 4096)
    {
      void *p = malloc (1 << 20);
      if (!p)
        break;
      memset (p, 1, 4096);
      kept[n++] = p;
    }
  printf ("%d MiB\n", n);
  return 0;
}
