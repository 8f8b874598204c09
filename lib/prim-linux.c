/* prim-linux.c - Linux/glibc implementation of prim.h. */
#define _GNU_SOURCE
#include "prim.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

extern char **environ;

void *
hi_prim_reserve (size_t size)
{
  void *p = mmap (NULL, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void
hi_prim_release (void *p, size_t size)
{
  munmap (p, size);
}

/* Drepper's futex mutex: 0 free, 1 locked, 2 locked with waiters. */
void
hi_lock_acquire (hi_lock *l)
{
  _Atomic int *w = (_Atomic int *) &l->word;
  int c = 0;
  if (atomic_compare_exchange_strong (w, &c, 1))
    return;
  if (c != 2)
    c = atomic_exchange (w, 2);
  while (c != 0)
    {
      syscall (SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
      c = atomic_exchange (w, 2);
    }
}

int
hi_lock_try (hi_lock *l)
{
  int c = 0;
  return atomic_compare_exchange_strong ((_Atomic int *) &l->word, &c, 1);
}

void
hi_lock_release (hi_lock *l)
{
  if (atomic_exchange ((_Atomic int *) &l->word, 0) == 2)
    syscall (SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

uint64_t
hi_prim_tid (void)
{
  return (uint64_t) syscall (SYS_gettid);
}

uint64_t
hi_prim_pid (void)
{
  return (uint64_t) getpid ();
}

uint32_t
hi_prim_random32 (void)
{
  uint32_t r = 0;
  const unsigned char *a = (const unsigned char *) getauxval (AT_RANDOM);
  if (a)
    memcpy (&r, a + 4, sizeof r);
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return r ^ (uint32_t) ts.tv_nsec ^ (uint32_t) getpid () * 2654435761u;
}

const char *
hi_prim_getenv (const char *name)
{
  size_t n = strlen (name);
  if (!environ)
    return NULL;
  for (char **e = environ; *e; e++)
    if (strncmp (*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

void
hi_prim_warn (const char *msg)
{
  static _Atomic int budget = 8;
  if (atomic_fetch_sub (&budget, 1) <= 0)
    return;
  int saved = errno;
  const char *pre = "heapinspect: ";
  ssize_t r = write (2, pre, strlen (pre));
  r = write (2, msg, strlen (msg));
  r = write (2, "\n", 1);
  (void) r;
  errno = saved;
}

struct unwind_state
{
  uint64_t *out;
  int n, max;
};

static _Unwind_Reason_Code
unwind_one (struct _Unwind_Context *ctx, void *arg)
{
  struct unwind_state *s = arg;
  uintptr_t ip = _Unwind_GetIP (ctx);
  if (ip == 0)
    return _URC_END_OF_STACK;
  s->out[s->n++] = ip;
  return s->n < s->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

int
hi_prim_backtrace (uint64_t *out, int max)
{
  struct unwind_state s = { out, 0, max };
  if (max > 0)
    _Unwind_Backtrace (unwind_one, &s);
  return s.n;
}

int
hi_prim_header_readable (const void *p)
{
  uintptr_t a = (uintptr_t) p;
  long page = 4096;
  if ((a & (page - 1)) >= 16)
    return 1;       /* the header is on P's own page */
  unsigned char vec;
  return mincore ((void *) ((a - 16) & ~(uintptr_t) (page - 1)), 1, &vec) == 0;
}
