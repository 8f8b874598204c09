/* attach-modules.c - a program for timing `heapinspect attach` (bench/run
   --attach): it dlopens the shared objects named on its command line
   (bench/run builds 50), calls each one's function (a malloc), starts 8
   threads that allocate and free in a loop, says "ready" and waits for
   its standard input to end; then stops the threads and exits.  The
   attach patches every module's GOT with all 9 threads stopped.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 8

static atomic_int stop;
static atomic_long rounds;

static void *
allocate (void *arg)
{
  (void) arg;
  while (!atomic_load (&stop))
    {
      void *p[16];
      for (int i = 0; i < 16; i++)
        p[i] = malloc (16 + 32 * i);
      for (int i = 0; i < 16; i++)
        free (p[i]);
      atomic_fetch_add (&rounds, 1);
      usleep (100);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      void *h = dlopen (argv[i], RTLD_NOW);
      void *(*fn) (void) = h ? (void *(*) (void)) dlsym (h, "module_alloc")
                             : NULL;
      if (!fn)
        {
          fprintf (stderr, "attach-modules: %s: %s\n", argv[i], dlerror ());
          return 1;
        }
      free (fn ());
    }
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    if (pthread_create (&t[i], NULL, allocate, NULL) != 0)
      return 1;
  printf ("ready %ld\n", (long) getpid ());
  fflush (stdout);
  char buf[64];
  while (read (0, buf, sizeof buf) > 0)
    ;
  atomic_store (&stop, 1);
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  printf ("rounds %ld\n", atomic_load (&rounds));
  return 0;
}
