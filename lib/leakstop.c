/* leakstop.c - the monitor's part of `heapinspect run --leak-check`: the
   stop at the end of the exit handlers (see leak-stop.h). */
#define _GNU_SOURCE
#include "tools.h"
#include "heapinspect/leak-stop.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unwind.h>

/* The record heapinspect reads at the stop (leak-stop.h). */
__attribute__ ((visibility ("default"))) volatile struct hi_exit_stop
  heapinspect_exit_stop;

void
hi_leak_stop_configure (void)
{
  const char *v = hi_prim_getenv (HI_LEAK_STOP_ENV);
  long fd = 0, pid = 0;
  if (!v || !*v)
    return;
  for (; *v >= '0' && *v <= '9' && fd < 1000000; v++)
    fd = fd * 10 + (*v - '0');
  if (*v++ != ':')
    return;
  for (; *v >= '0' && *v <= '9' && pid < 0x7fffffffL; v++)
    pid = pid * 10 + (*v - '0');
  if (*v || pid <= 0)
    return;
  hi_state.leak_stop.identity = hi_prim_fd_identity ((int) fd);
  if (!hi_state.leak_stop.identity)
    return;
  hi_state.leak_stop.fd = (int) fd;
  hi_state.leak_stop.pid = pid;
}

#if defined(__x86_64__)
/* DWARF numbers of the registers a callee keeps (the SysV ABI's
   callee-saved ones): rbx, rbp, r12 ... r15. */
static const int kept_regs[HI_EXIT_STOP_REGS] = { 3, 6, 12, 13, 14, 15 };

struct find_exit
{
  int found;                   /* 1: exit()'s frame seen, 2: its caller's */
  uint64_t cfa;
  uint64_t regs[HI_EXIT_STOP_REGS];
  int frames;
};

/* Whether IP (a return address) is in the function exit().  The
   unwinder's region start names the function even where the call is
   its last instruction (exit's to the noreturn __run_exit_handlers):
   then IP is the next function's first byte. */
static int
in_exit (struct _Unwind_Context *ctx)
{
  uintptr_t start = _Unwind_GetRegionStart (ctx);
  Dl_info info;
  const ElfW (Sym) *sym = NULL;
  return start && dladdr1 ((void *) start, &info, (void **) &sym,
                           RTLD_DL_SYMENT)
         && info.dli_sname && info.dli_saddr == (void *) start
         && strcmp (info.dli_sname, "exit") == 0;
}

static _Unwind_Reason_Code
find_exit_frame (struct _Unwind_Context *ctx, void *arg)
{
  struct find_exit *f = arg;
  if (_Unwind_GetIP (ctx) == 0 || ++f->frames > 64)
    return _URC_END_OF_STACK;
  if (f->found)
    {
      /* exit()'s caller, as it was at the call. */
      for (unsigned i = 0; i < HI_EXIT_STOP_REGS; i++)
        f->regs[i] = _Unwind_GetGR (ctx, kept_regs[i]);
      f->found = 2;
      return _URC_END_OF_STACK;
    }
  if (in_exit (ctx))
    {
      f->cfa = _Unwind_GetCFA (ctx);
      f->found = 1;
    }
  return _URC_NO_REASON;
}

/* Fill heapinspect_exit_stop for this thread, if it is in exit(). */
static void
record_exit_frame (void)
{
  if (!atomic_load_explicit (&hi_unwind_ready, memory_order_relaxed))
    return;
  struct find_exit f;
  memset (&f, 0, sizeof f);
  _Unwind_Backtrace (find_exit_frame, &f);
  if (!f.found)
    return;
  heapinspect_exit_stop.tid = hi_prim_tid ();
  heapinspect_exit_stop.cfa = f.cfa;
  heapinspect_exit_stop.n_regs = f.found == 2 ? HI_EXIT_STOP_REGS : 0;
  for (unsigned i = 0; i < HI_EXIT_STOP_REGS; i++)
    heapinspect_exit_stop.regs[i] = f.regs[i];
  heapinspect_exit_stop.magic = HI_EXIT_STOP_MAGIC;
}
#else
static void
record_exit_frame (void)
{
}
#endif

void
hi_leak_stop_at_exit (void)
{
  /* Only the process heapinspect started: not a child of its fork,
     which inherits the variable and the descriptor. */
  struct hi_leak_stop *ls = &hi_state.leak_stop;
  if (ls->fd < 0 || (uint64_t) ls->pid != hi_prim_pid ())
    return;
  int fd = ls->fd;
  ls->fd = -1;
  record_exit_frame ();
  uint64_t from = hi_prim_monotonic_ns ();
  hi_prim_stop_for_tracer (fd, ls->identity, HI_LEAK_STOP_VALUE);
  /* The program did nothing meanwhile: its run time stops here, and the
     exit snapshot, written next, says so (snapshot.c). */
  uint64_t to = hi_prim_monotonic_ns ();
  ls->held_ns = to > from ? to - from : 0;
  /* The registers may be the program's pointers: the monitor's memory
     keeps none once the stop is over. */
  heapinspect_exit_stop.magic = 0;
  for (unsigned i = 0; i < HI_EXIT_STOP_REGS; i++)
    heapinspect_exit_stop.regs[i] = 0;
}
