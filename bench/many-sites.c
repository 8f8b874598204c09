/* many-sites.c - a heap with many distinct allocation chains, for timing
   the reader: LEVELS levels of a 10-way switch, each case its own call
   site, so 10^LEVELS chains; PER blocks kept per chain.
   usage: many-sites [LEVELS [PER [wait]]]   (default 5 levels, 10 per) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void **keep;
static long kept;

/* The asm (and -fno-crossjumping) keep the compiler from merging the ten
   identical calls into one call site. */
#define CALL(k) \
  case k: \
    __asm__ volatile ("nop # case " #k); \
    level (depth - 1, n / 10, id, per); \
    break;

__attribute__ ((noinline)) static void
level (int depth, long n, long id, int per)
{
  if (depth == 0)
    {
      for (int i = 0; i < per; i++)
        keep[kept++] = malloc (16 + (size_t) (id % 1000));
      return;
    }
  switch (n % 10)
    {
      CALL (0) CALL (1) CALL (2) CALL (3) CALL (4)
      CALL (5) CALL (6) CALL (7) CALL (8) CALL (9)
    }
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  int levels = argc > 1 ? atoi (argv[1]) : 5;
  int per = argc > 2 ? atoi (argv[2]) : 10;
  long chains = 1;
  for (int i = 0; i < levels; i++)
    chains *= 10;
  keep = malloc ((size_t) (chains * per) * sizeof *keep);
  for (long n = 0; n < chains; n++)
    level (levels, n, n, per);
  if (argc > 3 && strcmp (argv[3], "wait") == 0)
    {
      char c;
      while (read (0, &c, 1) > 0)
        ;
    }
  return 0;
}
