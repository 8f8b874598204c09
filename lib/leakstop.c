/* leakstop.c - the monitor's part of `heapinspect run --leak-check`: the
   stop at the end of the exit handlers (see leak-stop.h). */
#include "leak-stop.h"
#include "monitor.h"
#include "prim.h"

static int stop_fd = -1;
static long stop_pid;
static uint64_t stop_identity;   /* the pipe's, seen at start */

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
  stop_identity = hi_prim_fd_identity ((int) fd);
  if (!stop_identity)
    return;
  stop_fd = (int) fd;
  stop_pid = pid;
}

void
hi_leak_stop_at_exit (void)
{
  /* Only the process heapinspect started: not a child of its fork,
     which inherits the variable and the descriptor. */
  if (stop_fd < 0 || (uint64_t) stop_pid != hi_prim_pid ())
    return;
  int fd = stop_fd;
  stop_fd = -1;
  hi_prim_stop_for_tracer (fd, stop_identity, HI_LEAK_STOP_VALUE);
}
