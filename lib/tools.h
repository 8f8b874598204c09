/* tools.h - what the tools reading the monitor see of the process,
   set up and written from init.c: the process record (process.c),
   snapshots (snapshot.c), gdb's JIT registration (jit.c) and the stop
   for `heapinspect run --leak-check` (leakstop.c). */
#ifndef HI_TOOLS_H
#define HI_TOOLS_H

#include "monitor.h"

/* process.c: record the command line and the start time in P (at the
   monitor's start); restart P's clocks (in the child of a fork). */
HI_HIDDEN void hi_process_record (struct hi_process *p);
HI_HIDDEN void hi_process_forked (struct hi_process *p);
/* process.c: an attached monitor's periods (format 6): P attached from
   now (at its first attach too, after hi_process_record), or detached
   from now. */
HI_HIDDEN void hi_process_attached (struct hi_process *p);
HI_HIDDEN void hi_process_detached (struct hi_process *p);

/* snapshot.c: write a snapshot to the file PATH_TEMPLATE names (%p, %%);
   0, or -1 with errno set.  With WARN, the first failure in the process
   is reported on stderr (a snapshot nobody asked for by a call). */
HI_HIDDEN int hi_snapshot_write (const char *path_template, int warn);

/* jit.c: register the root with gdb's JIT interface. */
HI_HIDDEN void hi_jit_register (void);

/* leakstop.c: read HEAPINSPECT_LEAK_STOP (at start); stop for
   `heapinspect run --leak-check` (in the last exit handler). */
HI_HIDDEN void hi_leak_stop_configure (void);
HI_HIDDEN void hi_leak_stop_at_exit (void);

#endif
