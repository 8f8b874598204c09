/* leak-exit.c - blocks of every leak class with known sizes, for `run
   --leak-check`, `--leak-check -p` and gdb's `heap lost`
   (heapinspect.cli/leak-live.exp, heapinspect.gdb/lost.exp):
   - a list of 3 blocks of 64 bytes whose head is dropped: 64 bytes in 1
     block definitely lost, 128 in 2 indirectly lost;
   - a block of 200 bytes held by a global pointer into its middle:
     possibly lost;
   - a block of 100 bytes held by a global: still reachable;
   - a thread that waits holding a block of 400 bytes only on its stack
     and one of 300 bytes only in its TLS: still reachable while it lives.
   It prints "expect definite 64 1 indirect 128 2" and then, by its
   argument:
     return       main returns (the thread still waits)
     exit-thread  another thread calls exit() while main waits for it
     _exit        main calls _exit(0): no exit handlers
     wait         prints "ready" and waits until its input ends, then
                  returns (a live process for -p and gdb)
     pause        prints "ready" and waits for a signal to end it
     wait-reg     as wait, with one more thread holding a block of 500
                  bytes in r12 and nowhere else (its memory keeps the
                  address only xor'ed), in reg_holder
     closefds     first closes every descriptor from 3 on and opens pipes
                  on their numbers (as daemons do), then as exit-thread
     clean        frees its blocks, starts no thread and returns: nothing
                  lost (stdio's buffer stays, still reachable) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct node
{
  struct node *next;
  char pad[56];
};

void *global_reachable;
char *global_interior;
__thread void *tls_block;
static atomic_int ready;

static __attribute__ ((noinline)) void
make_list (void)
{
  struct node *head = NULL;
  for (int i = 0; i < 3; i++)
    {
      struct node *n = calloc (1, sizeof *n);
      n->next = head;
      head = n;
    }
  /* head goes out of scope: the list is lost. */
  __asm__ volatile ("" : : "r" (head) : "memory");
}

static void *
waiter (void *arg)
{
  void *volatile on_stack = malloc (400);
  memset (on_stack, 0, 400);
  tls_block = calloc (1, 300);
  atomic_store (&ready, 1);
  if (arg)
    {
      /* exit-thread: end the process from here, main in pthread_join. */
      usleep (1000);
      exit (0);
    }
  for (;;)
    pause ();
  return on_stack;
}

#define XOR_KEY UINT64_C (0x5a5a5a5a5a5a5a5a)

/* Clear the stack below the caller: malloc's frames left the address
   there. */
static __attribute__ ((noinline)) void
scrub_stack (void)
{
  char buf[32768];
  memset (buf, 0, sizeof buf);
  __asm__ volatile ("" : : "r" (buf) : "memory");
}

static __attribute__ ((noinline)) void *
reg_holder (void *arg)
{
  (void) arg;
  /* Only the xor'ed address is ever in memory; r12 gets the address. */
  volatile uint64_t hidden = (uint64_t) (uintptr_t) malloc (500) ^ XOR_KEY;
  scrub_stack ();
  atomic_store (&ready, 2);
  __asm__ volatile ("mov %0, %%r12\n"
                    "xor %1, %%r12\n"
                    "1: mov %2, %%eax\n"
                    "syscall\n"
                    "jmp 1b"
                    : : "r" (hidden), "r" (XOR_KEY), "i" (SYS_pause)
                    : "rax", "rcx", "r11", "r12", "memory");
  return NULL;
}

int
main (int argc, char **argv)
{
  const char *how = argc > 1 ? argv[1] : "return";
  if (strcmp (how, "closefds") == 0)
    {
      for (int fd = 3; fd < 1024; fd++)
        close (fd);
      int p[2];
      for (int i = 0; i < 8; i++)
        if (pipe (p) != 0)
          return 1;
      how = "exit-thread";
    }
  if (strcmp (how, "clean") == 0)
    {
      void *volatile p = malloc (64);
      free (p);
      printf ("expect definite 0 0 indirect 0 0\n");
      return 0;
    }
  global_reachable = calloc (1, 100);
  global_interior = (char *) calloc (1, 200) + 50;
  make_list ();
  /* Clear the registers and stack slots make_list used. */
  volatile char scrub[512];
  memset ((char *) scrub, 0, sizeof scrub);
  printf ("expect definite 64 1 indirect 128 2\n");
  fflush (stdout);
  pthread_t t;
  int exit_thread = strcmp (how, "exit-thread") == 0;
  if (pthread_create (&t, NULL, waiter, exit_thread ? (void *) 1 : NULL))
    return 1;
  while (!atomic_load (&ready))
    usleep (1000);
  if (strcmp (how, "wait-reg") == 0)
    {
      pthread_t h;
      if (pthread_create (&h, NULL, reg_holder, NULL))
        return 1;
      while (atomic_load (&ready) != 2)
        usleep (1000);
      how = "wait";
    }
  if (exit_thread)
    pthread_join (t, NULL);
  else if (strcmp (how, "_exit") == 0)
    _exit (0);
  else if (strcmp (how, "pause") == 0)
    {
      printf ("ready\n");
      fflush (stdout);
      for (;;)
        pause ();
    }
  else if (strcmp (how, "wait") == 0)
    {
      printf ("ready\n");
      fflush (stdout);
      char c;
      while (read (0, &c, 1) > 0)
        ;
    }
  return 0;
}
