/* process.c - what the monitor records about its process when it starts:
   the command line and the clocks, for the report's summary (command,
   run time).  Runs inside the first allocation or the constructor, and
   in fork's child handler: no malloc, no stdio, errno kept. */
#include "tools.h"

void
hi_process_record (struct hi_process *p)
{
  hi_prim_clocks (&p->start_realtime_ns, &p->start_monotonic_ns);
  size_t len;
  /* The kernel's copy of the arguments as exec() passed them, before
     the program can rewrite its argv (setproctitle). */
  int r = hi_prim_read_file ("/proc/self/cmdline", p->cmdline,
                             sizeof p->cmdline, &len);
  p->flags = r > 0 ? HI_PROCESS_CMDLINE_CUT : 0;
  p->cmdline_len = (uint32_t) len;
}

/* The child's times are its own: its attached time starts with it. */
void
hi_process_forked (struct hi_process *p)
{
  hi_prim_clocks (&p->start_realtime_ns, &p->start_monotonic_ns);
  p->attached_ns = 0;
  p->period_monotonic_ns = p->start_monotonic_ns;
  if (p->flags & HI_PROCESS_DETACHED)
    {
      p->detached_realtime_ns = p->start_realtime_ns;
      p->detached_monotonic_ns = p->start_monotonic_ns;
    }
}

/* Called by heapinspect_attach and heapinspect_detach, which the
   injector calls with every thread stopped: a reader that stops the
   process too never sees half of it.  For one that does not (serve,
   --no-stop), the flags come last, after the times they vouch for. */
void
hi_process_attached (struct hi_process *p)
{
  int again = (p->flags & HI_PROCESS_ATTACHED) != 0;
  /* The first period begins with the record's clocks. */
  p->period_monotonic_ns = again ? hi_prim_monotonic_ns ()
                                 : p->start_monotonic_ns;
  __atomic_store_n (&p->flags, (p->flags & ~HI_PROCESS_DETACHED)
                               | HI_PROCESS_ATTACHED, __ATOMIC_RELEASE);
  p->detached_realtime_ns = p->detached_monotonic_ns = 0;
}

void
hi_process_detached (struct hi_process *p)
{
  uint64_t rt, mono;
  hi_prim_clocks (&rt, &mono);
  p->detached_realtime_ns = rt;
  p->detached_monotonic_ns = mono;
  if (mono > p->period_monotonic_ns)
    p->attached_ns += mono - p->period_monotonic_ns;
  __atomic_store_n (&p->flags, p->flags | HI_PROCESS_DETACHED,
                    __ATOMIC_RELEASE);
}
