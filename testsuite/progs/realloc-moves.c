/* realloc-moves.c - blocks that realloc moves, for the leak scan's count
   of live blocks (heapinspect.cli/realloc-scan.exp, issue 25).  By its
   first argument:
     one      p = malloc (2000); a = malloc (2000); b = malloc (2000);
              free (p); c = realloc (a, 4000): glibc moves a and merges
              its chunk into p's free one; c and b kept in globals.
              Prints "old A" (a's address).
     small    a = malloc (100); b = malloc (100); c = realloc (a, 4000):
              a moves and its chunk goes to glibc's tcache; c and b kept.
              Prints "old A".
     threads  8 threads, each 4000 random mallocs, frees and reallocs
              (sizes 1 to 3000, a fixed seed per thread) on 64 slots of
              its own in a global table, joined; every block left is in
              the table.
   Then, in any order:
     forge    (one, small; under the monitor only) puts a's header back
              after the realloc, as the monitor before issue 25 left it
              (valid for its address): a stale header for the reader to
              refuse.
     wait     prints "ready" and waits until its input ends.
   Nothing goes through stdio: its buffer would be one more block. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 8
#define SLOTS 64
#define OPS 4000

void *keep_c, *keep_b;
void *slots[THREADS][SLOTS];

static void
say (const char *fmt, void *p)
{
  char buf[64];
  int n = snprintf (buf, sizeof buf, fmt, p);
  if (n > 0 && write (1, buf, (size_t) n) < 0)
    exit (2);
}

static uint64_t
next (uint64_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static void *
worker (void *arg)
{
  uintptr_t i = (uintptr_t) arg;
  uint64_t x = (i + 1) * UINT64_C(0x9E3779B97F4A7C15);
  for (int k = 0; k < OPS; k++)
    {
      uint64_t r = next (&x);
      void **s = &slots[i][r % SLOTS];
      size_t size = 1 + (size_t) ((r >> 16) % 3000);
      if (!*s)
        *s = malloc (size);
      else if ((r >> 8) % 3 == 0)
        {
          free (*s);
          *s = NULL;
        }
      else
        {
          void *q = realloc (*s, size);
          if (q)
            *s = q;
        }
      if (*s)
        memset (*s, (int) i, 1);
    }
  return NULL;
}

/* Move A with realloc to 4000 bytes (FORGE: and put its old header
   back); B stays after it so that it cannot grow in place. */
static void
move (char *a, char *b, int forge)
{
  unsigned char header[16];
  uintptr_t old = (uintptr_t) a;
  __asm__ ("" : "+r" (old));   /* an address now, no pointer to a */
  if (forge)
    memcpy (header, a - 16, sizeof header);
  char *c = realloc (a, 4000);
  if (forge)
    memcpy ((char *) old - 16, header, sizeof header);
  keep_c = c;
  keep_b = b;
  say ("old %p\n", (void *) old);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "one";
  int forge = 0, wait = 0;
  for (int k = 2; k < argc; k++)
    {
      forge |= strcmp (argv[k], "forge") == 0;
      wait |= strcmp (argv[k], "wait") == 0;
    }
  if (strcmp (mode, "one") == 0)
    {
      char *p = malloc (2000), *a = malloc (2000), *b = malloc (2000);
      __asm__ volatile ("" : : "r" (p) : "memory");   /* p is made */
      free (p);
      move (a, b, forge);
    }
  else if (strcmp (mode, "small") == 0)
    {
      char *a = malloc (100), *b = malloc (100);
      move (a, b, forge);
    }
  else if (strcmp (mode, "threads") == 0)
    {
      pthread_t t[THREADS];
      for (uintptr_t i = 0; i < THREADS; i++)
        if (pthread_create (&t[i], NULL, worker, (void *) i) != 0)
          return 2;
      for (int i = 0; i < THREADS; i++)
        pthread_join (t[i], NULL);
    }
  else
    return 2;
  if (wait)
    {
      char c;
      say ("ready\n", NULL);
      while (read (0, &c, 1) > 0)
        ;
    }
  return 0;
}
