/* run-ends.c - a program with known allocations that ends in a chosen
   way, for `heapinspect run`: usage: run-ends N SIZE FREED HOW [ARG]
   allocates N blocks of SIZE bytes in keep_blocks, frees the first
   FREED, prints "ready PID", then ends as HOW says:
     exit S     exit (S)          _exit S   _exit (S), no exit handlers
     raise SIG  kill itself       wait      wait for a signal
     fork K     K children, each allocating N more blocks, then exit (0)
   Output goes through write(2): stdio would allocate its buffers. */
#define _GNU_SOURCE
#include "report.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

static void *blocks[4096];

__attribute__ ((noinline)) static void
keep_blocks (int n, size_t size)
{
  for (int i = 0; i < n; i++)
    blocks[i] = malloc (size);
}

int
main (int argc, char **argv)
{
  if (argc < 5)
    return 2;
  int n = atoi (argv[1]), freed = atoi (argv[3]);
  size_t size = (size_t) atol (argv[2]);
  const char *how = argv[4];
  int arg = argc > 5 ? atoi (argv[5]) : 0;
  if (n > 4096 || freed > n)
    return 2;
  keep_blocks (n, size);
  for (int i = 0; i < freed; i++)
    free (blocks[i]);
  if (strcmp (how, "fork") == 0)
    for (int k = 0; k < arg; k++)
      {
        pid_t pid = fork ();
        if (pid == 0)
          {
            keep_blocks (n, size);
            exit (0);
          }
        if (pid > 0)
          waitpid (pid, NULL, 0);
      }
  say ("ready %ld\n", (long) getpid ());
  if (strcmp (how, "fork") == 0)
    exit (0);
  if (strcmp (how, "exit") == 0)
    exit (arg);
  if (strcmp (how, "_exit") == 0)
    _exit (arg);
  if (strcmp (how, "raise") == 0)
    raise (arg);
  for (;;)
    pause ();
}
