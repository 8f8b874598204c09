/* attach-before.c - a program for heapinspect attach's blocks from
   before the attach (attach-before.exp).  Not started under the
   monitor, it allocates seven blocks: five it keeps (in `kept`) and two
   it loses (no pointer to them is left).  It prints "ready PID", then
   "kept U1 ... U5" and "lost L1 L2", each block's usable size as glibc's
   malloc_usable_size gives it, then reads lines from standard input: "a
   N" allocates N bytes and keeps the block, "m A N" allocates N bytes
   aligned to A (posix_memalign) and keeps it, "o" frees the oldest of the
   five, "u" prints glibc's mallinfo2() in-use bytes ("inuse B"), "p"
   prints "alive".  At the end of its input it prints "done" and exits
   0. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Not static: the compiler may not drop what only they keep. */
void *kept[5];
void *later[256];
int n_later, n_freed;

static const size_t kept_sizes[5] = { 24, 100, 1000, 5000, 200000 };

/* The two lost blocks: their pointers die with this frame. */
__attribute__ ((noinline)) static void
lose_two (size_t *l1, size_t *l2)
{
  void *volatile a = malloc (40);
  void *volatile b = malloc (70);
  memset (a, 0x11, 40);
  memset (b, 0x22, 70);
  *l1 = malloc_usable_size (a);
  *l2 = malloc_usable_size (b);
  a = b = NULL;
}

/* Overwrite the stack lose_two used, so no stale copy of its pointers
   is left there. */
__attribute__ ((noinline)) static void
scrub (void)
{
  volatile char junk[4096];
  for (size_t i = 0; i < sizeof junk; i++)
    junk[i] = 0;
}

int
main (void)
{
  static char in_buf[4096], out_buf[4096];
  setvbuf (stdin, in_buf, _IOFBF, sizeof in_buf);
  setvbuf (stdout, out_buf, _IOLBF, sizeof out_buf);
  size_t l1, l2;
  for (int i = 0; i < 5; i++)
    {
      kept[i] = malloc (kept_sizes[i]);
      memset (kept[i], 0, kept_sizes[i]);
      if (i == 1)
        lose_two (&l1, &l2);
    }
  scrub ();
  printf ("ready %d\n", (int) getpid ());
  printf ("kept");
  for (int i = 0; i < 5; i++)
    printf (" %zu", malloc_usable_size (kept[i]));
  printf ("\nlost %zu %zu\n", l1, l2);
  char line[128];
  while (fgets (line, sizeof line, stdin))
    {
      switch (line[0])
        {
        case 'a':
          if (n_later < 256)
            later[n_later++] = malloc (strtoul (line + 1, NULL, 10));
          break;
        case 'm':
          {
            char *end;
            size_t align = strtoul (line + 1, &end, 10);
            void *p = NULL;
            if (n_later < 256 && posix_memalign (&p, align,
                                                 strtoul (end, NULL, 10)) == 0)
              later[n_later++] = p;
          }
          break;
        case 'o':
          if (n_freed < 5)
            {
              free (kept[n_freed]);
              kept[n_freed++] = NULL;
            }
          break;
        case 'u':
          {
            struct mallinfo2 mi = mallinfo2 ();
            printf ("inuse %zu\n", mi.uordblks + mi.hblkhd);
          }
          break;
        case 'p':
          printf ("alive\n");
          break;
        }
    }
  printf ("done\n");
  return 0;
}
