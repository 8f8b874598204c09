/* many-live.c - 1 000 000 live blocks in a 1 GiB heap, for timing the
   reachability scan (bench/run --leak-check): most reachable from a
   global table through blocks of pointers, a tenth in dropped lists
   (one definitely lost head each, the rest indirectly lost), some held
   only by an interior pointer (possibly lost).  The blocks' bytes are
   filled with small numbers, as data that is not a pointer.  Prints
   "ready" once built, then waits until its input ends (a live process
   to scan, or to dump with gcore). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCKS 1000000
#define GROUP 1000             /* blocks per table block */
#define HEAP_BYTES (UINT64_C (1) << 30)

void **table[BLOCKS / GROUP];          /* the roots: .bss */
void *interior[1000];

struct node
{
  struct node *next;
  uint64_t data[];
};

static void *
block (size_t size)
{
  unsigned char *p = malloc (size);
  if (!p)
    {
      perror ("many-live: malloc");
      exit (1);
    }
  /* Not pointers: small values, as counters and text would be. */
  memset (p, 0x11, size);
  return p;
}

int
main (void)
{
  /* Sizes around 1 KiB so that the blocks sum to 1 GiB: 1073 bytes on
     average, spread from 64 to 2082. */
  size_t avg = HEAP_BYTES / BLOCKS, made = 0;
  unsigned seed = 12345;
  for (size_t g = 0; g < BLOCKS / GROUP; g++)
    {
      /* Every tenth group is a list whose head is dropped. */
      int lost = g % 10 == 9;
      struct node *head = NULL;
      if (!lost)
        table[g] = block (GROUP * sizeof (void *));
      made++;
      for (size_t i = 1; i < GROUP; i++, made++)
        {
          seed = seed * 1103515245u + 12345u;
          size_t size = 64 + (seed >> 8) % (2 * avg - 128 + 1);
          if (lost)
            {
              struct node *n = block (size);
              n->next = head;
              head = n;
            }
          else
            {
              table[g][i] = block (size);
              table[g][0] = NULL;
            }
        }
      if (lost)
        {
          /* The list's own block stands in for the table block. */
          struct node *n = block (sizeof *n);
          n->next = head;
        }
    }
  /* Held only by a pointer into their middle. */
  for (size_t i = 0; i < sizeof interior / sizeof interior[0]; i++)
    interior[i] = (char *) block (256) + 128;
  printf ("ready %zu blocks\n", made + sizeof interior / sizeof interior[0]);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
