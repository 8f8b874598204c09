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

void
hi_process_forked (struct hi_process *p)
{
  hi_prim_clocks (&p->start_realtime_ns, &p->start_monotonic_ns);
}
