/* dead-threads.c - blocks that only an exited thread's stack points to,
   for dead-threads.exp.  Six workers each allocate five blocks, keep
   their pointers on their own stacks only, and exit; glibc keeps their
   stacks mapped in its stack cache, pointers and all.  Two more workers
   do the same and stay alive, waiting.  Then, under valgrind, memcheck's
   leak check runs, and the program aborts (a core).  Memcheck calls the
   exited workers' blocks definitely lost and the live ones' reachable;
   the program says which it made.  `dead-threads exit` calls exit(0)
   there instead (for `heapinspect run --leak-check`). */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined __has_include
# if __has_include (<valgrind/memcheck.h>)
#  include <valgrind/memcheck.h>
# endif
#endif
#ifndef VALGRIND_DO_LEAK_CHECK
# define VALGRIND_DO_LEAK_CHECK ((void) 0)
#endif

enum { EXITING = 6, STAYING = 2, BLOCKS = 5 };

static pthread_barrier_t made;
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
/* The exited workers' blocks' usable bytes (malloc_usable_size). */
static _Atomic size_t exited_usable;

/* Allocate BLOCKS blocks of 100 + i bytes, their pointers in a local
   array only, and tell the barrier. */
__attribute__ ((noinline)) static void
make (void *stay)
{
  void *volatile kept[BLOCKS];
  for (int i = 0; i < BLOCKS; i++)
    {
      kept[i] = malloc (100 + (size_t) i);
      memset (kept[i], 0, 100);
      if (!stay)
        exited_usable += malloc_usable_size (kept[i]);
    }
  pthread_barrier_wait (&made);
  if (stay)
    {
      pthread_mutex_lock (&hold);       /* held by main: wait for ever */
      pthread_mutex_unlock (&hold);
    }
}

/* MAKE's frame 16 KiB down the stack: deeper than what runs at the
   thread's exit, which leaves the pointers as they were. */
static void *
worker (void *stay)
{
  volatile char pad[16 << 10];
  pad[0] = 0;
  make (stay);
  return (void *) (pad[0] + (char *) 0);
}

static void
say (const char *what, int threads)
{
  char line[80];
  int n = snprintf (line, sizeof line, "%s %d bytes in %d blocks\n", what,
                    threads * (BLOCKS * 100 + BLOCKS * (BLOCKS - 1) / 2),
                    threads * BLOCKS);
  if (write (1, line, (size_t) n) != n)
    exit (3);
}

int
main (int argc, char **argv)
{
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  /* Small stacks: glibc's 40 MiB stack cache keeps all of them. */
  pthread_attr_setstacksize (&attr, 256 << 10);
  pthread_mutex_lock (&hold);
  pthread_t t[EXITING + STAYING];
  pthread_barrier_init (&made, NULL, EXITING + STAYING + 1);
  for (int i = 0; i < EXITING + STAYING; i++)
    if (pthread_create (&t[i], &attr, worker,
                        i < EXITING ? NULL : (void *) 1) != 0)
      return 2;
  pthread_barrier_wait (&made);
  for (int i = 0; i < EXITING; i++)
    pthread_join (t[i], NULL);
  say ("exited", EXITING);
  say ("live", STAYING);
  char line[64];
  int n = snprintf (line, sizeof line, "exited usable %zu\n",
                    (size_t) exited_usable);
  if (write (1, line, (size_t) n) != n)
    return 3;
  if (argc > 1 && strcmp (argv[1], "exit") == 0)
    exit (0);
  VALGRIND_DO_LEAK_CHECK;
  abort ();
}
