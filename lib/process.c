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

/* The flag last, after the times it vouches for: a reader of the live
   process sees either period whole, or at worst a detach's times with
   the flag not yet set (the attached time then counts on). */
void
hi_process_attached (struct hi_process *p)
{
  int again = (p->flags & HI_PROCESS_ATTACHED) != 0;
  __atomic_store_n (&p->flags, p->flags & ~HI_PROCESS_DETACHED,
                    __ATOMIC_RELEASE);
  /* The first period begins with the record's clocks. */
  p->period_monotonic_ns = again ? hi_prim_monotonic_ns ()
                                 : p->start_monotonic_ns;
  p->detached_realtime_ns = p->detached_monotonic_ns = 0;
  __atomic_store_n (&p->flags, p->flags | HI_PROCESS_ATTACHED,
                    __ATOMIC_RELEASE);
}

void
hi_process_detached (struct hi_process *p)
{
  uint64_t rt, mono;
  hi_prim_clocks (&rt, &mono);
  if (mono > p->period_monotonic_ns)
    p->attached_ns += mono - p->period_monotonic_ns;
  p->detached_realtime_ns = rt;
  p->detached_monotonic_ns = mono;
  __atomic_store_n (&p->flags, p->flags | HI_PROCESS_DETACHED,
                    __ATOMIC_RELEASE);
}
