/* glibc-heap.c - a heap in every state glibc's accounting knows, for
   glibc-heap.exp, run without the monitor: chunks in use, in tcache, in
   fastbins, in the unsorted, small and large bins, mmapped chunks, and
   two more arenas made by threads that stay alive.  Then it writes
   mallinfo2()'s figures (to stdout, with write) and malloc_info()'s XML
   (to malloc-info.xml, a stream opened with its buffer before any of
   this) and aborts: the core holds the heap those figures describe.
   `glibc-heap wait` waits instead, for heapinspect -p. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t made;
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static void *volatile kept[4096];
static unsigned n_kept;
/* The last churn's blocks, freed or not (by this thread). */
static __thread uintptr_t last[512];

/* Allocate N blocks of SIZE; free every other one (FREE_ODD). */
static void
churn (unsigned n, size_t size, int free_odd)
{
  void *p[512];
  for (unsigned i = 0; i < n; i++)
    p[i] = malloc (size);
  for (unsigned i = 0; i < n; i++)
    {
      last[i] = (uintptr_t) p[i];
      if (free_odd && (i & 1))
        free (p[i]);
      else
        kept[n_kept++ % 4096] = p[i];
    }
}

static void *
worker (void *arg)
{
  churn (100, 700, 1);
  churn (40, 5000, 1);
  churn (200, 48 + (size_t) (uintptr_t) arg, 1);   /* fastbins last: a
                                                      large request
                                                      consolidates them */
  pthread_barrier_wait (&made);
  pthread_mutex_lock (&hold);           /* held by main: wait for ever */
  pthread_mutex_unlock (&hold);
  return NULL;
}

int
main (int argc, char **argv)
{
  static char buf[1 << 16];
  FILE *info = fopen ("malloc-info.xml", "w");
  if (!info || setvbuf (info, buf, _IOFBF, sizeof buf) != 0)
    return 2;
  pthread_mutex_lock (&hold);
  pthread_barrier_init (&made, NULL, 3);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    if (pthread_create (&t[i], NULL, worker, (void *) (uintptr_t) (16 * i)))
      return 2;
  churn (200, 600, 1);          /* small bins */
  churn (60, 3000, 1);          /* large bins */
  churn (4, 300000, 1);         /* mmapped */
  void *mapped = (void *) last[0];
  void *big = malloc (70000);
  kept[n_kept++ % 4096] = malloc (16);
  free (big);                   /* unsorted, or merged into the top */
  churn (300, 24, 1);           /* tcache, then fastbins (last: a large
                                   request would consolidate them) */
  /* The first block freed stays in the tcache (seven fit), the eighth
     goes to a fastbin. */
  uintptr_t in_tcache = last[1], in_fastbin = last[15];
  void *in_use = (void *) last[0];
  churn (300, 100, 1);
  pthread_barrier_wait (&made);
  struct mallinfo2 mi = mallinfo2 ();
  char line[512];
  int n = snprintf (line, sizeof line,
                    "arena %zu\nordblks %zu\nsmblks %zu\nhblks %zu\n"
                    "hblkhd %zu\nusmblks %zu\nfsmblks %zu\nuordblks %zu\n"
                    "fordblks %zu\nkeepcost %zu\n", mi.arena, mi.ordblks,
                    mi.smblks, mi.hblks, mi.hblkhd, mi.usmblks, mi.fsmblks,
                    mi.uordblks, mi.fordblks, mi.keepcost);
  if (write (1, line, (size_t) n) != n)
    return 3;
  n = snprintf (line, sizeof line,
                "block in_use 0x%lx %zu\nblock mmapped 0x%lx %zu\n"
                "block tcache 0x%lx\nblock fastbin 0x%lx\n"
                "block stack 0x%lx\n",
                (unsigned long) in_use, malloc_usable_size (in_use),
                (unsigned long) mapped, malloc_usable_size (mapped),
                (unsigned long) in_tcache, (unsigned long) in_fastbin,
                (unsigned long) line);
  if (write (1, line, (size_t) n) != n)
    return 3;
  malloc_info (0, info);
  fflush (info);
  if (argc > 1 && strcmp (argv[1], "wait") == 0)
    {
      /* For heapinspect -p: say so, then wait to be killed. */
      if (write (1, "waiting\n", 8) != 8)
        return 3;
      for (;;)
        pause ();
    }
  abort ();
}
