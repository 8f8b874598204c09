/* heapinspect.h - the client API of libheapinspect, the heap monitor. */
#ifndef HEAPINSPECT_H
#define HEAPINSPECT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Write a snapshot of the monitor's data (root, arenas, module list) to
   PATH, or, when PATH is NULL, to the file named by HEAPINSPECT_OUTPUT
   (default "heapinspect.%p.hip", %p the pid).  The file is written to a
   temporary name and renamed, never following a symbolic link, mode 0600.
   Returns 0 on success, -1 with errno set on failure (EINVAL for an
   invalid or too long name, or HEAPINSPECT_OUTPUT=none with PATH NULL).
   Thread-safe; other threads' allocations in flight may or may not be
   included.  Not async-signal-safe (it refreshes the module list with
   dl_iterate_phdr): from a signal handler, use HEAPINSPECT_SIGNAL.  Weak: a program may call it whether or not the monitor is
   loaded (check the address first when it may be absent). */
int heapinspect_snapshot (const char *path) __attribute__ ((weak));

#ifdef __cplusplus
}
#endif

#endif /* HEAPINSPECT_H */
