/* foreign.c - pointers the monitor did not hand out, passed to free,
   realloc and malloc_usable_size: counted as foreign, never a crash. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

extern void *__libc_malloc (size_t);
extern void *__libc_memalign (size_t, size_t);
extern void __libc_free (void *);

int
main (void)
{
  char *p = __libc_malloc (40);
  memset (p, 0, 40);
  free (p);                           /* foreign 1 */
  void *page = __libc_memalign (4096, 4096);
  free (page);                        /* foreign 2: page-aligned */
  char *r = __libc_malloc (100);
  memset (r, 'r', 100);
  r = realloc (r, 200);               /* foreign 3 */
  say ("realloc_kept_data: %d\n", r && r[99] == 'r');
  __libc_free (r);
  char *s = __libc_malloc (24);
  say ("usable_at_least_24: %d\n", malloc_usable_size (s) >= 24);
  __libc_free (s);
  if (chdir ("/") != 0)               /* the exit snapshot stays put */
    return 1;
  return 0;
}
