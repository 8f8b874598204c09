// typed.cc - the client API's types in C++: new, new[], types with
// commas, nothrow, placement new, a class's own operator new, a template
// for three types.  Prints what it allocated, for the test to compare.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>

struct Foo { int a, b, c; };
struct Bar { double d[5]; };
struct Dtor { long v; ~Dtor () { v = 0; } };

// Declared before the macro: operator new is a declaration, not a new.
struct Baz
{
  char x[40];
  static void *operator new (std::size_t n) { return std::malloc (n); }
  static void operator delete (void *p) { std::free (p); }
};

template <class T> struct Box { T v; int tag; };

#ifdef TYPED
# define HEAPINSPECT_TYPED_NEW 1
#endif
#include <heapinspect/typed.h>

#if __cplusplus >= 202002L
// A new in a constant expression compiles and stays constant.
constexpr int
constant_new ()
{
  int *p = new int (42);
  int v = *p;
  delete p;
  return v;
}
static_assert (constant_new () == 42, "constexpr new");
#endif

template <class T>
static Box<T> *
make_box ()
{
  return new Box<T> ();
}

// "expect NAME ALLOCS BYTES LIVE_BLOCKS LIVE_BYTES"
static void
expect (const char *name, unsigned long allocs, unsigned long bytes,
        unsigned long live, unsigned long live_bytes)
{
  std::printf ("expect %s %lu %lu %lu %lu\n", name, allocs, bytes, live,
               live_bytes);
}

int
main ()
{
  Foo *f1 = new Foo;
  Foo *f2 = new Foo ();
  Foo *fa = new Foo[7];
  delete f2;
  expect ("Foo", 3, 2 * sizeof (Foo) + 7 * sizeof (Foo), 2,
          sizeof (Foo) + 7 * sizeof (Foo));

  std::pair<int, int> *p = new std::pair<int, int> (3, 4);
  expect ("std::pair<int, int>", 1, sizeof *p, 1, sizeof *p);

  Bar *b = new (std::nothrow) Bar;
  expect ("Bar", 1, sizeof (Bar), 0, 0);
  delete b;

  Dtor *da = new Dtor[3];
  expect ("Dtor", 1, sizeof (std::size_t) + 3 * sizeof (Dtor), 1,
          sizeof (std::size_t) + 3 * sizeof (Dtor));

  alignas (16) char buf[sizeof (Foo) + 16];
  Foo *placed = new (buf) Foo;     // placement: no allocation

  Baz *z = new Baz;
  expect ("Baz", 1, sizeof (Baz), 1, sizeof (Baz));

  Box<int> *bi = make_box<int> ();
  Box<double> *bd = make_box<double> ();
  Box<char> *bc1 = make_box<char> ();
  Box<char> *bc2 = make_box<char> ();
  delete bd;
  expect ("Box<int>", 1, sizeof (Box<int>), 1, sizeof (Box<int>));
  expect ("Box<double>", 1, sizeof (Box<double>), 0, 0);
  expect ("Box<char>", 2, 2 * sizeof (Box<char>), 2,
          2 * sizeof (Box<char>));

  // The program's own results, the same with and without the header.
  std::printf ("values %d %d %d %d %d\n", p->first, p->second,
               placed->a = 5, bi->v, (int) sizeof (Box<char>));
  (void) f1; (void) fa; (void) da; (void) z; (void) bc1; (void) bc2;
  return 0;
}
