/* jit-own.c - a program with JIT code of its own: it registers an ELF
   image (the file named by argv[1], read into memory) with gdb's JIT
   interface through its own descriptor, then crashes so gdb stops.  The
   heap commands must leave gdb's view of that code alone. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct jit_code_entry
{
  struct jit_code_entry *next_entry, *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};

struct jit_descriptor
{
  uint32_t version, action_flag;
  struct jit_code_entry *relevant_entry, *first_entry;
};

struct jit_descriptor __jit_debug_descriptor = { 1, 0, NULL, NULL };

__attribute__ ((noinline)) void
__jit_debug_register_code (void)
{
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  FILE *f = fopen (argv[1], "rb");
  if (!f)
    return 1;
  static char image[1 << 20];
  size_t n = fread (image, 1, sizeof image, f);
  fclose (f);
  static struct jit_code_entry entry;
  entry.symfile_addr = image;
  entry.symfile_size = n;
  __jit_debug_descriptor.relevant_entry = &entry;
  __jit_debug_descriptor.first_entry = &entry;
  __jit_debug_descriptor.action_flag = 1;
  __jit_debug_register_code ();
  void *volatile p = malloc (77);     /* something for heap leaks */
  (void) p;
  *(volatile int *) (uintptr_t) (argc - 2) = 0;
  return 0;
}
