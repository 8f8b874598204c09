/* svg-names.c - a chain through a function whose symbol is full of
   markup, &"'<&"'>, for svg.exp: the flame graph must stay well-formed.
   GCC cannot call such a symbol ('\'' ends gas's expression), so the
   function is written in assembly under two names: the hostile one,
   global, which the symbolizer shows, and a local .L label the C code
   calls. */
#include <stdlib.h>

void *volatile svg_sink;
extern void hostile (size_t n) __asm__ (".Lsvg_hostile");

#if defined __x86_64__
__asm__ (".text\n"
         ".p2align 4\n"
         ".globl \"svg&\\\"'<&\\\"'>name\"\n"
         ".type \"svg&\\\"'<&\\\"'>name\", @function\n"
         "\"svg&\\\"'<&\\\"'>name\":\n"
         ".Lsvg_hostile:\n"
         ".cfi_startproc\n"
         "subq $8, %rsp\n"
         ".cfi_def_cfa_offset 16\n"
         "call malloc@PLT\n"
         "movq %rax, svg_sink(%rip)\n"
         "addq $8, %rsp\n"
         ".cfi_def_cfa_offset 8\n"
         "ret\n"
         ".cfi_endproc\n"
         ".size \"svg&\\\"'<&\\\"'>name\", .-.Lsvg_hostile\n");
#else
#error "svg-names.c: the hostile symbol is written for x86-64"
#endif

__attribute__ ((noinline)) static void
plain_caller (void)
{
  hostile (1000);
  hostile (1000);
  __asm__ volatile ("" ::: "memory");
}

int
main (void)
{
  plain_caller ();
  return 0;
}
