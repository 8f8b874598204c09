/* inject.h - calls of functions in a running process (inject.c), for
   heapinspect attach: every thread stopped, one made to call, all let
   go as they were. */
#ifndef HI_INJECT_H
#define HI_INJECT_H

#include <stddef.h>
#include <stdint.h>

struct hi_inject;

/* Stop every thread of process PID (ptrace seize and interrupt): 0 and
   *OUT, or -1 with one line in WHY (SIZE bytes) saying why not
   (ptrace not permitted, another tracer, no such process). */
int hi_inject_open (int pid, struct hi_inject **out, char *why,
                    size_t size);
/* Let the threads run for MS milliseconds and stop them again (a thread
   inside malloc gets out of it): 0, or -1 if none is left. */
int hi_inject_resume_briefly (struct hi_inject *ij, int ms);
/* Make the process call FN (TEXT, copied onto the calling thread's
   stack, or 0 when NULL; ARG2) on its main thread, the others stopped,
   within TIMEOUT_MS: its return value in *RET, the thread as it was.
   0, or -1 with WHY. */
int hi_inject_call (struct hi_inject *ij, uint64_t fn, const char *text,
                    uint64_t arg2, int timeout_ms, uint64_t *ret,
                    char *why, size_t size);
/* The NUL-terminated string at ADDR in the process, into BUF (SIZE
   bytes, cut): 0, or -1. */
int hi_inject_read_string (struct hi_inject *ij, uint64_t addr, char *buf,
                           size_t size);
/* Let every thread go, as it was (a signal held back delivered). */
void hi_inject_close (struct hi_inject *ij);

#endif
