/* ref-graph.c - a known graph of pointers between blocks, for ref.exp:
   a global (g_root) points to A, A (at offset 8) to B, B (at 16) to C;
   block D, which global g_d points to, holds an interior pointer to C
   (C + 8, at D's offset 24); a second thread holds C in a stack local;
   E and F point to each other (E's offset 0, F's 8) and nothing else
   points to them: a lost cycle; the main thread's TLS variable t_g
   points to G.  It prints every block ("A 0x... SIZE
   USABLE": its address, the size asked for, malloc_usable_size's),
   the second thread's id ("thread2 TID") and its local's address
   ("local 0x..."), the globals' ("g_root 0x...", "g_d 0x..."), the
   main thread's id and its t_g's address ("main TID", "t_g 0x..."), then
   aborts (a core); `ref-graph wait` prints "waiting" and waits for its
   standard input to close instead (heapinspect -p).  Output goes
   through write(2): stdio would allocate. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_A 40
#define SIZE_B 48
#define SIZE_C 56
#define SIZE_D 72
#define SIZE_E 88
#define SIZE_F 104
#define SIZE_G 120

void **g_root;                  /* -> A */
void **g_d;                     /* -> D */
__thread void *t_g;             /* the main thread's: -> G */
static void *volatile handoff;  /* C, for the second thread, then NULL */
static pthread_barrier_t held;
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

/* "NAME 0xADDRESS REQUESTED USABLE" for block P of SIZE bytes. */
static void
say_block (const char *name, void *p, size_t size)
{
  char line[96];
  int n = snprintf (line, sizeof line, "%s 0x%lx %zu %zu\n", name,
                    (unsigned long) p, size, malloc_usable_size (p));
  if (write (1, line, (size_t) n) != n)
    _exit (3);
}

static void
say (const char *what, unsigned long v, int hex)
{
  char line[96];
  int n = snprintf (line, sizeof line, hex ? "%s 0x%lx\n" : "%s %lu\n",
                    what, v);
  if (write (1, line, (size_t) n) != n)
    _exit (3);
}

/* Overwrite what the calls before left below the stack pointer. */
static __attribute__ ((noinline)) void
scrub (void)
{
  volatile char buf[1 << 16];
  memset ((char *) buf, 0, sizeof buf);
}

static void *
second (void *arg)
{
  (void) arg;
  void *volatile local = handoff;
  handoff = NULL;
  say ("thread2", (unsigned long) gettid (), 0);
  say ("local", (unsigned long) &local, 1);
  pthread_barrier_wait (&held);
  pthread_mutex_lock (&hold);   /* main holds it: wait for ever */
  pthread_mutex_unlock (&hold);
  return (void *) local;
}

static __attribute__ ((noinline)) void
make_cycle (void)
{
  void **e = calloc (1, SIZE_E), **f = calloc (1, SIZE_F);
  e[0] = f;
  f[1] = e;
  say_block ("E", e, SIZE_E);
  say_block ("F", f, SIZE_F);
}

/* Allocations from another frame: the monitor keeps the registers of
   the frames of its last two call chains in its TLS (lib/unwind.c's
   memos), where make_graph's would be roots of its blocks. */
static __attribute__ ((noinline)) void
settle (void)
{
  for (int i = 0; i < 2; i++)
    free (calloc (1, 8));
}

static __attribute__ ((noinline)) void
make_graph (void)
{
  void **a = calloc (1, SIZE_A), **b = calloc (1, SIZE_B);
  void **c = calloc (1, SIZE_C), **d = calloc (1, SIZE_D);
  void *g = calloc (1, SIZE_G);
  a[1] = b;
  b[2] = c;
  d[3] = (char *) c + 8;
  g_root = a;
  g_d = d;
  handoff = c;
  t_g = g;
  say_block ("A", a, SIZE_A);
  say_block ("B", b, SIZE_B);
  say_block ("C", c, SIZE_C);
  say_block ("D", d, SIZE_D);
  say_block ("G", g, SIZE_G);
}

int
main (int argc, char **argv)
{
  pthread_t t;
  char c;
  say ("g_root", (unsigned long) &g_root, 1);
  say ("g_d", (unsigned long) &g_d, 1);
  say ("t_g", (unsigned long) &t_g, 1);
  say ("main", (unsigned long) gettid (), 0);
  pthread_mutex_lock (&hold);
  pthread_barrier_init (&held, NULL, 2);
  make_cycle ();
  make_graph ();
  settle ();
  scrub ();
  if (pthread_create (&t, NULL, second, NULL) != 0)
    return 2;
  pthread_barrier_wait (&held);
  scrub ();
  if (argc > 1 && strcmp (argv[1], "wait") == 0)
    {
      say ("waiting", 0, 0);
      while (read (0, &c, 1) > 0)
        ;
      return 0;
    }
  abort ();
}
