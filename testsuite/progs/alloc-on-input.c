/* alloc-on-input.c - allocates only when asked: after one large block
   (freed, so the peak stays above anything later), each line on standard
   input makes it allocate and free 64 bytes and answer "done N".  Live
   bytes and the peak are the same after each line; only the per-thread
   counts move.  For nostop.exp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
say (const char *what, long n)
{
  char buf[64];
  int len = snprintf (buf, sizeof buf, "%s %ld\n", what, n);
  if (write (1, buf, (size_t) len) != len)
    exit (1);
}

int
main (void)
{
  char *volatile big = malloc (1 << 20);   /* volatile: not optimized out */
  memset (big, 1, 1 << 20);
  free (big);
  say ("ready", 0);
  char c;
  long n = 0;
  while (read (0, &c, 1) == 1)
    if (c == '\n')
      {
        void *volatile p = malloc (64);
        free (p);
        say ("done", ++n);
      }
  return 0;
}
