/* stack-threads.c - three threads blocked reading a pipe, each started
   at its own function with a local on its stack, for stack-threads.exp:
   `block` on each local names the thread (its LWP) and its start
   function.  The program says, for each thread and for main, its LWP
   and the local's address, then waits for its standard input to end
   (for -p) and aborts (a core). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pipefd[2];
static pthread_barrier_t ready;
static pthread_mutex_t say_lock = PTHREAD_MUTEX_INITIALIZER;

/* Say NAME's LWP and its local's address, then block on the pipe. */
__attribute__ ((noinline)) static void
wait_here (const char *name)
{
  volatile long local = 42;
  char line[128];
  int n = snprintf (line, sizeof line, "%s lwp %d local %p\n", name,
                    (int) gettid (), (void *) &local);
  pthread_mutex_lock (&say_lock);
  if (write (1, line, (size_t) n) != n)
    exit (3);
  pthread_mutex_unlock (&say_lock);
  pthread_barrier_wait (&ready);
  char c;
  if (read (pipefd[0], &c, 1) < 0)
    exit (3);
  local++;
}

static void *
reader_one (void *arg)
{
  wait_here ("reader_one");
  return arg;
}

static void *
reader_two (void *arg)
{
  wait_here ("reader_two");
  return arg;
}

static void *
reader_three (void *arg)
{
  wait_here ("reader_three");
  return arg;
}

int
main (void)
{
  if (pipe (pipefd) != 0)
    return 1;
  pthread_barrier_init (&ready, NULL, 4);
  void *(*const start[]) (void *) = { reader_one, reader_two, reader_three };
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    if (pthread_create (&th[i], NULL, start[i], NULL) != 0)
      return 1;
  pthread_barrier_wait (&ready);
  volatile long local = 7;
  char line[128];
  int n = snprintf (line, sizeof line, "main lwp %d local %p\n",
                    (int) gettid (), (void *) &local);
  if (write (1, line, (size_t) n) != n)
    return 3;
  char c;
  while (read (0, &c, 1) > 0)
    ;
  abort ();
}
