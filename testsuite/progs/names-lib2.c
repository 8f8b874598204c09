/* names-lib2.c - a second library with a function named like one of
   names-lib.c's (names_copy): the tables must tell them apart. */
#include <stdlib.h>

volatile int names_sink2;

static __attribute__ ((noinline)) void *
names_copy (size_t n)
{
  void *p = malloc (n);
  names_sink2 += 1;
  return p;
}

void *
names_lib2_copy (size_t n)
{
  void *p = names_copy (n);
  names_sink2 += 2;
  return p;
}
