/* prim.h - the monitor's only door to the OS: memory, locks, ids, env,
   files, signals, process hooks, stack unwinding.  Nothing else in lib/
   makes a system call.  What stays outside is the dynamic loader's own
   interface, which the monitor's job is about: the module list
   (dl_iterate_phdr, modules.c), unwind tables (_dl_find_object,
   unwind.c), the next malloc_usable_size (dlsym, malloc.c). */
#ifndef HI_PRIM_H
#define HI_PRIM_H

#include <stddef.h>
#include <stdint.h>

/* SIZE bytes of zeroed, readable and writable memory, committed as it is
   touched; NULL on failure. */
void *hi_prim_alloc (size_t size);
/* The same, for the monitor's own work: left out of core dumps. */
void *hi_prim_alloc_nodump (size_t size);
/* The start of the private region hi_prim_alloc_nodump hands out memory
   from (format.h, HI_PRIVATE_BYTES), reserved now if not yet; 0 if it
   cannot be. */
uint64_t hi_prim_private_base (void);
/* Reserve SIZE bytes of address space for later commits; NULL on
   failure.  Where it can, this maps nothing (prim-linux.c, the far
   area): the process's address space grows only as parts are
   committed.  Else an inaccessible mapping, left out of core dumps. */
void *hi_prim_reserve (size_t size);
/* Make [P, P + SIZE) of a reservation readable and writable (zeroed),
   and part of core dumps; P and SIZE page-aligned, each part committed
   once.  0, or -1. */
int hi_prim_commit (void *p, size_t size);
/* Give back memory from hi_prim_alloc or hi_prim_reserve. */
void hi_prim_release (void *p, size_t size);

/* A mutex that never allocates.  Not recursive. */
typedef struct { int word; } hi_lock;
void hi_lock_acquire (hi_lock *l);
int  hi_lock_try (hi_lock *l);      /* 1 if acquired */
void hi_lock_release (hi_lock *l);

/* An asymmetric barrier (membarrier(2)): after hi_prim_barrier_setup
   succeeds, hi_prim_barrier_all makes every running thread of the
   process execute a full memory barrier before it returns.  0, or -1. */
int hi_prim_barrier_setup (void);
int hi_prim_barrier_all (void);
/* Let another thread run. */
void hi_prim_yield (void);

uint64_t hi_prim_tid (void);
/* The clocks now, in ns: CLOCK_REALTIME (since 1970) and CLOCK_MONOTONIC;
   0 for a clock that cannot be read.  Async-signal-safe. */
void hi_prim_clocks (uint64_t *realtime_ns, uint64_t *monotonic_ns);
/* CLOCK_MONOTONIC now, in ns; 0 if it cannot be read. */
uint64_t hi_prim_monotonic_ns (void);
uint64_t hi_prim_pid (void);
uint32_t hi_prim_random32 (void);

/* Make the pages [PAGE, PAGE + SIZE) readable, and writable if
   WRITABLE (a GOT's RELRO pages, heapinspect_attach's).  0, or -1. */
int hi_prim_protect (void *page, size_t size, int writable);
/* 1 if PATH names an existing file, else 0; errno kept. */
int hi_prim_exists (const char *path);
/* The load address of the dynamic loader (AT_BASE); 0 if none. */
uint64_t hi_prim_interp_base (void);
/* 1 in secure-execution mode (AT_SECURE: a set-user-ID or set-group-ID
   program, or one with file capabilities), else 0. */
int hi_prim_secure (void);
/* Value of environment variable NAME or NULL; never allocates.  NULL for
   every HEAPINSPECT_* name in secure-execution mode. */
const char *hi_prim_getenv (const char *name);
/* From now on hi_prim_getenv takes every HEAPINSPECT_* setting from
   OPTS (heapinspect_attach's), not from the environment: NAME=VALUE
   words separated by ';', NAME one of the variables' names in lower
   case without the prefix ("output=/tmp/x.hip;depth=32"); NULL or ""
   sets none.  0, or -1 with *BAD at the word that names no setting,
   has no '=' or does not fit (nothing is changed then). */
int hi_prim_set_options (const char *opts, const char **bad);

/* Write a one-line diagnostic "heapinspect: MSG\n" to stderr, at most a
   few times per process. */
void hi_prim_warn (const char *msg);
/* The same with a message in N pieces, written in one call (one line
   even when threads warn together). */
void hi_prim_warnv (const char *const *parts, int n);
/* A short lower-case description of errno value ERR ("permission
   denied"), without the C library's strerror (locale, allocation). */
const char *hi_prim_errstr (int err);

/* Files, for snapshots: all async-signal-safe, errno set on failure. */
/* Create PATH exclusively (never following a link), mode 0600: an fd. */
int hi_prim_create (const char *path);
/* PATH, when it names an existing file that is no regular file (a
   device, a FIFO, also through a link) or one of the process's own
   descriptors (/dev/stdout, /dev/fd/N), opened to be written in place,
   never replaced: its descriptor; -2 if PATH is a regular file, a link
   to one, or absent (write a temporary and rename it); -1 with errno
   (a directory, a FIFO nobody reads). */
int hi_prim_open_special (const char *path);
/* When PATH names one of the process's own descriptors, a copy of it
   kept for hi_prim_open_special: the program may close it before exit. */
void hi_prim_keep_own_fd (const char *path);
/* SIGPIPE held in the calling thread while a pipe whose reader may
   leave is written: the write fails with EPIPE, the program lives on. */
