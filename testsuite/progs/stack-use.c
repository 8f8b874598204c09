/* stack-use.c - how much stack malloc uses on a coroutine's stack, where
   the monitor leaves unwinding to libgcc: at most libgcc's own use plus
   a little, not buffers for whole chains.  Prints "unwind N" (the stack
   _Unwind_Backtrace alone uses from the same point) and "malloc N". */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unwind.h>
#include "report.h"

#define STACK (256 * 1024)
#define PAINT 0xa5

static ucontext_t main_ctx, co_ctx;
static unsigned char *stack;
static uintptr_t mark;          /* the stack pointer at the measured call */
static void *volatile sink;
static size_t used_unwind, used_malloc;

static _Unwind_Reason_Code
count_frame (struct _Unwind_Context *ctx, void *arg)
{
  (void) ctx;
  return ++*(int *) arg < 64 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* Bytes below MARK written since the stack was painted. */
static size_t
used_below_mark (void)
{
  size_t i = 0;
  while (i < STACK && stack[i] == PAINT)
    i++;
  return mark - (uintptr_t) (stack + i);
}

__attribute__ ((noinline)) static void
call_unwind (void)
{
  int frames = 0;
  unsigned char here;
  mark = (uintptr_t) &here;
  _Unwind_Backtrace (count_frame, &frames);
}

__attribute__ ((noinline)) static void
call_malloc (void)
{
  unsigned char here;
  mark = (uintptr_t) &here;
  sink = malloc (48);
}

/* Each step runs on a freshly painted stack (main paints between). */
static void
co_main (void)
{
  call_unwind ();
  used_unwind = used_below_mark ();
  swapcontext (&co_ctx, &main_ctx);
  call_malloc ();       /* the first one records this new chain */
  swapcontext (&co_ctx, &main_ctx);
  call_malloc ();
  used_malloc = used_below_mark ();
  swapcontext (&co_ctx, &main_ctx);
}

int
main (void)
{
  /* Warm up on the main stack: symbol binding, libgcc's and the
     monitor's first-use work. */
  free (malloc (16));
  call_unwind ();
  stack = malloc (STACK);
  memset (stack, PAINT, STACK);
  getcontext (&co_ctx);
  co_ctx.uc_stack.ss_sp = stack;
  co_ctx.uc_stack.ss_size = STACK;
  co_ctx.uc_link = &main_ctx;
  makecontext (&co_ctx, co_main, 0);
  for (int step = 0; step < 3; step++)
    {
      swapcontext (&main_ctx, &co_ctx);
      memset (stack, PAINT, (size_t) (mark - (uintptr_t) stack) - 256);
    }
  say ("unwind %zu\nmalloc %zu\n", used_unwind, used_malloc);
  return 0;
}
