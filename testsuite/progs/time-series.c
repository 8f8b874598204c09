/* time-series.c - a single-threaded program with known phases, for the
   timeline's tests (timeline.exp): phase A allocates and frees A_N blocks
   of A_SIZE bytes one at a time, phase B allocates B_N of B_SIZE (the
   peak), then half of B is freed, phase C allocates C_N of C_SIZE.  It
   says what it did on standard output with write(2) alone, so that no
   stdio buffer joins the heap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { A_N = 1000, A_SIZE = 100, B_N = 500, B_SIZE = 2000, C_N = 300,
       C_SIZE = 50 };

static void *b_blocks[B_N];
static void *c_blocks[C_N];
static void *volatile sink;

static void
say (const char *phase, int n, int size, const char *what)
{
  char line[128];
  int len = snprintf (line, sizeof line, "%s: %d x %d %s\n", phase, n, size,
                      what);
  if (write (STDOUT_FILENO, line, (size_t) len) != len)
    exit (1);
}

__attribute__ ((noinline)) static void
phase_a (void)
{
  for (int i = 0; i < A_N; i++)
    {
      char *p = malloc (A_SIZE);
      if (!p)
        exit (1);
      memset (p, i, A_SIZE);
      sink = p;
      free (p);
    }
  say ("A", A_N, A_SIZE, "allocated and freed");
}

__attribute__ ((noinline)) static void
phase_b (void)
{
  for (int i = 0; i < B_N; i++)
    if (!(b_blocks[i] = malloc (B_SIZE)))
      exit (1);
  say ("B", B_N, B_SIZE, "allocated");
}

__attribute__ ((noinline)) static void
phase_b_free (void)
{
  for (int i = 0; i < B_N / 2; i++)
    free (b_blocks[i]);
  say ("B", B_N / 2, B_SIZE, "freed");
}

__attribute__ ((noinline)) static void
phase_c (void)
{
  for (int i = 0; i < C_N; i++)
    if (!(c_blocks[i] = malloc (C_SIZE)))
      exit (1);
  say ("C", C_N, C_SIZE, "allocated");
}

int
main (void)
{
  phase_a ();
  phase_b ();
  phase_b_free ();
  phase_c ();
  return 0;
}
