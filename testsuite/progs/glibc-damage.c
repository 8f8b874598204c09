/* glibc-damage.c - a heap damaged the three usual ways, for
   glibc-heap.exp's `verify`, then an abort before glibc looks (a core):
   `glibc-damage overflow` writes 8 bytes past a block, over the next
   chunk's size word; `double-free` frees a block twice, clearing the
   tcache key between (as a use after free would), so glibc's own check
   lets it in; `next` writes over a freed block's tcache link (an
   unaligned one); `next-last` writes 3 bytes over the link of the only
   block its tcache bin holds, as `free (b); memset (b, 'A', 3)` does
   (past the bin's count: malloc never follows it); `fast-next` does
   the same to the only chunk of a fastbin (its tcache bin full).  It
   prints
   the addresses involved: "victim ADDR" (the damaged chunk's user
   memory) and "before ADDR" (the block written past, for overflow).
   With a second argument go-on, glibc's mallocs go on instead (below). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile kept[16];

static void
say (const char *what, void *p)
{
  char line[64];
  int n = snprintf (line, sizeof line, "%s 0x%lx\n", what,
                    (unsigned long) (uintptr_t) p);
  if (write (1, line, (size_t) n) != n)
    exit (3);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "overflow";
  for (int i = 0; i < 16; i++)
    kept[i] = malloc (24);
  if (strcmp (mode, "overflow") == 0)
    {
      char *a = kept[4], *b = kept[5];
      memset (a, 'A', 24 + 8);          /* b's chunk size word */
      say ("before", a);
      say ("victim", b);
    }
  else if (strcmp (mode, "double-free") == 0)
    {
      /* Read back through a volatile: the compiler is not to see the
         use after free it is asked for. */
      volatile uintptr_t p = (uintptr_t) kept[7];
      free ((void *) p);
      ((uint64_t *) p)[1] = 0;          /* the tcache key */
      free ((void *) p);
      say ("victim", (void *) p);
    }
  else if (strcmp (mode, "next") == 0)
    {
      volatile uintptr_t p = (uintptr_t) kept[9];
      free (kept[10]);
      free ((void *) p);                /* the tcache: p, then q */
      /* A link to p + 24, encoded as glibc's PROTECT_PTR encodes it:
         a pointer 8 bytes off any chunk's alignment. */
      ((uint64_t *) p)[0] = (p >> 12) ^ (p + 24);
      say ("victim", (void *) p);
    }
  else if (strcmp (mode, "next-last") == 0)
    {
      volatile uintptr_t p = (uintptr_t) kept[11];
      free ((void *) p);                /* its bin's only chunk */
      /* Its link was PROTECT_PTR (p, NULL), p >> 12: with 'A's over its
         low 3 bytes it decodes to ((p >> 12) & 0xffffff) ^ 0x414141,
         unaligned unless p's page number ends in 1 (then 'B's). */
      memset ((void *) p, ((p >> 12) & 15) == 1 ? 'B' : 'A', 3);
      say ("victim", (void *) p);
    }
  else if (strcmp (mode, "fast-next") == 0)
    {
      volatile uintptr_t p = (uintptr_t) kept[15];
      for (int i = 0; i < 7; i++)       /* the tcache bin's 7 */
        free (kept[i]);
      free ((void *) p);                /* the fastbin's only chunk */
      memset ((void *) p, ((p >> 12) & 15) == 1 ? 'B' : 'A', 3);
      say ("victim", (void *) p);
    }
  else
    return 2;
  /* `glibc-damage MODE go-on`: glibc's own next mallocs of that size
     instead of the abort, for the words glibc says (on standard error,
     then its abort) if it meets the damage; exit 0 if it does not. */
  if (argc > 2 && strcmp (argv[2], "go-on") == 0)
    {
      for (int i = 0; i < 16; i++)
        kept[i] = malloc (24);
      return 0;
    }
  abort ();
}
