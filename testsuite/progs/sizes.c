/* sizes.c - one allocation through each allocating entry point, each of
   its own size, all kept live; for sizes.exp, which checks that every
   entry point records the size it was asked for (calloc and
   reallocarray: the product).  malloc_usable_size still reports the
   whole usable size: a page for pvalloc. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>
#include "report.h"

int
main (void)
{
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  void *volatile null = NULL;
  void *keep[12];
  int n = 0;
  keep[n++] = malloc (101);
  keep[n++] = calloc (3, 34);                 /* 102 */
  keep[n++] = realloc (null, 103);
  keep[n++] = reallocarray (null, 8, 13);     /* 104 */
  keep[n++] = memalign (64, 105);
  void *pm = NULL;
  if (posix_memalign (&pm, 128, 106) != 0)
    return 1;
  keep[n++] = pm;
  keep[n++] = aligned_alloc (256, 107);
  keep[n++] = valloc (108);
  keep[n++] = pvalloc (109);
  keep[n] = malloc (1);
  keep[n] = realloc (keep[n], 110);           /* frees the 1-byte block */
  n++;
  keep[n++] = pvalloc (0);
  for (int i = 0; i < n; i++)
    if (!keep[i])
      return 1;
  say ("%s: usable size of pvalloc (109) is a page\n",
       malloc_usable_size (keep[8]) >= page ? "ok" : "FAILED");
  say ("%s: usable size of pvalloc (0) is a page\n",
       malloc_usable_size (keep[10]) >= page ? "ok" : "FAILED");
  say ("%s: usable size of malloc (101) covers it\n",
       malloc_usable_size (keep[0]) >= 101 ? "ok" : "FAILED");
  return 0;
}
