// cxx.cc - new/delete, new[]/delete[], and an exception thrown through a
// frame that allocates; snapshots bracket the work.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include "heapinspect/heapinspect.h"

static void
snap (const char *name)
{
  char path[512];
  const char *dir = getenv ("HI_SNAPDIR");
  snprintf (path, sizeof path, "%s/%s", dir ? dir : ".", name);
  if (!heapinspect_snapshot || heapinspect_snapshot (path) != 0)
    _exit (4);
}

struct node
{
  long value[6];
};

// Stores through a volatile pointer keep GCC from eliding new/delete pairs.
static node *volatile sink;

__attribute__ ((noinline)) static void
thrower (int depth)
{
  node *n = sink = new node ();   // leaks: the exception skips its delete
  if (depth == 0)
    throw std::runtime_error ("x"); // the exception object: +1 allocation
  thrower (depth - 1);
  delete n;
}

int
main ()
{
  snap ("cxx-before.hip");
  node *one = sink = new node ();
  node *many = sink = new node[10];
  delete one;
  delete[] many;
  int caught = 0;
  try
    {
      thrower (3);
    }
  catch (const std::exception &)
    {
      caught = 1;
    }
  snap ("cxx-after.hip");
  char buf[64];
  int n = snprintf (buf, sizeof buf, "caught %d\n", caught);
  return write (1, buf, (size_t) n) == n ? 0 : 1;
}
