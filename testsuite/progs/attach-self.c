/* attach-self.c - a program not linked with the monitor and not
   preloaded attaches it to itself (attach-lib.exp): dlopen of
   libheapinspect.so, heapinspect_attach, a designed set of allocations,
   a snapshot, heapinspect_detach, more work, a second snapshot.

   attach-self MONITOR LIBDLTEST OUT1 OUT2 [none]: with "none" the monitor
   is never loaded (the output and exit status to compare with).
   attach-self MONITOR - OUT1 - threads: 8 threads allocate in a loop
   while the main thread attaches; a snapshot after they stop.
   attach-self MONITOR - - - badopt: heapinspect_attach refuses a setting
   it does not know; the monitor stays dormant. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BEFORE 10

#ifdef ATTACH_NOPIE
/* Built without -pie, the program takes the functions' addresses: its
   PLT entries become their addresses for every object, libc's GOT
   entries included. */
void *(*volatile take_malloc) (size_t);
void (*volatile take_free) (void *);

/* In code (an absolute address, not a dynamic relocation of data). */
__attribute__ ((constructor)) static void
take_addresses (void)
{
  take_malloc = malloc;
  take_free = free;
}
#endif

static void *before[BEFORE];
static int (*attach) (const char *);
static const char *(*attach_error) (void);
static int (*detach) (void);
static int (*snapshot) (const char *);

static void
load_monitor (const char *path)
{
  void *h = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    {
      fprintf (stderr, "dlopen: %s\n", dlerror ());
      exit (90);
    }
  attach = (int (*) (const char *)) dlsym (h, "heapinspect_attach");
  attach_error = (const char *(*) (void)) dlsym (h,
                                                 "heapinspect_attach_error");
  detach = (int (*) (void)) dlsym (h, "heapinspect_detach");
  snapshot = (int (*) (const char *)) dlsym (h, "heapinspect_snapshot");
  if (!attach || !attach_error || !detach || !snapshot)
    exit (91);
  /* Preloaded, the monitor that records is the preloaded one.  (Only
     then: a failed dlsym leaves glibc an error string to free, a block
     from before the attach.) */
  void *preloaded = getenv ("LD_PRELOAD")
                    ? dlsym (RTLD_DEFAULT, "heapinspect_snapshot") : NULL;
  if (preloaded)
    snapshot = (int (*) (const char *)) preloaded;
  /* Dormant until attached, unless preloaded: nothing to write. */
  if (!preloaded && snapshot ("/dev/null") == 0)
    {
      fprintf (stderr, "a dlopen'd monitor started by itself\n");
      exit (92);
    }
}

static void
do_attach (const char *out)
{
  char opts[600];
  /* The exit snapshot next to OUT: OUT.exit.%p.hip. */
  snprintf (opts, sizeof opts, "output=%s.exit.%%p.hip;depth=32;quarantine=0",
            out);
  if (attach (opts) != 0)
    {
      fprintf (stderr, "attach: %s\n", attach_error ());
      exit (93);
    }
}

/* The designed allocations, each from its own function. */
__attribute__ ((noinline)) static void *
make_malloc (void)
{
  return malloc (1000);
}

__attribute__ ((noinline)) static void *
make_calloc (void)
{
  return calloc (10, 20);
}

__attribute__ ((noinline)) static void *
make_realloc (void)
{
  void *p = malloc (50);
  return realloc (p, 3000);
}

__attribute__ ((noinline)) static void *
make_aligned (void)
{
  void *p = NULL;
  if (posix_memalign (&p, 64, 128) != 0)
    return NULL;
  return p;
}

__attribute__ ((noinline)) static char *
make_strdup (void)
{
  return strdup ("a string of 23 bytes..");
}

static int
run_designed (char **argv, int monitored)
{
  for (int i = 0; i < BEFORE; i++)
    before[i] = malloc (100 + i);
  if (monitored)
    {
      load_monitor (argv[1]);
      do_attach (argv[3]);
    }
  void *a = make_malloc ();
  void *b = make_calloc ();
  free (b);
  void *c = make_realloc ();
  void *d = make_aligned ();
  char *s = make_strdup ();
  void *lib = dlopen (argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return 94;
  void **(*dl_allocate) (int) = (void **(*) (int)) dlsym (lib,
                                                          "dl_allocate");
  void **v = dl_allocate (2);
  /* Blocks from before: freed, asked their size, moved by realloc. */
  for (int i = 0; i < 4; i++)
    free (before[i]);
  size_t usable = malloc_usable_size (before[4]);
  before[5] = realloc (before[5], 4000);
  /* The monitor's blocks, asked their size. */
  size_t ua = malloc_usable_size (a);
  if (monitored && snapshot (argv[3]) != 0)
    return 95;
  if (monitored && detach () != 0)
    return 96;
  /* After the detach: not recorded, and the monitor's blocks freed
     right. */
  void *after = malloc (777);
  free (a);
  free (d);
  s = realloc (s, 5000);
  strcpy (s + 4000, "end");
  c = realloc (c, 10);
  free (after);
  for (int i = 4; i < BEFORE; i++)
    free (before[i]);
  free (v[0]);
  if (monitored && snapshot (argv[4]) != 0)
    return 97;
  free (s);
  free (c);
  /* More after the second snapshot: glibc's heap stays usable (its
     consolidation checks every free chunk it merges). */
  for (int i = 0; i < 1000; i++)
    free (malloc ((size_t) i * 7));
  malloc_trim (0);
  printf ("usable %d %d\n", usable >= 104, ua >= 1000);
  printf ("done\n");
  return 3;
}

/* ---- threads ---- */

#define THREADS 8
#define RING 16
static atomic_int stop;

static void *ring[THREADS][RING];
static size_t ring_size[THREADS][RING];

/* Thread ARG's ring of blocks, replaced one after the other; kept when
   it stops (the blocks live at the snapshot, all made after the
   attach). */
static void *
spin (void *arg)
{
  int t = (int) (long) arg;
  unsigned i = 0;
  while (!atomic_load (&stop))
    {
      unsigned k = i++ % RING;
      free (ring[t][k]);
      size_t n = (i & 1) ? 16 + i % 200 : 24 + i % 100;
      ring[t][k] = (i & 1) ? malloc (n) : calloc (1, n);
      if (i % 7 == 0)
        {
          n = 300 + i % 50;
          ring[t][k] = realloc (ring[t][k], n);
        }
      ring_size[t][k] = n;
    }
  return NULL;
}

static int
run_threads (char **argv)
{
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create (&t[i], NULL, spin, (void *) i);
  usleep (100000);
  load_monitor (argv[1]);
  do_attach (argv[3]);
  usleep (300000);
  atomic_store (&stop, 1);
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  if (snapshot (argv[3]) != 0)
    return 95;
  size_t bytes = 0;
  for (int i = 0; i < THREADS; i++)
    for (int k = 0; k < RING; k++)
      {
        bytes += ring_size[i][k];
        free (ring[i][k]);
      }
  printf ("ring %d blocks %zu bytes\n", THREADS * RING, bytes);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 5)
    return 2;
  if (argc > 5 && strcmp (argv[5], "threads") == 0)
    return run_threads (argv);
  if (argc > 5 && strcmp (argv[5], "badopt") == 0)
    {
      load_monitor (argv[1]);
      int r = attach ("output=none;colour=red");
      printf ("%d %s\n", r, attach_error ());
      free (malloc (10));
      printf ("%s\n", snapshot ("/dev/null") == 0 ? "started" : "dormant");
      return 0;
    }
  return run_designed (argv, !(argc > 5 && strcmp (argv[5], "none") == 0));
}
