/* guard-bugs.c - heap bugs, one per run (guard.exp): the program says
   its pid and the addresses and sizes concerned, then makes the bug.

   guard-bugs CASE, CASE one of:
     double-free     malloc 24, free, free again
     double-free-thread  malloc 24, free in a second thread (which says
                     its tid), free again in the main one
     interior        malloc 40, free 8 bytes in
     stack           free of a stack buffer
     global          free of a pointer into a global array
     wild            free of 0x18 (no memory there)
     overflow        malloc 24 twice (adjacent), write 24 bytes past the
                     first's end (over the second's header), free the
                     second, then the first
     overflow1       the same, writing 1 byte past the first's end (over
                     glibc's size word of the second's chunk)
     overflow1-realloc  the same, then realloc the second to 100 bytes
                     (then free the first)
     write-after-free  malloc 40, free, write byte 8, then free 64 blocks
                     of 64 bytes (a small quarantine lets it go)
     write-after-free-at:SIZE:OFFSET  malloc SIZE, free, write byte
                     OFFSET, then free 64 blocks of 2048 bytes (a
                     quarantine of 64K lets it go)
     realloc-freed   malloc 24, free, realloc it
     usable          malloc 24: malloc_usable_size; realloc to 40 and
                     write all 40 bytes; realloc to 16 (in place) and
                     write 16; free (no error)
     write-after-free-snapshot  malloc 40, free, write byte 12, then a
                     snapshot (waf.hip in $HI_SNAPDIR)
     threads         8 threads, each allocating 20000 blocks that the
                     next thread frees */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include "report.h"

#define NOINLINE __attribute__ ((noinline))

/* Hides a pointer's origin from the compiler's warnings. */
static void *volatile launder;

static void *
hide (void *p)
{
  launder = p;
  return launder;
}

NOINLINE static char *
make_block (size_t n)
{
  return malloc (n);
}

NOINLINE static void
release_block (void *p)
{
  free (p);
}

/* Not the same code as release_block: GCC would fold the two. */
NOINLINE static void
release_again (void *p)
{
  launder = p;
  free (p);
}

NOINLINE static void *
realloc_block (void *p, size_t n)
{
  return realloc (p, n);
}

NOINLINE static void
overflow (char *p, size_t size, size_t past)
{
  memset (hide (p), 'A', size + past);
}

static char global_buf[64] __attribute__ ((aligned (16)));

#define THREADS 8
#define PER_THREAD 20000
static char *handoff[THREADS][PER_THREAD];
static pthread_barrier_t start, made, done;

NOINLINE static void *
worker (void *arg)
{
  int k = (int) (intptr_t) arg;
  pthread_barrier_wait (&start);
  for (int i = 0; i < PER_THREAD; i++)
    handoff[k][i] = make_block ((size_t) (16 + (i % 7) * 8));
  pthread_barrier_wait (&made);
  /* Free the blocks of the next thread. */
  char **mine = handoff[(k + 1) % THREADS];
  for (int i = 0; i < PER_THREAD; i++)
    release_block (mine[i]);
  pthread_barrier_wait (&done);
  return NULL;
}

/* The threads exist before the first snapshot and until after the
   second: between the two, only their blocks are allocated and freed. */
static int
threads (void)
{
  pthread_t t[THREADS];
  uint64_t bytes = 0;
  for (int k = 0; k < THREADS; k++)
    for (int i = 0; i < PER_THREAD; i++)
      bytes += (uint64_t) (16 + (i % 7) * 8);
  pthread_barrier_init (&start, NULL, THREADS + 1);
  pthread_barrier_init (&made, NULL, THREADS);
  pthread_barrier_init (&done, NULL, THREADS + 1);
  for (int k = 0; k < THREADS; k++)
    if (pthread_create (&t[k], NULL, worker, (void *) (intptr_t) k) != 0)
      return 1;
  snap ("threads-before.hip");
  pthread_barrier_wait (&start);
  pthread_barrier_wait (&done);
  snap ("threads-after.hip");
  for (int k = 0; k < THREADS; k++)
    pthread_join (t[k], NULL);
  say ("allocations: %d\nbytes: %llu\n", THREADS * PER_THREAD,
       (unsigned long long) bytes);
  return 0;
}

