/* shadow-root.c - a program with its own global named heapinspect_root
   (zeros), which a reader looking the symbol up in the executable first
   finds instead of the monitor's.  Allocates 5 blocks of 40 bytes, says
   "ready", waits for its input to close.  For nostop.exp. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char heapinspect_root[4096];

int
main (void)
{
  void *volatile keep[5];
  for (int i = 0; i < 5; i++)
    keep[i] = malloc (40);
  if (write (1, "ready\n", 6) != 6 || heapinspect_root[0])
    return 1;
  char c;
  while (read (0, &c, 1) == 1)
    ;
  return keep[0] == NULL;
}