struct hi_prim_sigpipe
{
  uint64_t saved[16];           /* the thread's signal mask before */
  int was_pending, held;
};
void hi_prim_sigpipe_hold (struct hi_prim_sigpipe *h);
void hi_prim_sigpipe_release (struct hi_prim_sigpipe *h);
/* Write all N bytes of BUF to FD; 0, or -1. */
int hi_prim_write_all (int fd, const void *buf, uint64_t n);
int hi_prim_close (int fd);
int hi_prim_rename (const char *from, const char *to);
int hi_prim_unlink (const char *path);
/* The first SIZE bytes of file PATH (a /proc file: read to its end)
   into BUF, their number in *LEN: 0 if that is the whole file, 1 if it
   holds more, -1 (and *LEN 0) if it cannot be read.  errno is kept. */
int hi_prim_read_file (const char *path, char *buf, size_t size, size_t *len);
/* The working directory into BUF of SIZE bytes; 0, or -1. */
int hi_prim_getcwd (char *buf, size_t size);
/* The running executable's path into BUF (NUL-terminated, maybe cut). */
void hi_prim_exe_path (char *buf, size_t size);
size_t hi_prim_page_size (void);
/* glibc's allocator is asked for EXTRA bytes more than the program asks
   (the monitor's header): raise its fastbin limit by as much, up to its
   most, so that the program's sizes keep the bins they have without the
   monitor (120-byte blocks: 128-byte chunks, fastbins; with the header
   144-byte chunks, small bins that coalesce).  Left alone when the
   environment sets the limit (GLIBC_TUNABLES=glibc.malloc.mxfast=...). */
void hi_prim_malloc_extra (size_t extra);

/* Heap errors (guard.c): never on the hot path. */
/* Copy N bytes at ADDR of this process into BUF without faulting on
   memory that is not mapped or not readable: 0, or -1 if any byte
   cannot be read.  errno is kept. */
int hi_prim_read_safe (uint64_t addr, void *buf, size_t n);
/* Write all N bytes of BUF to standard error, in as few writes as it
   takes (one for a report of a few KiB); errno is kept. */
void hi_prim_write_err (const char *buf, size_t n);
/* CLOCK_MONOTONIC_COARSE now, in ns (the same clock as
   hi_prim_monotonic_ns at the resolution of the kernel's tick, for a
   fraction of its cost); 0 if it cannot be read. */
uint64_t hi_prim_monotonic_coarse_ns (void);
/* Give back the pages of [P, P + SIZE) (page-aligned) of committed
   memory: they stay readable and writable, and read as zeros. */
void hi_prim_discard (void *p, size_t size);
/* End the process with SIGABRT (a core where cores are enabled). */
void hi_prim_abort (void) __attribute__ ((noreturn));

/* Signals.  hi_prim_signal_* return 0, or -1. */
/* Run HANDLER on SIG (SA_RESTART, SIG blocked while it runs). */
int hi_prim_signal_catch (int sig, void (*handler) (int));
/* 1 if SIG has its default action now. */
int hi_prim_signal_is_default (int sig);
/* 1 if SIG's handler is HANDLER (a plain one, not SA_SIGINFO). */
int hi_prim_signal_is (int sig, void (*handler) (int));
/* SIG's default action back. */
int hi_prim_signal_default (int sig);
/* Give SIG its default action and send it to this thread again: it is
   delivered once the running handler returns. */
void hi_prim_signal_reraise (int sig);
/* The highest signal number (real-time signals included). */
int hi_prim_signal_max (void);

/* Run FN (ARG) at exit, after the handlers registered before, as
   __cxa_atexit for no shared object; 0, or -1 once exit handlers have
   all run. */
int hi_prim_at_exit (void (*fn) (void *), void *arg);

/* An identity of open descriptor FD (its device and inode), 0 if it is
   not open. */
uint64_t hi_prim_fd_identity (int fd);

/* Stop for the tracer (heapinspect run --leak-check): SIGTRAP to the
   main thread with si_code SI_QUEUE and si_value VALUE, then, if FD
   still has IDENTITY (the program did not close it and open something
   else there), wait on it as leak-stop.h says and close it. */
void hi_prim_stop_for_tracer (int fd, uint64_t identity,
                              unsigned long long value);
/* Call FN (ARG) when the calling thread exits (once per call; a thread
   that registers again while exiting is not called again).  0, or -1. */
int hi_prim_at_thread_exit (void (*fn) (void *), void *arg);

/* Fork handlers, as pthread_atfork. */
void hi_prim_atfork (void (*prepare) (void), void (*parent) (void),
                     void (*child) (void));

/* Fill OUT with up to MAX return addresses, innermost first, of the
   current thread's stack.  Returns how many were stored.  Never allocates
   on glibc >= 2.35 (the unwinder finds FDEs with _dl_find_object). */
int hi_prim_backtrace (uint64_t *out, int max);

/* The current thread's own stack (not a signal or coroutine stack it
   may be running on): [*LO, *HI), all of it readable above the stack
   pointer.  0 if unknown.  Never allocates. */
int hi_prim_stack_bounds (uint64_t *lo, uint64_t *hi);

/* 1 if the N bytes at ADDR can be read (a system call: for the rare
   address whose bytes may be on an unmapped page). */
int hi_prim_readable (uint64_t addr, size_t n);

/* As hi_prim_backtrace, with each frame's CFA (its stack pointer before
   the call that made it) in CFA[i]. */
int hi_prim_backtrace_cfa (uint64_t *out, uint64_t *cfa, int max);

#endif
