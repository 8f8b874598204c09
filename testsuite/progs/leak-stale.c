/* leak-stale.c - a leak whose only pointer is a stale word of a popped
   frame, for `run --leak-check` at the exit stop (leak-live.exp): make()
   allocates a 32-byte pair and the 201 bytes it points to, and a callee
   copies the pair's address all over 4 KiB of its frame before both
   return; the pair is then dropped.  exit()'s own frames later cover
   that stack without writing all of it, as std::string's
   _M_construct's frame under main in `new std::string (200, 'y')`.
   memcheck (which scans only words written since the frames popped)
   says the pair is definitely lost and its data indirectly lost.  By
   its argument:
     return     main returns
     exit-deep  hold() keeps a 64-byte block in a live local (still
                reachable) and calls exit(0) itself
     redzone    also writes 3 bytes past the end of a 10-byte block it
                keeps in a global and never frees (and leaves a 20-byte
                one whole), prints "overflow ADDR 10 10" (the block,
                its size, the offset of the first byte written past
                it), then returns
   It prints "expect definite 32 1 indirect 201 1". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair
{
  char *data;
  char pad[24];
};

static __attribute__ ((noinline)) int
scribble (struct pair *p)
{
  volatile uintptr_t stale[512];
  for (int i = 0; i < 512; i++)
    stale[i] = (uintptr_t) p;
  return stale[511] != 0;
}

static __attribute__ ((noinline)) void
make (void)
{
  struct pair *p = malloc (sizeof *p);
  p->data = malloc (201);
  memset (p->data, 'y', 200);
  p->data[200] = '\0';
  if (!scribble (p))
    abort ();
}

char *overflowed, *whole;
static volatile size_t ten = 10;

static __attribute__ ((noinline)) void
overflow (void)
{
  overflowed = malloc (ten);
  whole = malloc (20);
  memset (whole, 'w', 20);
  for (size_t i = 0; i < ten + 3; i++)
    overflowed[i] = 'o';
  printf ("overflow %p %zu %zu\n", (void *) overflowed, (size_t) ten,
          (size_t) ten);
}

static __attribute__ ((noinline)) void
hold (void)
{
  void *volatile kept = malloc (64);
  make ();
  exit (kept != NULL ? 0 : 1);
}

int
main (int argc, char **argv)
{
  printf ("expect definite %zu 1 indirect 201 1\n", sizeof (struct pair));
  fflush (stdout);
  if (argc > 1 && strcmp (argv[1], "exit-deep") == 0)
    hold ();
  if (argc > 1 && strcmp (argv[1], "redzone") == 0)
    overflow ();
  make ();
  return 0;
}
