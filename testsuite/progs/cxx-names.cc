// cxx-names.cc - allocations under std::map<std::string, std::vector<int>>
// through a class template of the program's own, for the short C++ names
// of the tables (and the full ones of --long-names); its stdio buffer and
// libstdc++'s emergency pool are the built-in suppressions' test.  Built with -fno-inline so
// the templates' functions are frames of their own.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace widgets
{
template <typename T> struct Store
{
  std::map<std::string, std::vector<T>> m;

  __attribute__ ((noinline)) void
  add (const std::string &key, T v)
  {
    m[key].push_back (v);
  }
};
}

// Never freed: every block below stays live at exit.
static widgets::Store<int> *store;

int
main ()
{
  store = new widgets::Store<int>;
  static const char *const keys[] = { "a key longer than fifteen bytes 0",
                                      "a key longer than fifteen bytes 1",
                                      "a key longer than fifteen bytes 2" };
  for (int i = 0; i < 12; i++)
    store->add (keys[i % 3], i);
  // Through stdio: its buffer is one of the built-in suppressions'.
  fputs ("done\n", stdout);
  return 0;
}
