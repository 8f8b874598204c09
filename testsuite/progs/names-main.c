/* names-main.c - allocations through names-lib.c's clones and aliases and
   through the two libraries' names_copy, each kept (a leak) with its own
   size so a test can find its row: isra 1001, part 1002, dup 6,
   constprop 1004, cold 48 (names_cold_note), lib copy 1005,
   lib2 copy 1006.  Prints "done". */
#include <stdio.h>
#include <stdlib.h>

void *names_lib_isra (size_t n);
void *names_lib_part (size_t n);
void *names_dup (const char *s);
void *names_lib_constprop (size_t n);
void *names_lib_cold (size_t n);
void *names_lib_copy (size_t n);
void *names_lib2_copy (size_t n);

void *names_kept[8];

int
main (void)
{
  names_kept[0] = names_lib_isra (1001);
  names_kept[1] = names_lib_part (1002);
  names_kept[2] = names_dup ("hello");
  names_kept[3] = names_lib_constprop (1003);
  names_kept[4] = names_lib_cold (10000);
  names_kept[5] = names_lib_copy (1005);
  names_kept[6] = names_lib2_copy (1006);
  puts ("done");
  return 0;
}
