/* leak-stop.h - the exit stop of `heapinspect run --leak-check`, and who
   reports heap errors under `heapinspect run`, shared by the monitor and
   heapinspect(1).

   heapinspect, the program's tracer, sets HEAPINSPECT_LEAK_STOP=FD:PID
   in the program's environment, FD the read end of a pipe whose write
   end heapinspect holds.  In process PID only, the monitor's last exit
   handler (after every other handler and destructor, the program's
   globals still whole) sends SIGTRAP to the process's main thread with
   rt_tgsigqueueinfo, si_code SI_QUEUE and si_value HI_LEAK_STOP_VALUE,
   then waits on FD.  heapinspect sees that signal's stop of the main
   thread, writes one byte to the pipe, stops the other threads, scans
   the process for leaks, lets the threads go without the signal and
   closes its end: the exit goes on.  The wait is what holds a thread
   other than the main one that calls exit(): until end of file once the
   byte came, else 2 s (the main thread blocks SIGTRAP or has ended, and
   heapinspect scans at the exit stop instead); heapinspect's end closing
   (it ended, or saw the main thread exit first) lets it go whatever
   happens. */
#ifndef HI_LEAK_STOP_H
#define HI_LEAK_STOP_H

#include <stdint.h>

#define HI_LEAK_STOP_ENV "HEAPINSPECT_LEAK_STOP"

/* Heap errors under `heapinspect run`: heapinspect sets
   HEAPINSPECT_RUN_REPORTS=PID (the program's pid) in the program's
   environment while it traces it, since then it reads the program at
   its end and its report leads with the heap errors, every frame named
   with its file and line.  In process PID only (not a child of its
   fork, which run does not read), the monitor then writes just the
   first line of each error's report when it finds it, not the frames
   (addresses, the names only the dynamic symbol tables give): one
   report per error, the named one (libheapinspect(7)). */
#define HI_RUN_REPORTS_ENV "HEAPINSPECT_RUN_REPORTS"
/* "HILEAK\0\1": the value that tells the stop from any other SIGTRAP. */
#define HI_LEAK_STOP_VALUE 0x01004b41454c4948ull

/* Where the exiting thread's program state ends, for the scan at the
   stop: the monitor's data symbol HI_EXIT_STOP_SYMBOL, a struct
   hi_exit_stop.  Right before the stop, the thread that called exit()
   finds exit()'s frame with the unwinder and fills it in; it zeroes
   magic once it goes on, so the record is set only while that thread
   waits at the stop (a core or a process read at any other moment sees
   0 and is scanned as always).

   Below the CFA of exit()'s frame the thread's stack holds exit()'s own
   frames (exit, __run_exit_handlers, the monitor's handler): they hold
   no pointer of the program's, but, where they never wrote, stale words
   of the program's popped frames (a callee of main that allocated).
   valgrind memcheck does not see those (memory below the stack pointer
   becomes undefined as frames pop, and it scans only defined words), so
   the scan starts that thread's stack at CFA, and takes REGS, the
   registers exit()'s caller had kept across the call, as roots instead
   of the copies exit()'s frames saved.  All of the program's frames,
   exit()'s caller's and up, stay roots: exit() called deep in the
   program is scanned exactly. */
#define HI_EXIT_STOP_SYMBOL "heapinspect_exit_stop"
/* "HIEXITST" */
#define HI_EXIT_STOP_MAGIC 0x5453544958454948ull
#define HI_EXIT_STOP_REGS 6u

struct hi_exit_stop
{
  uint64_t magic;      /* HI_EXIT_STOP_MAGIC while set, else 0 */
  uint64_t tid;        /* the thread that called exit() */
  uint64_t cfa;        /* the CFA of exit()'s frame: its caller's stack
                          pointer at the call */
  uint64_t n_regs;     /* HI_EXIT_STOP_REGS, or 0 if the caller's frame
                          could not be unwound */
  uint64_t regs[HI_EXIT_STOP_REGS]; /* the caller's rbx, rbp, r12, r13,
                                       r14, r15 at the call */
};

#endif
