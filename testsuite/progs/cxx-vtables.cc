// cxx-vtables.cc - polymorphic objects, some lost and some kept, for
// cxx-vtables.exp: the leak check without the monitor groups blocks by
// the class their first word's vtable names, and `block` names it
// through a pointer to the object and to its secondary base (multiple
// inheritance: Derived : A, B).  Lost: 3 Base, 4 Derived and one Big
// (the largest block); kept: 2 Base, 2 Derived (one only through a B
// pointer into it).  The program says each object's usable size and the
// kept ones' addresses, then aborts (a core); under valgrind it runs
// memcheck's leak check there instead.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

struct Base
{
  virtual ~Base () {}
  long b[3];
};

// Two virtual functions each: memcheck's multipleinheritance heuristic
// takes a vtable for one only if it starts with two code pointers.
struct A
{
  virtual void fa () {}
  virtual void ga () {}
  long a;
};

struct B
{
  virtual void fb () {}
  virtual void gb () {}
  long bb;
};

struct Derived : A, B
{
  long d[5];
};

struct Big : Base
{
  char buf[50000];
};

Base *kept_base[2];
Derived *kept_derived;
B *kept_b;                       // into a Derived: its B part
void *volatile sink;

enum { LOST_BASE = 3, LOST_DERIVED = 4 };

// Allocate the objects deep in the stack, out of the frames that run at
// the abort: no pointer to a lost one stays on the stack.
__attribute__ ((noinline)) static void
make (FILE *out)
{
  for (int i = 0; i < LOST_BASE; i++)
    sink = new Base ();
  for (int i = 0; i < LOST_DERIVED; i++)
    sink = new Derived ();
  Big *big = new Big ();
  std::fprintf (out, "big %p usable %zu\n", (void *) big,
                malloc_usable_size (big));
  sink = big;
  kept_base[0] = new Base ();
  kept_base[1] = new Base ();
  kept_derived = new Derived ();
  Derived *d = new Derived ();
  kept_b = d;
  std::fprintf (out, "base usable %zu\nderived usable %zu\n",
                malloc_usable_size (kept_base[0]),
                malloc_usable_size (kept_derived));
  std::fprintf (out, "derived %p secondary %p\n", (void *) d,
                (void *) kept_b);
  sink = nullptr;
}

__attribute__ ((noinline)) static void
deep (FILE *out)
{
  volatile char pad[16 << 10];
  pad[0] = 0;
  make (out);
  sink = (void *) (pad + 0);
  sink = nullptr;
}

int
main ()
{
  char text[512];
  FILE *out = fmemopen (text, sizeof text, "w");
  if (!out)
    return 1;
  deep (out);
  std::fclose (out);
  if (write (1, text, std::strlen (text)) < 0)
    return 1;
  if (RUNNING_ON_VALGRIND)
    {
      VALGRIND_DO_LEAK_CHECK;   // memcheck's classes at the same point
      _exit (0);
    }
  std::abort ();
}
