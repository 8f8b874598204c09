/* twin-chains.c - a single-threaded program whose blocks come from two
   chains that differ only below the frames a row shows: main calls
   twin_alloc, which calls make_block from two lines, so both chains read
   "main > twin_alloc > make_block (twin-chains.c:N)" and fold to one
   line, "main;twin_alloc;make_block".  It allocates a block of N * SIZE
   bytes, then N blocks of SIZE bytes, alternating the two calls, then
   frees every one, the big one last (as jq frees its 16.2M last), so
   nothing is live at exit and massif's last snapshot is the empty heap
   (the free moves its time past its snapshot interval).  It says what it
   did on standard output with write(2) alone: no stdio buffer joins the
   heap.
   Usage: twin-chains [N SIZE] (default 1000 blocks of 1000 bytes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Distinct work after each call keeps the compiler from merging them. */
static volatile unsigned long odd, even;

__attribute__ ((noinline)) static void *
make_block (size_t size)
{
  void *p = malloc (size);                      /* @make_block */
  if (!p)
    exit (1);
  return p;
}

/* Block I of SIZE bytes, from one call or the other as I is odd. */
__attribute__ ((noinline)) static void *
twin_alloc (size_t size, int i)
{
  void *p;
  if (i % 2)
    {
      p = make_block (size);                    /* @twin_odd */
      odd++;
    }
  else
    {
      p = make_block (size);                    /* @twin_even */
      even++;
    }
  return p;
}

static void
say (const char *key, unsigned long v)
{
  char line[96];
  int len = snprintf (line, sizeof line, "%s: %lu\n", key, v);
  if (write (STDOUT_FILENO, line, (size_t) len) != len)
    exit (1);
}

int
main (int argc, char **argv)
{
  unsigned long n = argc > 2 ? strtoul (argv[1], NULL, 10) : 1000;
  unsigned long size = argc > 2 ? strtoul (argv[2], NULL, 10) : 1000;
  if (n == 0 || size == 0 || n > SIZE_MAX / size)
    return 2;
  char *big = malloc (n * size);                /* @big */
  void **blocks = malloc (n * sizeof *blocks);  /* @blocks */
  if (!big || !blocks)
    return 2;
  memset (big, 1, n * size);
  for (unsigned long i = 0; i < n; i++)
    {
      blocks[i] = twin_alloc (size, (int) (i % 2));
      memset (blocks[i], (int) i, size);
    }
  say ("blocks", n);
  say ("size", size);
  say ("peak", 2 * n * size + n * sizeof *blocks);
  for (unsigned long i = 0; i < n; i++)
    free (blocks[i]);
  free (blocks);
  free (big);
  say ("freed", n);
  return 0;
}