/* double-free-thread: a thread frees the block and says its id. */
static void *
free_in_thread (void *p)
{
  say ("tid: %ld\n", (long) syscall (SYS_gettid));
  release_block (p);
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  const char *c = argv[1];
  say ("pid: %d\n", (int) getpid ());
  if (strcmp (c, "double-free") == 0)
    {
      char *p = make_block (24);
      say ("block: %p\nsize: 24\n", (void *) p);
      release_block (p);
      release_again (p);
    }
  else if (strcmp (c, "double-free-thread") == 0)
    {
      char *p = make_block (24);
      say ("block: %p\nsize: 24\n", (void *) p);
      pthread_t t;
      if (pthread_create (&t, NULL, free_in_thread, p) != 0)
        return 3;
      pthread_join (t, NULL);
      release_again (p);
    }
  else if (strcmp (c, "interior") == 0)
    {
      char *p = make_block (40);
      say ("block: %p\nsize: 40\npointer: %p\n", (void *) p,
           (void *) (p + 8));
      release_block (p + 8);
    }
  else if (strcmp (c, "stack") == 0)
    {
      char buf[64] __attribute__ ((aligned (16)));
      buf[0] = 1;
      char *p = hide (buf + 16);
      say ("pointer: %p\n", (void *) p);
      release_block (p);
    }
  else if (strcmp (c, "global") == 0)
    {
      char *p = hide (global_buf + 16);
      say ("pointer: %p\n", (void *) p);
      release_block (p);
    }
  else if (strcmp (c, "wild") == 0)
    {
      char *p = hide ((void *) (uintptr_t) 0x18);
      say ("pointer: %p\n", (void *) p);
      release_block (p);
    }
  else if (strcmp (c, "overflow") == 0)
    {
      char *a = make_block (24);
      char *b = make_block (24);
      say ("block: %p\nsize: 24\nnext: %p\n", (void *) a, (void *) b);
      overflow (a, 24, 24);
      release_block (b);
      release_again (a);
    }
  else if (strcmp (c, "overflow1") == 0 || strcmp (c, "overflow1-realloc") == 0)
    {
      /* 24 bytes fill a chunk with the header: byte 25 is glibc's size
         word of the next chunk, not our header. */
      char *a = make_block (24);
      char *b = make_block (24);
      say ("block: %p\nsize: 24\nnext: %p\n", (void *) a, (void *) b);
      overflow (a, 24, 1);
      if (c[9])
        say ("realloc: %s\n", realloc_block (b, 100) ? "a block" : "NULL");
      else
        release_block (b);
      release_again (a);
    }
  else if (strcmp (c, "write-after-free") == 0)
    {
      char *p = make_block (40);
      say ("block: %p\nsize: 40\n", (void *) p);
      release_block (p);
      ((char *) hide (p))[8] = 'w';
      for (int i = 0; i < 64; i++)
        release_again (make_block (64));
    }
  else if (strncmp (c, "write-after-free-at:", 20) == 0)
    {
      size_t size, offset;
      if (sscanf (c + 20, "%zu:%zu", &size, &offset) != 2 || offset >= size)
        return 2;
      char *p = make_block (size);
      say ("block: %p\nsize: %zu\noffset: %zu\n", (void *) p, size, offset);
      release_block (p);
      ((char *) hide (p))[offset] = 'w';
      for (int i = 0; i < 64; i++)
        release_again (make_block (2048));
    }
  else if (strcmp (c, "realloc-freed") == 0)
    {
      char *p = make_block (24);
      say ("block: %p\nsize: 24\n", (void *) p);
      release_block (p);
      char *q = realloc_block (hide (p), 48);
      say ("realloc: %s\n", q ? "a block" : "NULL");
    }
  else if (strcmp (c, "usable") == 0)
    {
      char *p = make_block (24);
      say ("usable: %zu\n", malloc_usable_size (p));
      p = realloc_block (p, 40);
      memset (p, 'u', 40);
      say ("usable: %zu\n", malloc_usable_size (p));
      char *q = realloc_block (p, 16);
      say ("in_place: %d\n", q == p);
      memset (q, 'v', 16);
      say ("usable: %zu\n", malloc_usable_size (q));
      release_block (q);
    }
  else if (strcmp (c, "write-after-free-snapshot") == 0)
    {
      char *p = make_block (40);
      say ("block: %p\nsize: 40\n", (void *) p);
      release_block (p);
      ((char *) hide (p))[12] = 'w';
      snap ("waf.hip");
    }
  else if (strcmp (c, "threads") == 0)
    return threads ();
  else
    return 2;
  say ("done\n");
  return 0;
}
