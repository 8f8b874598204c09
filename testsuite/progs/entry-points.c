/* entry-points.c - every malloc-family entry point once, with edge cases;
   the expected totals are worked out in entry-points.exp. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static void
check (int ok, const char *what)
{
  say ("%s: %s\n", ok ? "ok" : "FAILED", what);
}

static int
aligned (void *p, uintptr_t a)
{
  return p && ((uintptr_t) p & (a - 1)) == 0;
}

static int
all_zero (const unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return 0;
  return 1;
}

int
main (void)
{
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  /* Hidden from the compiler, which would fold realloc (NULL, n) into
     malloc, drop free (NULL) and reject huge sizes at compile time. */
  volatile size_t huge = SIZE_MAX;
  void *volatile null = NULL;
  char *p1 = malloc (100);
  memset (p1, 'a', 100);
  char *p2 = calloc (10, 10);
  check (p2 && all_zero ((unsigned char *) p2, 100), "calloc zeroes");
  char *p3 = realloc (p1, 1000);
  check (p3 && p3[0] == 'a' && p3[99] == 'a', "realloc growth keeps data");
  p3 = realloc (p3, 10);
  check (p3 && p3[9] == 'a', "realloc shrink keeps data");
  char *p4 = realloc (null, 50);
  check (p4 != NULL, "realloc (NULL, 50)");
  check (realloc (p4, 0) == NULL, "realloc (p, 0) frees and returns NULL");
  free (null);
  errno = 0;
  check (calloc (huge / 2, 4) == NULL && errno == ENOMEM,
         "calloc overflow: NULL with ENOMEM");
  void *a16 = memalign (16, 33);
  check (aligned (a16, 16), "memalign 16");
  char *a64 = aligned_alloc (64, 192);
  check (aligned (a64, 64), "aligned_alloc 64");
  memset (a64, 'b', 192);
  void *a4k = NULL;
  check (posix_memalign (&a4k, 4096, 5000) == 0 && aligned (a4k, 4096),
         "posix_memalign 4096");
  check (posix_memalign (&a4k, 3, 10) == EINVAL, "posix_memalign EINVAL");
  void *v = valloc (100);
  check (aligned (v, page), "valloc page-aligned");
  void *pv = pvalloc (100);
  check (aligned (pv, page), "pvalloc page-aligned");
  long *ra = reallocarray (null, 7, 8);
  check (ra != NULL, "reallocarray (NULL, 7, 8)");
  ra = reallocarray (ra, 9, 8);
  errno = 0;
  check (ra && reallocarray (ra, huge, 2) == NULL && errno == ENOMEM,
         "reallocarray overflow: NULL with ENOMEM");
  check (malloc_usable_size (p2) >= 100 && malloc_usable_size (p3) >= 10
         && malloc_usable_size (a64) >= 192
         && malloc_usable_size (a4k) >= 5000
         && malloc_usable_size (pv) >= page,
         "malloc_usable_size >= requested");
  a64 = realloc (a64, 500);
  check (a64 && a64[0] == 'b' && a64[191] == 'b', "realloc of aligned block");
  free (p2);
  free (p3);
  free (a16);
  free (a64);
  free (a4k);     /* aligned blocks go back through plain free */
  free (v);
  free (pv);
  free (ra);
  void *keep = malloc (77);
  say ("kept %p\n", keep);
  return 0;
}
