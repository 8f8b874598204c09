/* dltls.c - a block that only a dlopen'd library's TLS variable points
   to, in a live thread, for dltls.exp.  The worker thread calls the
   library's dltls_keep (DLTLS_SIZE bytes, 777 by default), deep in its
   stack, then blocks on a pipe; the program says the block's address
   and usable size and waits for its standard input to end (for -p),
   then aborts (a core).  Under valgrind it runs memcheck's leak check
   there instead and exits. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

static int pipefd[2];
static pthread_barrier_t ready;
static void *(*keep) (size_t);

/* The allocation 16 KiB down the worker's stack, out of the frames
   left when it waits: no copy of the pointer stays on a live frame. */
__attribute__ ((noinline)) static void
make (void)
{
  volatile char pad[16 << 10];
  pad[0] = 0;
  void *p = keep (777);
  char line[96];
  int n = snprintf (line, sizeof line, "tls block %p usable %zu\n", p,
                    malloc_usable_size (p));
  memset (&p, 0, sizeof p);
  if (write (1, line, (size_t) n) != n)
    exit (3);
  memset (line, 0, sizeof line);
  pad[1] = pad[0];
}

static void *
worker (void *arg)
{
  make ();
  pthread_barrier_wait (&ready);
  char c;
  if (read (pipefd[0], &c, 1) < 0)
    exit (3);
  return arg;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  void *h = dlopen (argv[1], RTLD_NOW);
  if (!h || !(keep = (void *(*) (size_t)) dlsym (h, "dltls_keep")))
    return 1;
  if (pipe (pipefd) != 0)
    return 1;
  pthread_barrier_init (&ready, NULL, 2);
  pthread_t th;
  if (pthread_create (&th, NULL, worker, NULL) != 0)
    return 1;
  pthread_barrier_wait (&ready);
  if (RUNNING_ON_VALGRIND)
    {
      sleep (1);                /* the worker in its read */
      VALGRIND_DO_LEAK_CHECK;
      _exit (0);
    }
  if (write (1, "waiting\n", 8) != 8)
    return 3;
  char c;
  while (read (0, &c, 1) > 0)
    ;
  abort ();
}
