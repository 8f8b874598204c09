/* leak-stop.h - the exit stop of `heapinspect run --leak-check`, shared
   by the monitor and heapinspect(1).

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

#define HI_LEAK_STOP_ENV "HEAPINSPECT_LEAK_STOP"
/* "HILEAK\0\1": the value that tells the stop from any other SIGTRAP. */
#define HI_LEAK_STOP_VALUE 0x01004b41454c4948ull

#endif
