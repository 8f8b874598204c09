/* memo-rbp.c - a block whose only pointer is in rbp when the program
   calls malloc, then dropped: memo-roots.exp.  The monitor's unwinder
   keeps the registers of its last unwinds in a thread-local memo; were
   rbp kept as it is, the leak scan, which reads every thread's TLS as a
   root, would find the lost block reachable through the monitor. */
#include <stdint.h>
#include <stdlib.h>

static void *volatile keep;

__attribute__ ((noinline, optimize ("omit-frame-pointer"))) static void
lose (void)
{
  register uintptr_t v __asm__ ("rbp") = (uintptr_t) malloc (100);
  __asm__ volatile ("" : "+r" (v));
  keep = malloc (8);            /* the monitor unwinds with rbp = v */
  __asm__ volatile ("" : "+r" (v));
  v = 0;
  __asm__ volatile ("" : "+r" (v));
}

int
main (void)
{
  lose ();
  abort ();
}
