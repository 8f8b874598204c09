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

/* Attach: libheapinspect-attach.so (the monitor built with dynamic
   TLS: libheapinspect.so cannot be dlopen'd late) dlopen'd into a
   running program that was not started with it (by `heapinspect
   attach`'s injector, or by the program itself) records nothing until
   heapinspect_attach.  OPTIONS is
   NULL or NAME=VALUE words separated by ';' that take the place of the
   HEAPINSPECT_* environment variables, NAME in lower case without the
   prefix ("output=/tmp/x.hip;depth=32"); the environment is not read.
   The monitor starts (its start time is the attach's, marked so in the
   snapshot), then the GOT entries of every loaded object but
   libheapinspect.so and ld.so that lead to glibc's malloc, free,
   calloc, realloc, reallocarray, posix_memalign, aligned_alloc,
   memalign, valloc, pvalloc and malloc_usable_size lead to the
   monitor's, and dlopen and dlmopen to wrappers that do the same for
   the objects they load.  Blocks from before have no header: free,
   realloc and malloc_usable_size of them go to glibc (counted as
   foreign frees).  Returns 0, or -1 with nothing patched and a one-line
   reason in heapinspect_attach_error ().  Returns 0 and changes nothing
   when attached already or when libheapinspect.so was preloaded.  It calls no
   malloc: it may run while other threads are stopped anywhere.
   heapinspect_detach: new allocations go to glibc again (their GOT
   entries restored); free, realloc, reallocarray, malloc_usable_size,
   dlopen and dlmopen stay with the monitor, which gives header-less
   pointers to glibc unchanged and frees its own blocks (counted), so
   the tables stay right.  The monitor is never unloaded; its data stays
   readable.  Returns 0.  See libheapinspect(7). */
int heapinspect_attach (const char *options) __attribute__ ((weak));
const char *heapinspect_attach_error (void) __attribute__ ((weak));
int heapinspect_detach (void) __attribute__ ((weak));
/* The snapshot's file name of a running monitor, as HEAPINSPECT_OUTPUT
   names it ("none", or NULL: no snapshot at exit or on the signal);
   `heapinspect attach` clears it before it detaches, so that the program
   writes nothing when it ends.  Returns 0. */
int heapinspect_set_output (const char *name) __attribute__ ((weak));

/* Pools: a program's own allocator (an arena, a bump allocator, a free
   list) tells the monitor about its blocks, in the way of valgrind's
   VALGRIND_MALLOCLIKE_BLOCK and mempool requests.  Their blocks get call
   chains (the caller of heapinspect_alloc's) and appear in the tables
   with the pool's name as their innermost frame, "[pool NAME]"; `stat`
   counts them apart from malloc's.  Nothing is written into the pool's
   memory: the monitor keeps a 32-byte record per live block and an
   8-byte index slot in its own memory, and a lock is taken per call.
   POOL is any address that names the pool while it exists (the pool's
   own struct, say).  All are thread-safe, and no-ops costing a test of
   a weak symbol when the monitor is not loaded.

   heapinspect_pool_create: POOL exists from now on, named NAME (copied,
   48 bytes at most).  heapinspect_pool_destroy: its live blocks are
   freed and POOL is no pool any more.  heapinspect_alloc: PTR (SIZE
   bytes) was handed out by POOL.  heapinspect_free: it was given back.
   heapinspect_pool_reset: every live block of POOL was given back at
   once (an arena's reset).  A call naming no pool or block the monitor
   knows is counted and ignored. */
void heapinspect_pool_create_ (const void *pool, const char *name)
  __attribute__ ((weak));
void heapinspect_pool_destroy_ (const void *pool) __attribute__ ((weak));
void heapinspect_alloc_ (const void *pool, const void *ptr,
                         unsigned long size) __attribute__ ((weak));
void heapinspect_free_ (const void *pool, const void *ptr)
  __attribute__ ((weak));
void heapinspect_pool_reset_ (const void *pool) __attribute__ ((weak));

#ifdef __cplusplus
}
#endif

static inline void
heapinspect_pool_create (const void *pool, const char *name)
{
  if (heapinspect_pool_create_)
    heapinspect_pool_create_ (pool, name);
}

static inline void
heapinspect_pool_destroy (const void *pool)
{
  if (heapinspect_pool_destroy_)
    heapinspect_pool_destroy_ (pool);
}

/* A macro, so that the chain recorded is its caller's, with no frame
   of its own (each argument is evaluated once). */
#define heapinspect_alloc(pool, ptr, size) \
  (heapinspect_alloc_ ? heapinspect_alloc_ ((pool), (ptr), (size)) \
                      : (void) 0)

static inline void
heapinspect_free (const void *pool, const void *ptr)
{
  if (heapinspect_free_)
    heapinspect_free_ (pool, ptr);
}

static inline void
heapinspect_pool_reset (const void *pool)
{
  if (heapinspect_pool_reset_)
    heapinspect_pool_reset_ (pool);
}

#endif /* HEAPINSPECT_H */
