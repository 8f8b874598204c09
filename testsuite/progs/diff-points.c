/* diff-points.c - a heap at two moments for `heapinspect diff`: snapshot
   point1.hip, known allocations and frees, snapshot point2.hip.  It
   prints "pid PID" first; before each snapshot, per chain of its own,
   "POINT PATH LIVE_BYTES LIVE_BLOCKS ALLOCS BYTES" (PATH as main>f>g;
   ALLOCS, BYTES: allocated so far), then "ready POINT"; after point2 it
   waits for its input to end (a core can be taken, or the process read,
   at that moment).
   Built twice (diff-points-pad: other flags, and code before the
   functions that moves their addresses) to show that chains match by
   name. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report.h"

#ifdef DIFF_PAD
/* The other build: unoptimized (the user's CFLAGS, -O2 by default, come
   after the program's own flags), and ... */
#pragma GCC optimize ("O0")
/* ... never called: 4 KiB of code that moves every function after it. */
__attribute__ ((used, noinline)) static void
pad (void)
{
  __asm__ volatile (".skip 4096");
}
#endif

struct chain
{
  const char *path;
  long live_bytes, live_blocks, allocs, bytes;
};

enum { KEEP, SHRINK, VANISH, GROW, FRESH, CHURN, TWICE_A, TWICE_B, NCHAINS };
static struct chain chains[NCHAINS] = {
  [KEEP] = { "main>keep" }, [SHRINK] = { "main>shrink" },
  [VANISH] = { "main>vanish" }, [GROW] = { "main>grow" },
  [FRESH] = { "main>fresh" }, [CHURN] = { "main>churn" },
  [TWICE_A] = { "main>twice_a>make" }, [TWICE_B] = { "main>twice_b>make" },
};

/* volatile: the compiler must not drop allocations nobody reads. */
static void *volatile kept[16], *volatile shrunk[32], *volatile vanished[16];
static void *volatile grown[16], *volatile fresh_b[16], *volatile twice[16];
static int n_twice;
static void *volatile sink;

/* Count an allocation of SIZE on chain C. */
static void
count (int c, long size)
{
  chains[c].live_bytes += size;
  chains[c].live_blocks++;
  chains[c].allocs++;
  chains[c].bytes += size;
}

static void
count_free (int c, long size)
{
  chains[c].live_bytes -= size;
  chains[c].live_blocks--;
}

__attribute__ ((noinline)) static void
keep (void)
{
  for (int i = 0; i < 10; i++)
    kept[i] = malloc (100);
  for (int i = 0; i < 10; i++)
    count (KEEP, 100);
}

__attribute__ ((noinline)) static void
shrink (int n)
{
  for (int i = 0; i < n; i++)
    shrunk[i] = malloc (200);
  for (int i = 0; i < n; i++)
    count (SHRINK, 200);
}

__attribute__ ((noinline)) static void
vanish (int n)
{
  for (int i = 0; i < n; i++)
    vanished[i] = malloc (300);
  for (int i = 0; i < n; i++)
    count (VANISH, 300);
}

__attribute__ ((noinline)) static void
grow (int from, int to)
{
  for (int i = from; i < to; i++)
    grown[i] = malloc (50);
  for (int i = from; i < to; i++)
    count (GROW, 50);
}

__attribute__ ((noinline)) static void
fresh (int n)
{
  for (int i = 0; i < n; i++)
    fresh_b[i] = malloc (1000);
  for (int i = 0; i < n; i++)
    count (FRESH, 1000);
}

__attribute__ ((noinline)) static void
churn (int n)
{
  for (int i = 0; i < n; i++)
    {
      sink = malloc (64);
      free (sink);
    }
  for (int i = 0; i < n; i++)
    {
      count (CHURN, 64);
      count_free (CHURN, 64);
    }
}

/* Two callers of one allocating function: two chains, one function. */
__attribute__ ((noinline)) static void *
make (void)
{
  return malloc (128);
}

__attribute__ ((noinline)) static void
twice_a (int n)
{
  for (int i = 0; i < n; i++)
    twice[n_twice++] = make ();
  for (int i = 0; i < n; i++)
    count (TWICE_A, 128);
}

__attribute__ ((noinline)) static void
twice_b (int n)
{
  for (int i = 0; i < n; i++)
    twice[n_twice++] = make ();
  for (int i = 0; i < n; i++)
    count (TWICE_B, 128);
}

static void
point (const char *name)
{
  for (int c = 0; c < NCHAINS; c++)
    say ("%s %s %ld %ld %ld %ld\n", name, chains[c].path,
         chains[c].live_bytes, chains[c].live_blocks, chains[c].allocs,
         chains[c].bytes);
  char file[64];
  snprintf (file, sizeof file, "%s.hip", name);
  snap (file);
  say ("ready %s\n", name);
}

int
main (void)
{
  say ("pid %d\n", (int) getpid ());
  keep ();
  shrink (20);
  vanish (8);
  grow (0, 4);
  twice_a (1);
  point ("point1");

  for (int i = 0; i < 5; i++)
    {
      free (shrunk[i]);
      count_free (SHRINK, 200);
    }
  for (int i = 0; i < 8; i++)
    {
      free (vanished[i]);
      count_free (VANISH, 300);
    }
  grow (4, 10);
  fresh (7);
  churn (12);
  twice_a (3);
  twice_b (2);
  point ("point2");

  /* Held at point2 until the input ends. */
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
