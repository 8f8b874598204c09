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
  make ();
  return 0;
}
