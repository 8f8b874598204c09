/* attach-threads.c - each thread's allocations counted with that
   thread when the monitor is dlopen'd and attached into a program that
   runs threads already (attach-threads.exp): the attach library finds
   its thread-local data through slots in static TLS (lib/monitor.h,
   HI_TLS), which must be per thread, NULL in the threads that ran
   before the load and in threads made later on a reused stack.

   attach-threads MONITOR OUT: 8 threads start and wait; the monitor is
   loaded and attached; worker i (0-7) allocates 10 x (i + 1) blocks of
   16 x (i + 1) bytes and frees i + 1 of them; all wait again while the
   main thread reads the monitor's thread records (heapinspect_root):
   for each worker, its record by its tid.  Then the workers exit, and a
   second wave of 8 threads, one at a time (each on the stack the one
   before left, glibc's cache), does the same with 3 x (i + 1) blocks of
   8 x (i + 1) bytes, freeing none; each record printed again, and the
   first wave's unchanged.  A snapshot to OUT last.

   attach-threads MONITOR OUT foreign: no threads; a block of 200 bytes
   made before the attach is realloc'd to 200 bytes 1000 times after it
   (glibc keeps it in place: a block from before each time, as sqlite3's
   line buffer), then freed; a snapshot to OUT. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "heapinspect/format.h"

#define WORKERS 8

static pthread_barrier_t start, done;
static pid_t tids[2][WORKERS];
static void *kept[2][WORKERS][80];
static const struct hi_root *root;

struct job
{
  int wave, i;
};

static void
allocate (int wave, int i)
{
  int n = wave == 0 ? 10 * (i + 1) : 3 * (i + 1);
  size_t size = wave == 0 ? 16 * (i + 1) : 8 * (i + 1);
  for (int k = 0; k < n; k++)
    kept[wave][i][k] = malloc (size);
  if (wave == 0)
    for (int k = 0; k < i + 1; k++)
      {
        free (kept[wave][i][k]);
        kept[wave][i][k] = NULL;
      }
}

static void *
first_wave (void *arg)
{
  struct job *j = arg;
  tids[0][j->i] = gettid ();
  pthread_barrier_wait (&start);   /* the monitor is attached */
  pthread_barrier_wait (&start);
  allocate (0, j->i);
  pthread_barrier_wait (&done);    /* the main thread reads */
  pthread_barrier_wait (&done);
  return NULL;
}

static void *
second_wave (void *arg)
{
  struct job *j = arg;
  tids[1][j->i] = gettid ();
  allocate (1, j->i);
  return NULL;
}

/* Worker I of WAVE's record: its counts, or a line saying what is wrong. */
static void
report (int wave, int i)
{
  const struct hi_arena_desc *threads = NULL;
  for (uint32_t a = 0; a < root->n_arenas && a < HI_MAX_ARENAS; a++)
    if (root->arenas[a].kind == HI_ARENA_THREADS)
      threads = &root->arenas[a];
  if (!threads || threads->entry_size != sizeof (struct hi_thread))
    {
      printf ("no threads arena\n");
      return;
    }
  const struct hi_thread *t = (const void *) (uintptr_t) threads->addr;
  const struct hi_thread *mine = NULL;
  int records = 0;
  for (uint64_t r = 0; r < threads->count; r++)
    if (t[r].tid == (uint64_t) tids[wave][i])
      {
        records++;
        mine = &t[r];
      }
  if (records != 1)
    printf ("wave %d worker %d: %d records\n", wave + 1, i, records);
  else
    printf ("wave %d worker %d: allocations %llu bytes %llu frees %llu "
            "bytes %llu\n", wave + 1, i,
            (unsigned long long) mine->allocations,
            (unsigned long long) mine->bytes_allocated,
            (unsigned long long) mine->frees,
            (unsigned long long) mine->bytes_freed);
}

/* dlopen the monitor MONITOR: its handle, heapinspect_attach and
   heapinspect_snapshot into *ATTACH and *SNAPSHOT; NULL if it cannot be
   loaded (said on stderr) or lacks either. */
static void *
load_monitor (const char *monitor, int (**attach) (const char *),
              int (**snapshot) (const char *))
{
  void *h = dlopen (monitor, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    {
      fprintf (stderr, "dlopen: %s\n", dlerror ());
      return NULL;
    }
  *attach = (int (*) (const char *)) dlsym (h, "heapinspect_attach");
  *snapshot = (int (*) (const char *)) dlsym (h, "heapinspect_snapshot");
  return *attach && *snapshot ? h : NULL;
}

static int
foreign (const char *monitor, const char *out)
{
  char *before = malloc (200);
  int (*attach) (const char *), (*snapshot) (const char *);
  if (!load_monitor (monitor, &attach, &snapshot))
    return 4;
  if (attach ("output=none") != 0)
    return 5;
  uintptr_t where = (uintptr_t) before;
  for (int k = 0; k < 1000; k++)
    {
      before = realloc (before, 200);
      if ((uintptr_t) before != where)
        return 7;
    }
  free (before);
  return snapshot (out) == 0 ? 0 : 6;
}

int
main (int argc, char **argv)
{
  if (argc == 4)
    return foreign (argv[1], argv[2]);
  if (argc != 3)
    return 2;
  pthread_t th[WORKERS];
  struct job jobs[WORKERS];
  pthread_barrier_init (&start, NULL, WORKERS + 1);
  pthread_barrier_init (&done, NULL, WORKERS + 1);
  for (int i = 0; i < WORKERS; i++)
    {
      jobs[i] = (struct job) { 0, i };
      if (pthread_create (&th[i], NULL, first_wave, &jobs[i]) != 0)
        return 3;
    }
  pthread_barrier_wait (&start);   /* all run, none allocates */

  int (*attach) (const char *), (*snapshot) (const char *);
  void *h = load_monitor (argv[1], &attach, &snapshot);
  if (!h)
    return 4;
  root = dlsym (h, "heapinspect_root");
  if (!root || attach ("output=none") != 0)
    return 5;

  pthread_barrier_wait (&start);   /* they allocate */
  pthread_barrier_wait (&done);
  for (int i = 0; i < WORKERS; i++)
    report (0, i);
  pthread_barrier_wait (&done);
  for (int i = 0; i < WORKERS; i++)
    pthread_join (th[i], NULL);

  for (int i = 0; i < WORKERS; i++)
    {
      jobs[i] = (struct job) { 1, i };
      if (pthread_create (&th[i], NULL, second_wave, &jobs[i]) != 0)
        return 3;
      pthread_join (th[i], NULL);
    }
  for (int wave = 0; wave < 2; wave++)
    for (int i = 0; i < WORKERS; i++)
      report (wave, i);
  return snapshot (argv[2]) == 0 ? 0 : 6;
}
