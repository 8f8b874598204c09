/* attach.h - a monitor dlopen'd into a running program: its start and
   the redirection of the malloc family through the GOTs (attach.c). */
#ifndef HI_ATTACH_H
#define HI_ATTACH_H

#include "monitor.h"

/* malloc.c: the entry points by names of this library's own, bound
   here (the exported names, looked up from here, are glibc's when the
   monitor was dlopen'd). */
HI_HIDDEN void *hi_own_malloc (size_t);
HI_HIDDEN void hi_own_free (void *);
HI_HIDDEN void *hi_own_calloc (size_t, size_t);
HI_HIDDEN void *hi_own_realloc (void *, size_t);
HI_HIDDEN void *hi_own_reallocarray (void *, size_t, size_t);
HI_HIDDEN int hi_own_posix_memalign (void **, size_t, size_t);
HI_HIDDEN void *hi_own_aligned_alloc (size_t, size_t);
HI_HIDDEN void *hi_own_memalign (size_t, size_t);
HI_HIDDEN void *hi_own_valloc (size_t);
HI_HIDDEN void *hi_own_pvalloc (size_t);
HI_HIDDEN size_t hi_own_malloc_usable_size (void *);

/* malloc.c: the loader's code, whose calls go to glibc directly. */
extern HI_HIDDEN uintptr_t hi_loader_lo, hi_loader_size;

/* init.c: 1 if the process's malloc is this library's (preloaded, or
   linked before libc), so that it starts by itself. */
HI_HIDDEN int hi_interposing (void);
/* init.c: start a dormant monitor (dlopen'd, not started at load) in
   attach mode; 1 if it runs. */
HI_HIDDEN int hi_start_attached (void);
/* init.c: the snapshot's file name template, as HEAPINSPECT_OUTPUT
   gives it ("none": no snapshot at exit or on the signal). */
HI_HIDDEN void hi_set_output (const char *out);
/* init.c: HEAPINSPECT_ON_SIGNAL=snapshot's handlers of SIGTERM, SIGINT
   and SIGHUP: set where the program left the default (CATCH 1), or the
   default put back where they are still the monitor's (0: a detach,
   which leaves no handler of its own behind). */
HI_HIDDEN void hi_fatal_signals (int catch);

/* The attach's state in hi_state.attach: set by heapinspect_attach,
   read by the entry points. */
enum { HI_ATTACH_NONE, HI_ATTACH_ON, HI_ATTACH_DETACHED };

/* That state, for `heapinspect attach` to call (not in the public
   header): an earlier attach's monitor, detached, is attached again
   rather than read as a monitored program's. */
int heapinspect_attach_state (void);

#endif
