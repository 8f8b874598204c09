/* many-blocks.c - a program whose leak scan takes a while, for the run
   time of `heapinspect run --leak-check` (heapinspect.cli/leak-live.exp):
   usage: many-blocks N MS
   allocates N blocks of 32 bytes in a list a global holds (all still
   reachable: the scan reads every one), sleeps MS milliseconds, and
   returns from main. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

struct node
{
  struct node *next;
  char pad[24];
};

struct node *head;

int
main (int argc, char **argv)
{
  if (argc < 3)
    return 2;
  long n = atol (argv[1]), ms = atol (argv[2]);
  for (long i = 0; i < n; i++)
    {
      struct node *x = malloc (sizeof *x);
      if (!x)
        return 1;
      x->next = head;
      head = x;
    }
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&t, &t) != 0)
    ;
  return 0;
}
