/* typed-c.c - the client API's types in C: HI_MALLOC, HI_CALLOC and
   heapinspect_set_type; prints what it allocated, for the test. */
#include <heapinspect/typed.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct point { double x, y; };
struct edge { struct point *a, *b; int weight; };

/* "expect NAME ALLOCS BYTES LIVE_BLOCKS LIVE_BYTES" */
static void
expect (const char *name, unsigned long allocs, unsigned long bytes,
        unsigned long live, unsigned long live_bytes)
{
  printf ("expect %s %lu %lu %lu %lu\n", name, allocs, bytes, live,
          live_bytes);
}

int
main (void)
{
  struct point *p[5];
  for (int i = 0; i < 5; i++)
    p[i] = HI_MALLOC (struct point);
  free (p[0]);
  expect ("struct point", 5, 5 * sizeof (struct point), 4,
          4 * sizeof (struct point));

  struct edge *e = HI_CALLOC (3, struct edge);
  expect ("struct edge", 1, 3 * sizeof (struct edge), 1,
          3 * sizeof (struct edge));

  char *names = malloc (100);
  heapinspect_set_type (names, "name table");
  strcpy (names, "abc");
  names = realloc (names, 1000);        /* the type goes with the bytes */
  expect ("name table", 2, 1100, 1, 1000);

  int stack_value = 0;
  heapinspect_set_type (&stack_value, "not a block");   /* ignored */

  printf ("values %s %d %g\n", names, e[2].weight, p[1]->x);
  return 0;
}
