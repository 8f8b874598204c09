/* waiting-blocks.c - N live blocks (the first argument, 1000000 by
   default) for a heap lost that takes a while: small blocks of 16 to 79
   bytes held in a table, a tenth of them dropped.  Prints "ready" once
   built, then waits until its input ends. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void **table;

int
main (int argc, char **argv)
{
  size_t n = argc > 1 ? strtoul (argv[1], NULL, 10) : 1000000;
  table = malloc (n * sizeof *table);
  if (!table)
    return 1;
  for (size_t i = 0; i < n; i++)
    {
      void *p = malloc (16 + i % 64);
      table[i] = i % 10 == 9 ? NULL : p;
    }
  printf ("ready %zu\n", n);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)   /* waits here */
    ;
  return 0;
}
