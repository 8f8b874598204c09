/* hostile-names.c - a pool and a type whose names carry terminal escape
   sequences, for names.exp's check that they reach no output raw. */
#include <heapinspect/heapinspect.h>
#include <heapinspect/typed.h>
#include <stdlib.h>

static char pool_memory[4096];
static void *kept[2];

int
main (void)
{
  heapinspect_pool_create (pool_memory, "arena\033]0;pwned\007");
  heapinspect_alloc (pool_memory, pool_memory, 128);
  kept[0] = malloc (64);
  heapinspect_set_type (kept[0], "box\033[2J");
  kept[1] = malloc (32);
  return 0;
}
