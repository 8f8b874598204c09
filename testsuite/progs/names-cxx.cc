// names-cxx.cc - a C++ function GCC copies (an IPA-SRA clone, mangled
// name + ".isra.0", which the demangler shows as " [clone .isra.0]"): the
// tables must name it as written.  Keeps 2001 and 2002 bytes through it.
#include <cstdio>
#include <cstdlib>

struct names_req
{
  int pad[7];
  std::size_t size;
};

volatile int names_cxx_sink;
void *names_cxx_kept[2];

namespace names_ns
{
// Only r->size is used and the function is local: -O2 passes the size.
static __attribute__ ((noinline)) void *
cxx_isra (const names_req *r)
{
  void *p = std::malloc (r->size);
  names_cxx_sink += 1;
  return p;
}
}

int
main ()
{
  names_req a = { { 0 }, 2001 }, b = { { 1 }, 2002 };
  names_cxx_kept[0] = names_ns::cxx_isra (&a);
  names_cxx_kept[1] = names_ns::cxx_isra (&b);
  std::puts ("done");
  return 0;
}
