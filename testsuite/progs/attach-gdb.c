/* attach-gdb.c - a program for gdb's heap attach (heapinspect.gdb/
   attach.exp): one block before, then stop_here (where gdb attaches the
   monitor), then a designed set: make (1000), make (2000), strdup and
   its free, the free of the block from before; stop_here again. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__ ((noinline)) void
stop_here (void)
{
  __asm__ volatile ("");
}

__attribute__ ((noinline)) void *
make (size_t n)
{
  return malloc (n);
}

int
main (void)
{
  void *before = malloc (100);
  stop_here ();
  void *a = make (1000), *b = make (2000);
  char *s = strdup ("x");
  free (s);
  free (before);
  stop_here ();
  printf ("%p %p\n", a, b);
  return 0;
}
