// leak-stale-cxx.cc - the newcomer review's program (M4): a std::string
// made with new and dropped; its only pointer left is a stale word of
// _M_construct's popped frame, which exit()'s frames cover.  memcheck:
// 32 bytes definitely lost, 201 indirectly lost (leak-live.exp, built
// at -O0 and -O2).
#include <string>

int
main ()
{
  new std::string (200, 'y');
  return 0;
}
