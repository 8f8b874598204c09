/* attach-target.c - a program for heapinspect attach (attach.exp): its
   allocations after the attach are fixed by what it reads.  It makes
   five blocks, says "ready" with its pid, and reads lines from standard
   input: "a N" allocates N bytes (in alloc_one) and keeps the block,
   "c N" callocs N bytes, "r N" reallocs the last kept block to N bytes,
   "s" strdup's a word (glibc's own malloc call), "f" frees the last kept
   block, "o" frees one of the five made before (their oldest first),
   "p" prints "alive" and the sum of the kept blocks' bytes.  At the end
   of its input it prints "done" and exits 0. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *kept[1024];
static size_t kept_size[1024];
static int n_kept;

__attribute__ ((noinline)) static void *
alloc_one (size_t n)
{
  return malloc (n);
}

__attribute__ ((noinline)) static void *
zeroed_one (size_t n)
{
  return calloc (1, n);
}

int
main (void)
{
  /* Its input's buffer not allocated: had the attach come before the
     first fgets, its 4096 bytes would count. */
  static char in_buf[4096];
  setvbuf (stdin, in_buf, _IOFBF, sizeof in_buf);
  void *before[5];
  for (int i = 0; i < 5; i++)
    before[i] = malloc (1000 + (size_t) i);
  int n_before = 0;
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);
  char line[128];
  while (fgets (line, sizeof line, stdin))
    {
      size_t n = (size_t) strtoul (line + 1, NULL, 10);
      switch (line[0])
        {
        case 'a':
          kept_size[n_kept] = n;
          kept[n_kept++] = alloc_one (n);
          break;
        case 'c':
          kept_size[n_kept] = n;
          kept[n_kept++] = zeroed_one (n);
          break;
        case 'r':
          if (n_kept)
            {
              kept[n_kept - 1] = realloc (kept[n_kept - 1], n);
              kept_size[n_kept - 1] = n;
            }
          break;
        case 's':
          kept_size[n_kept] = 6;
          kept[n_kept++] = strdup ("hello");
          break;
        case 'f':
          if (n_kept)
            free (kept[--n_kept]);
          break;
        case 'o':
          if (n_before < 5)
            free (before[n_before++]);
          break;
        case 'p':
          {
            size_t sum = 0;
            for (int i = 0; i < n_kept; i++)
              sum += kept_size[i];
            printf ("alive %zu\n", sum);
            fflush (stdout);
          }
          break;
        }
    }
  printf ("done\n");
  return 0;
}
