/* coroutine.c - allocations on a stack of the program's own (makecontext/
   swapcontext): the monitor must not trust the thread's stack bounds
   there, and never crash. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <ucontext.h>
#include "report.h"

static ucontext_t main_ctx, co_ctx;
static void *volatile sink[8];

__attribute__ ((noinline)) static void
co_allocate (void)
{
  for (int i = 0; i < 8; i++)
    sink[i] = malloc (40 + (size_t) i);
}

static void
co_main (void)
{
  co_allocate ();
  swapcontext (&co_ctx, &main_ctx);
}

int
main (void)
{
  size_t size = 256 * 1024;
  char *stack = malloc (size);
  getcontext (&co_ctx);
  co_ctx.uc_stack.ss_sp = stack;
  co_ctx.uc_stack.ss_size = size;
  co_ctx.uc_link = &main_ctx;
  makecontext (&co_ctx, co_main, 0);
  snap ("co-before.hip");
  swapcontext (&main_ctx, &co_ctx);
  snap ("co-after.hip");
  say ("done\n");
  return 0;
}
