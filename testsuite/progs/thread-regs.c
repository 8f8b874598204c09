/* thread-regs.c - threads with known registers and stack words, for the
   process target's thread_regs and mapping ops (heapinspect.cli/
   target-regs.exp).  Each of 3 threads puts 0x5245470000000000 + k in r12
   and 0x5354414b00000000 + k on its stack and waits in pause(2), r12
   untouched; then the program prints, one line per thread (main is 0,
   waiting in read(2)):
     thread K TID R12 MARKER_ADDRESS THREAD_POINTER
   and "ready", and ends when its input does. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 3

struct info
{
  int k;
  pid_t tid;
  uint64_t r12;
  uintptr_t marker_at, tp;
  atomic_int ready;
};

static struct info info[NTHREADS + 1];

static void *
waiter (void *arg)
{
  struct info *in = arg;
  volatile uint64_t marker = UINT64_C (0x5354414b00000000) + (uint64_t) in->k;
  in->tid = (pid_t) syscall (SYS_gettid);
  in->r12 = UINT64_C (0x5245470000000000) + (uint64_t) in->k;
  in->marker_at = (uintptr_t) &marker;
  in->tp = (uintptr_t) pthread_self ();
  atomic_store (&in->ready, 1);
  /* pause(2) forever, with r12 set and kept (the syscall keeps it). */
  __asm__ volatile ("mov %0, %%r12\n"
                    "1: mov %1, %%eax\n"
                    "syscall\n"
                    "jmp 1b"
                    : : "r" (in->r12), "i" (SYS_pause)
                    : "rax", "rcx", "r11", "r12", "memory");
  return (void *) marker;
}

int
main (void)
{
  volatile uint64_t marker = UINT64_C (0x5354414b00000000);
  info[0].tid = getpid ();
  info[0].marker_at = (uintptr_t) &marker;
  info[0].tp = (uintptr_t) pthread_self ();
  for (int k = 1; k <= NTHREADS; k++)
    {
      pthread_t t;
      info[k].k = k;
      if (pthread_create (&t, NULL, waiter, &info[k]) != 0)
        return 1;
    }
  for (int k = 1; k <= NTHREADS; k++)
    while (!atomic_load (&info[k].ready))
      usleep (1000);
  for (int k = 0; k <= NTHREADS; k++)
    printf ("thread %d %d 0x%llx 0x%llx 0x%llx\n", k, (int) info[k].tid,
            (unsigned long long) info[k].r12,
            (unsigned long long) info[k].marker_at,
            (unsigned long long) info[k].tp);
  printf ("ready\n");
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return marker == 0;
}
