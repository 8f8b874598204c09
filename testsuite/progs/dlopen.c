/* dlopen.c - dlopen a library, allocate from it, dlclose it; snapshots
   bracket the library's allocations and show the module list. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "report.h"

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  void *h = dlopen (argv[1], RTLD_NOW);
  if (!h)
    return 1;
  void **(*fn) (int) = (void **(*) (int)) dlsym (h, "dl_allocate");
  if (!fn)
    return 1;
  snap ("dlopen-before.hip");
  void **v = fn (12);
  snap ("dlopen-loaded.hip");
  for (int i = 0; i < 12; i++)
    free (v[i]);
  free (v);
  dlclose (h);
  snap ("dlopen-closed.hip");
  say ("done\n");
  return 0;
}
