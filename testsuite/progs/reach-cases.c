/* reach-cases.c - blocks in each of memcheck's leak classes, for
   leakcheck.exp: `reach-cases all` makes them and aborts (a core);
   `reach-cases register` also keeps one block's only pointer in a
   register, then crashes; `reach-cases exit` makes them and exits (a
   snapshot).  Under valgrind, memcheck's leak check runs right before
   the abort or the crash (a client request, made natively too, where it
   does nothing), with every thread alive: at a fatal signal memcheck
   counts no thread's registers, a core holds them all.  It prints what it made: "expect CLASS BYTES BLOCKS" for
   its own blocks of each class, and "global ADDRESS" (the user pointer
   of a reachable block, whose header a test overwrites).  Output goes
   through write(2), so that stdio allocates nothing. */
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
# define VALGRIND_DO_LEAK_CHECK do { } while (0)
#endif

#define NODE 24                 /* a list node: 3 words */
#define CYCLE 40
#define INTERIOR 64
#define GLOBAL 100
#define ON_STACK 48
#define TLS_OTHER 56
#define TLS_MAIN 72
#define IN_REGISTER 88
#define ALIGNED_KEPT 128        /* aligned_alloc (64, ...) */
#define ALIGNED_LOST 192
#define BIG_KEPT 200000         /* mmapped chunks (over glibc's threshold) */
#define BIG_LOST 300000
#define VIA_BIG 32              /* only the lost big block points to it */
#define STALE 56                /* only a freed block points to it */
#define COUNTED (8 + 10 * 4)    /* new[]'s layout: a count, then 10 ints */

struct node { struct node *next; long a, b; };

void *global_block;             /* reachable */
void *aligned_kept, *zero_kept; /* reachable: an aligned block, a 0-byte one */
void *big_kept;                 /* reachable, an mmapped chunk */
int *counted_elements;          /* 8 bytes in: reachable by memcheck's
                                   newarray heuristic */
char *interior_pointer;         /* possibly lost: 10 bytes in */
__thread void *tls_main;        /* reachable, from the main thread's TLS */
__thread void *tls_other;       /* ... from the other thread's */
void *volatile sink;            /* makes a block escape (not optimized out) */
static int ready[2], never[2];

static void
say (const char *what, unsigned long a, unsigned long b)
{
  char line[128];
  int n = snprintf (line, sizeof line, "expect %s %lu %lu\n", what, a, b);
  if (write (1, line, (size_t) n) != n)
    _exit (3);
}

/* Overwrite what the calls before left below the stack pointer, so no
   stale pointer is a root (memcheck sees such words as undefined). */
static __attribute__ ((noinline)) void
scrub (void)
{
  volatile char buf[1 << 16];
  memset ((char *) buf, 0, sizeof buf);
}

static __attribute__ ((noinline)) void
make_list (void)
{
  struct node *head = NULL;
  for (int i = 0; i < 5; i++)
    {
      struct node *n = calloc (1, NODE);
      n->next = head;
      head = n;
    }
  sink = head;
  sink = NULL;   /* dropped: the head definitely lost, 4 indirectly */
}

static __attribute__ ((noinline)) void
make_cycle (void)
{
  void **a = calloc (1, CYCLE), **b = calloc (1, CYCLE), **c = calloc (1, CYCLE);
  *a = b;
  *b = c;
  *c = a;
  sink = a;
  sink = NULL;
}

static __attribute__ ((noinline)) void
make_reachable (void)
{
  global_block = calloc (1, GLOBAL);
  interior_pointer = (char *) calloc (1, INTERIOR) + 10;
  tls_main = calloc (1, TLS_MAIN);
  aligned_kept = aligned_alloc (64, ALIGNED_KEPT);
  memset (aligned_kept, 0, ALIGNED_KEPT);
  zero_kept = malloc (0);
  long *counted = calloc (1, COUNTED);
  counted[0] = 10;
  counted_elements = (int *) (counted + 1);
  sink = memset (aligned_alloc (64, ALIGNED_LOST), 0, ALIGNED_LOST);
  sink = NULL;                  /* definitely lost */
}

/* A big block (mmapped on its own) that alone points to a small one,
   dropped: definitely and indirectly lost (the mapping is heap memory,
   not a root); and a block only a freed block's stale bytes point to:
   definitely lost (free chunks are not roots). */
static __attribute__ ((noinline)) void
make_big_and_stale (void)
{
  big_kept = calloc (1, BIG_KEPT);
  void **big = calloc (1, BIG_LOST);
  big[1000] = calloc (1, VIA_BIG);
  sink = big;
  sink = NULL;
  void **holder = calloc (1, 64);
  holder[6] = calloc (1, STALE);
  sink = holder[6];
  sink = NULL;
  free (holder);
}

/* Another thread: one block only on its stack, one only in its TLS;
   it waits for ever. */
static void *
other (void *arg)
{
  void *volatile on_stack = calloc (1, ON_STACK);
  tls_other = calloc (1, TLS_OTHER);
  char c = 1;
  if (write (ready[1], &c, 1) != 1)
    abort ();
  while (read (never[0], &c, 1) != 0)
    ;
  return arg == on_stack ? NULL : arg;
}

/* memcheck's leak check, now; called from asm with r12 preserved. */
__attribute__ ((noinline, used)) void
reach_check_now (void)
{
  VALGRIND_DO_LEAK_CHECK;
}

/* A block whose only pointer is returned inverted. */
static __attribute__ ((noinline)) unsigned long
hidden (void)
{
  void *p = calloc (1, IN_REGISTER);
  sink = p;
  sink = NULL;
  return ~(unsigned long) p;
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "all";
  pthread_t t;
  char c, line[64];
  if (pipe (ready) || pipe (never))
    return 2;
  make_list ();
  make_cycle ();
  make_reachable ();
  make_big_and_stale ();
  if (pthread_create (&t, NULL, other, NULL) != 0 || read (ready[0], &c, 1) != 1)
    return 2;
  say ("definite", NODE + CYCLE + ALIGNED_LOST + BIG_LOST + STALE, 5);
  say ("indirect", 4 * NODE + 2 * CYCLE + VIA_BIG, 7);
  say ("possible", INTERIOR, 1);
  say ("reachable", GLOBAL + ON_STACK + TLS_OTHER + TLS_MAIN + ALIGNED_KEPT
       + BIG_KEPT + COUNTED, 8);
  int n = snprintf (line, sizeof line, "global 0x%lx\n",
                    (unsigned long) global_block);
  if (write (1, line, (size_t) n) != n)
    return 3;
  if (strcmp (mode, "register") == 0)
    {
      unsigned long inv = hidden ();
      say ("register", IN_REGISTER, 1);
      scrub ();
      /* The block's pointer in r12 alone, the leak check (under
         valgrind), then a write to address 0. */
      __asm__ volatile ("mov %0, %%r12\n\tnot %%r12\n\t"
                        "call reach_check_now\n\tmovl $0, 0"
                        : : "r" (inv)
                        : "r12", "rax", "rcx", "rdx", "rsi", "rdi", "r8",
                          "r9", "r10", "r11", "memory");
    }
  if (strcmp (mode, "exit") == 0)
    exit (0);
  scrub ();
  reach_check_now ();
  abort ();
}
