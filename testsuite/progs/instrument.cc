// instrument.cc - chains from -finstrument-functions: blocks kept by
// chains of several depths, one made after an exception thrown through
// instrumented frames was caught, one after a longjmp out of them, and
// one through a function not instrumented (qsort's comparator calls).
// Built with -finstrument-functions by the test.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>

#define NOINLINE __attribute__ ((noinline))

void *keep[64];
static int n_keep;

static NOINLINE void
leak (std::size_t n)
{
  keep[n_keep++] = std::malloc (n);
}

static NOINLINE void deep (int n) { if (n) deep (n - 1); else leak (24); }
static NOINLINE void middle () { deep (3); leak (40); }

static NOINLINE void
thrower (int n)
{
  if (!n)
    throw 7;
  thrower (n - 1);
  leak (1000);               // never reached
}

static NOINLINE void after_catch () { leak (56); }

static std::jmp_buf env;

static NOINLINE void
jumper (int n)
{
  if (!n)
    std::longjmp (env, 1);
  jumper (n - 1);
  leak (2000);               // never reached
}

static NOINLINE void after_jump () { leak (72); }

static NOINLINE int
compare (const void *a, const void *b)
{
  static int once;
  if (!once++)
    leak (88);               // called from qsort, not instrumented
  return *(const int *) a - *(const int *) b;
}

int
main ()
{
  middle ();
  try
    {
      thrower (4);
    }
  catch (int)
    {
    }
  after_catch ();
  if (!setjmp (env))
    jumper (4);
  after_jump ();
  int v[4] = { 3, 1, 2, 0 };
  std::qsort (v, 4, sizeof *v, compare);
  std::printf ("kept %d blocks, sorted %d %d\n", n_keep, v[0], v[3]);
  std::printf ("first %d\n", keep[0] != 0);
  return 0;
}
