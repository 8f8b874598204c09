/* nocfi.c - code no unwinder can walk: built by the test without unwind
   tables or frame pointers (and with -finstrument-functions), so only
   the shadow stack knows the chain main > first > second > third. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__ ((noinline))

void *kept;

NOINLINE void third (int n) { kept = malloc ((size_t) n); }
NOINLINE void second (int n) { third (n + 1); }
NOINLINE void first (int n) { second (n + 1); }

int
main (void)
{
  first (40);
  printf ("kept %p\n", kept != NULL ? (void *) 1 : NULL);
  return 0;
}
