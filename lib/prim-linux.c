/* prim-linux.c - Linux/glibc implementation of prim.h. */
#define _GNU_SOURCE
#include "common/clock.h"
#include "prim.h"
#include "heapinspect/format.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>

extern char **environ;

/* This file's state.  The monitor's is hi_state, in a layer above. */
static struct
{
  /* The private region (format.h, HI_PRIVATE_BYTES): reserved at its
     first use, handed out in whole pages from its start, never
     reused. */
  _Atomic uint64_t private_base, private_used;
  /* The far area (see claim_far): where reservations are placed, none
     of it mapped until committed.  far_base is 1 once the search for
     it failed. */
  _Atomic uint64_t far_base, far_used;
  _Atomic size_t page_size;      /* found at the first call */
  _Atomic int warn_budget;       /* warnings left; starts at 8 */
  /* Thread-exit hooks: one key for every registration; its value is
     the one FN's argument (the monitor registers one function). */
  pthread_key_t exit_key;
  pthread_once_t exit_once;
  void (*exit_fn) (void *);
  int exit_ok;
} prim = { .warn_budget = 8, .exit_once = PTHREAD_ONCE_INIT };

void *
hi_prim_alloc (size_t size)
{
  void *p = mmap (NULL, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

uint64_t
hi_prim_private_base (void)
{
  uint64_t base = atomic_load_explicit (&prim.private_base,
                                       memory_order_acquire);
  if (base)
    return base;
  void *p = hi_prim_reserve ((size_t) HI_PRIVATE_BYTES);
  if (!p)
    return 0;
  uint64_t want = (uint64_t) (uintptr_t) p;
  if (!atomic_compare_exchange_strong (&prim.private_base, &base, want))
    {
      /* Another thread's won; a far claim is simply left unused. */
      hi_prim_release (p, (size_t) HI_PRIVATE_BYTES);
      return base;
    }
  return want;
}

static int
in_private (const void *p)
{
  uint64_t base = atomic_load_explicit (&prim.private_base,
                                       memory_order_acquire);
  uint64_t a = (uint64_t) (uintptr_t) p;
  return base && a >= base && a - base < HI_PRIVATE_BYTES;
}

void *
hi_prim_alloc_nodump (size_t size)
{
  uint64_t page = (uint64_t) hi_prim_page_size ();
  uint64_t bytes = ((uint64_t) size + page - 1) / page * page;
  uint64_t base = hi_prim_private_base ();
  if (base && bytes <= HI_PRIVATE_BYTES)
    {
      uint64_t off = atomic_fetch_add (&prim.private_used, bytes);
      if (off <= HI_PRIVATE_BYTES - bytes)
        {
          void *p = (void *) (uintptr_t) (base + off);
          if (hi_prim_commit (p, (size_t) bytes) == 0)
            {
              madvise (p, (size_t) bytes, MADV_DONTDUMP);
              return p;
            }
        }
    }
  /* The region is used up: a mapping of its own, out of cores too. */
  void *p = hi_prim_alloc (size);
  if (p)
    madvise (p, size, MADV_DONTDUMP);
  return p;
}

/* The far area.  A reservation of inaccessible address space counts
   against RLIMIT_AS (ulimit -v) as much as memory in use, so the
   monitor reserves none: it places its arenas and private region at
   addresses nobody else will take, a tebibyte below where the kernel
   hands out mappings (it hands them out downwards, from the highest
   gap that fits), and maps each piece there only when it is
   committed.  The address space used is then what is in use.  Where no
   such area can be had (a 32-bit process, a small address space), a
   reservation is a PROT_NONE mapping as large as asked. */
#define FAR_BELOW (UINT64_C(1) << 40)
#define FAR_BYTES (UINT64_C(64) << 30)
#define FAR_ALIGN (UINT64_C(2) << 20)

static uint64_t
far_base (void)
{
  uint64_t base = atomic_load_explicit (&prim.far_base, memory_order_acquire);
  if (base)
    return base;
  base = 1;
  if (sizeof (void *) == 8)
    {
      void *probe = mmap (NULL, (size_t) hi_prim_page_size (), PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (probe != MAP_FAILED)
        {
          uint64_t top = (uint64_t) (uintptr_t) probe;
          munmap (probe, (size_t) hi_prim_page_size ());
          if (top > 2 * FAR_BELOW + FAR_BYTES)
            base = (top - FAR_BELOW - FAR_BYTES) & ~(FAR_ALIGN - 1);
        }
    }
  uint64_t none = 0;
  if (!atomic_compare_exchange_strong (&prim.far_base, &none, base))
    return none;                /* another thread's search won */
  return base;
}

static int
in_far (const void *p)
{
  uint64_t base = atomic_load_explicit (&prim.far_base, memory_order_acquire);
  uint64_t a = (uint64_t) (uintptr_t) p;
  return base > 1 && a >= base && a - base < FAR_BYTES;
}

/* SIZE bytes of the far area, page-aligned, none of it mapped; 0 when
   the area is missing or used up. */
static uint64_t
claim_far (uint64_t size)
{
  uint64_t base = far_base ();
  if (base <= 1)
    return 0;
  uint64_t bytes = (size + FAR_ALIGN - 1) / FAR_ALIGN * FAR_ALIGN;
  uint64_t off = atomic_fetch_add (&prim.far_used, bytes);
  if (bytes > FAR_BYTES || off > FAR_BYTES - bytes)
    return 0;
  return base + off;
}

void *
hi_prim_reserve (size_t size)
{
  uint64_t far = claim_far (size);
  if (far)
    return (void *) (uintptr_t) far;
  void *p = mmap (NULL, size, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  /* gcore dumps even inaccessible mappings, in full; it and the kernel
     skip those marked so. */
  madvise (p, size, MADV_DONTDUMP);
  return p;
}

/* Map [P, P + SIZE) of the far area, where nothing may be mapped yet:
   a mapping found there (an address the kernel gave someone after all)
   is never replaced, and the commit fails. */
static int
map_far (void *p, size_t size)
{
  void *q = mmap (p, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
                  | MAP_FIXED_NOREPLACE, -1, 0);
  if (q == MAP_FAILED)
    return -1;
  if (q != p)
    {
      /* A kernel older than MAP_FIXED_NOREPLACE took it as a hint. */
      munmap (q, size);
      return -1;
    }
  return 0;
}

int
hi_prim_commit (void *p, size_t size)
{
  if (in_far (p))
    {
      if (map_far (p, size) != 0)
        return -1;
    }
  else
    {
      if (mprotect (p, size, PROT_READ | PROT_WRITE) != 0)
        return -1;
      madvise (p, size, MADV_DODUMP);
    }
  /* The kernel dumps anonymous memory only once something was written
     to its mapping: an arena nobody wrote yet (the sites' time entries
     of a program whose threads keep their own) must be in a core too. */
  *(volatile char *) p = 0;
  return 0;
}

void
hi_prim_release (void *p, size_t size)
{
  if (in_private (p) && !in_far (p))
    {
      /* Its pages back to the system; the addresses stay reserved. */
      madvise (p, size, MADV_DONTNEED);
      mprotect (p, size, PROT_NONE);
      return;
    }
  /* A far address is never claimed twice: unmapped, it stays unused. */
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

int
hi_prim_barrier_setup (void)
{
  int saved = errno;
  long r = syscall (SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                    0, 0);
  errno = saved;
  return r == 0 ? 0 : -1;
}

int
hi_prim_barrier_all (void)
{
  int saved = errno;
  long r = syscall (SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  errno = saved;
  return r == 0 ? 0 : -1;
}

void
hi_prim_yield (void)
{
  sched_yield ();
}

uint64_t
hi_prim_tid (void)
{
  return (uint64_t) syscall (SYS_gettid);
}

void
hi_prim_clocks (uint64_t *realtime_ns, uint64_t *monotonic_ns)
{
  int saved = errno;
  *realtime_ns = hi_clock_ns (CLOCK_REALTIME);
  *monotonic_ns = hi_clock_ns (CLOCK_MONOTONIC);
  errno = saved;
}

uint64_t
hi_prim_monotonic_ns (void)
{
  int saved = errno;
  uint64_t ns = hi_clock_ns (CLOCK_MONOTONIC);
  errno = saved;
  return ns;
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

int
hi_prim_protect (void *page, size_t size, int writable)
{
  return mprotect (page, size, PROT_READ | (writable ? PROT_WRITE : 0));
}

int
hi_prim_exists (const char *path)
{
  int saved = errno;
  int r = access (path, F_OK) == 0;
  errno = saved;
  return r;
}

uint64_t
hi_prim_interp_base (void)
{
  return getauxval (AT_BASE);
}

int
hi_prim_secure (void)
{
  return getauxval (AT_SECURE) != 0;
}

/* heapinspect_attach's settings: "HEAPINSPECT_NAME=VALUE" strings one
   after the other, each ending in a NUL, the last followed by another;
   used instead of the environment once options_on is set. */
static char options[4096];
static int options_on;

static const char *const option_names[] = {
  "output", "depth", "lifetimes", "redzone", "quarantine", "on_error",
  "signal", "on_signal", "check_unwind", "chains", "root_pid",
};

int
hi_prim_set_options (const char *opts, const char **bad)
{
  size_t at = 0;
  *bad = NULL;
  for (const char *w = opts ? opts : ""; *w; )
    {
      const char *end = strchr (w, ';');
      if (!end)
        end = w + strlen (w);
      const char *eq = memchr (w, '=', (size_t) (end - w));
      if (end == w)
        {
          w = end + (*end == ';');
          continue;
        }
      size_t known = 0, nlen = eq ? (size_t) (eq - w) : 0;
      for (size_t i = 0; eq && i < sizeof option_names / sizeof *option_names;
           i++)
        if (strlen (option_names[i]) == nlen
            && strncmp (option_names[i], w, nlen) == 0)
          known = 1;
      if (!known)
        {
          *bad = w;
          return -1;
        }
      size_t vlen = (size_t) (end - eq - 1);
      if (at + 12 + nlen + 1 + vlen + 2 > sizeof options)
        {
          *bad = w;
          return -1;
        }
      memcpy (options + at, "HEAPINSPECT_", 12);
      at += 12;
      for (size_t i = 0; i < nlen; i++)
        options[at++] = (char) (w[i] >= 'a' && w[i] <= 'z'
                                ? w[i] - 'a' + 'A' : w[i]);
      options[at++] = '=';
      memcpy (options + at, eq + 1, vlen);
      at += vlen;
      options[at++] = '\0';
      w = end + (*end == ';');
    }
  options[at] = '\0';
  options_on = 1;
  return 0;
}

const char *
hi_prim_getenv (const char *name)
{
  size_t n = strlen (name);
  int ours = strncmp (name, "HEAPINSPECT_", 12) == 0;
  /* glibc's rule for its tunables and MALLOC_*: in a set-user-ID or
     set-group-ID program the invoking user's settings are not ours. */
  if (ours && hi_prim_secure ())
    return NULL;
  if (ours && options_on)
    {
      const char *last = NULL;   /* the last word of a name counts */
      for (const char *o = options; *o; o += strlen (o) + 1)
        if (strncmp (o, name, n) == 0 && o[n] == '=')
          last = o + n + 1;
      return last;
    }
  if (!environ)
    return NULL;
  for (char **e = environ; *e; e++)
    if (strncmp (*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

void
hi_prim_warnv (const char *const *parts, int n)
{
  if (atomic_fetch_sub (&prim.warn_budget, 1) <= 0)
    return;
  int saved = errno;
  struct iovec iov[10];
  int k = 0;
  iov[k++] = (struct iovec) { (void *) "heapinspect: ", 13 };
  for (int i = 0; i < n && k < 9; i++)
    iov[k++] = (struct iovec) { (void *) parts[i], strlen (parts[i]) };
  iov[k++] = (struct iovec) { (void *) "\n", 1 };
  ssize_t r = writev (2, iov, k);
  (void) r;
  errno = saved;
}

void
hi_prim_warn (const char *msg)
{
  hi_prim_warnv (&msg, 1);
}

const char *
hi_prim_errstr (int err)
{
  switch (err)
    {
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case ENOENT: return "no such file or directory";
    case ENOTDIR: return "a part of the path is not a directory";
    case EISDIR: return "is a directory";
    case EROFS: return "read-only file system";
    case ENOSPC: return "no space left on device";
    case EDQUOT: return "disk quota exceeded";
    case ENAMETOOLONG: return "file name too long";
    case ELOOP: return "too many levels of symbolic links";
    case EEXIST: return "file exists";
    case EMFILE: case ENFILE: return "too many open files";
    case EIO: return "input/output error";
    case EFBIG: return "file too large";
    case EINVAL: return "invalid argument";
    case EPIPE: return "its reader closed the pipe";
    case ENXIO: return "no one reads the pipe";
    case EBADF: return "that descriptor is not open";
    case EAGAIN: return "the pipe is full and non-blocking";
    default: return "system error";
    }
}

int
hi_prim_create (const char *path)
{
  return open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
               0600);
}

/* The descriptor PATH names when it is one of the process's own open
   files (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1.
   Such a path is a link into /proc: written through the descriptor, at
   its offset, the shell's `> file' or `| reader' gets the snapshot. */
static int
own_fd_of_path (const char *path)
{
  static const char *const names[] = { "/dev/stdout", "/dev/stderr" };
  for (int i = 0; i < 2; i++)
    if (strcmp (path, names[i]) == 0)
      return i + 1;
  static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
  for (int i = 0; i < 2; i++)
    {
      size_t len = strlen (dirs[i]);
      if (strncmp (path, dirs[i], len) != 0)
        continue;
      const char *d = path + len;
      int fd = 0;
      if (*d == 0)
        return -1;
      for (; *d >= '0' && *d <= '9'; d++)
        if ((fd = fd * 10 + (*d - '0')) > 1 << 20)
          return -1;
      return *d == 0 ? fd : -1;
    }
  return -1;
}

/* A copy of the descriptor HEAPINSPECT_OUTPUT names, taken at start:
   a program that closes its stdout before exit (coreutils do, in an
   exit handler) still has its snapshot written there.  Its file's
   identity is kept too: a program that closed the copy and opened
   something else at that number is never written into. */
static struct
{
  int fd;
  dev_t dev;
  ino_t ino;
  char path[32];
} kept_fd = { -1, 0, 0, "" };

void
hi_prim_keep_own_fd (const char *path)
{
  int own = own_fd_of_path (path);
  struct stat st;
  if (own < 0 || strlen (path) >= sizeof kept_fd.path || kept_fd.fd >= 0
      || fstat (own, &st) != 0)
    return;
  /* High, out of the way of the program's own numbering. */
  int fd = fcntl (own, F_DUPFD_CLOEXEC, 900);
  if (fd < 0)
    return;
  kept_fd.dev = st.st_dev;
  kept_fd.ino = st.st_ino;
  strcpy (kept_fd.path, path);
  kept_fd.fd = fd;
}

int
hi_prim_open_special (const char *path)
{
  int own = own_fd_of_path (path);
  struct stat st, lst;
  if (own >= 0 && kept_fd.fd >= 0 && strcmp (path, kept_fd.path) == 0
      && fstat (kept_fd.fd, &st) == 0 && st.st_dev == kept_fd.dev
      && st.st_ino == kept_fd.ino)
    return fcntl (kept_fd.fd, F_DUPFD_CLOEXEC, 3);
  if (own >= 0)
    return fcntl (own, F_DUPFD_CLOEXEC, 3);
  /* stat, not lstat: a link to a device or a FIFO is written through;
     a link to a regular file is replaced, never written through. */
  if (stat (path, &st) != 0 || S_ISREG (st.st_mode)
      || (lstat (path, &lst) == 0 && S_ISLNK (lst.st_mode)
          && !S_ISCHR (st.st_mode) && !S_ISFIFO (st.st_mode)))
    return -2;
  if (S_ISDIR (st.st_mode))
    {
      errno = EISDIR;
      return -1;
    }
  /* A FIFO nobody reads fails (ENXIO) rather than hang the program. */
  int fd = open (path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -1;
  /* Whatever PATH named by the time it was opened must still be no
     regular file: one is never written in place. */
  if (fstat (fd, &st) != 0 || S_ISREG (st.st_mode))
    {
      close (fd);
      return -2;
    }
  int flags = fcntl (fd, F_GETFL);
  if (flags < 0 || fcntl (fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

_Static_assert (sizeof (sigset_t) <= sizeof ((struct hi_prim_sigpipe *) 0)->saved,
                "struct hi_prim_sigpipe holds a sigset_t");

void
hi_prim_sigpipe_hold (struct hi_prim_sigpipe *h)
{
  sigset_t pipe_set, pending;
  sigemptyset (&pipe_set);
  sigaddset (&pipe_set, SIGPIPE);
  h->was_pending = sigpending (&pending) == 0
                   && sigismember (&pending, SIGPIPE) == 1;
  h->held = pthread_sigmask (SIG_BLOCK, &pipe_set,
                             (sigset_t *) (void *) h->saved) == 0;
}

void
hi_prim_sigpipe_release (struct hi_prim_sigpipe *h)
{
  if (!h->held)
    return;
  sigset_t pipe_set, pending;
  sigemptyset (&pipe_set);
  sigaddset (&pipe_set, SIGPIPE);
  /* Our own EPIPE raised it for this thread: take it before the mask
     is restored.  One the program had pending stays pending. */
  if (!h->was_pending && sigpending (&pending) == 0
      && sigismember (&pending, SIGPIPE) == 1)
    {
      struct timespec zero = { 0, 0 };
      int saved = errno;
      while (sigtimedwait (&pipe_set, NULL, &zero) < 0 && errno == EINTR)
        ;
      errno = saved;
    }
  int saved = errno;
  pthread_sigmask (SIG_SETMASK, (const sigset_t *) (const void *) h->saved,
                   NULL);
  errno = saved;
}

int
hi_prim_write_all (int fd, const void *buf, uint64_t n)
{
  const char *p = buf;
  while (n > 0)
    {
      ssize_t w = write (fd, p, n > (1u << 30) ? (1u << 30) : (size_t) n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return -1;
      if (w == 0)
        {
          errno = EIO;
          return -1;
        }
      p += w;
      n -= (uint64_t) w;
    }
  return 0;
}

int
hi_prim_close (int fd)
{
  return close (fd);
}

int
hi_prim_rename (const char *from, const char *to)
{
  return rename (from, to);
}

int
hi_prim_unlink (const char *path)
{
  return unlink (path);
}

int
hi_prim_read_file (const char *path, char *buf, size_t size, size_t *len)
{
  int saved = errno;
  *len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      errno = saved;
      return -1;
    }
  /* Read until the end or SIZE bytes, then one byte more to tell. */
  ssize_t n = 1;
  char more;
  while (n != 0)
    {
      n = *len < size ? read (fd, buf + *len, size - *len)
                      : read (fd, &more, 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 || (n > 0 && *len == size))
        break;
      *len += (size_t) n;
    }
  close (fd);
  errno = saved;
  if (n < 0)
    {
      *len = 0;
      return -1;
    }
  return n > 0;
}

int
hi_prim_getcwd (char *buf, size_t size)
{
  return getcwd (buf, size) ? 0 : -1;
}

void
hi_prim_exe_path (char *buf, size_t size)
{
  ssize_t n = size ? readlink ("/proc/self/exe", buf, size - 1) : 0;
  if (size)
    buf[n > 0 ? n : 0] = '\0';
}

size_t
hi_prim_page_size (void)
{
  size_t p = atomic_load_explicit (&prim.page_size, memory_order_relaxed);
  if (!p)
    {
      long v = sysconf (_SC_PAGESIZE);
      p = v > 0 ? (size_t) v : 4096;
      atomic_store_explicit (&prim.page_size, p, memory_order_relaxed);
    }
  return p;
}

int
hi_prim_read_safe (uint64_t addr, void *buf, size_t n)
{
  int saved = errno;
  struct iovec local = { buf, n };
  struct iovec remote = { (void *) (uintptr_t) addr, n };
  ssize_t r = process_vm_readv (getpid (), &local, 1, &remote, 1, 0);
  int ok = r >= 0 && (size_t) r == n;
  if (r < 0 && (errno == ENOSYS || errno == EPERM))
    {
      /* process_vm_readv refused (a seccomp filter): ask whether the
         pages are mapped.  mincore does not see PROT_NONE, the rare
         case left. */
      uint64_t page = hi_prim_page_size ();
      uint64_t lo = addr & ~(page - 1), hi = addr + n;
      unsigned char v;
      ok = hi >= addr;
      for (uint64_t a = lo; ok && a < hi; a += page)
        ok = mincore ((void *) (uintptr_t) a, page, &v) == 0;
      if (ok)
        memcpy (buf, (const void *) (uintptr_t) addr, n);
    }
  errno = saved;
  return ok ? 0 : -1;
}

void
hi_prim_write_err (const char *buf, size_t n)
{
  int saved = errno;
  while (n > 0)
    {
      ssize_t w = write (2, buf, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        break;
      buf += w;
      n -= (size_t) w;
    }
  errno = saved;
}

uint64_t
hi_prim_monotonic_coarse_ns (void)
{
  int saved = errno;
  uint64_t ns = hi_clock_ns (CLOCK_MONOTONIC_COARSE);
  errno = saved;
  return ns;
}

void
hi_prim_discard (void *p, size_t size)
{
  int saved = errno;
  madvise (p, size, MADV_DONTNEED);
  errno = saved;
}

void
hi_prim_abort (void)
{
  abort ();
}

int
hi_prim_signal_catch (int sig, void (*handler) (int))
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset (&sa.sa_mask);
  return sigaction (sig, &sa, NULL);
}

int
hi_prim_signal_is (int sig, void (*handler) (int))
{
  struct sigaction old;
  return sigaction (sig, NULL, &old) == 0
         && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == handler;
}

int
hi_prim_signal_is_default (int sig)
{
  return hi_prim_signal_is (sig, SIG_DFL);
}

int
hi_prim_signal_default (int sig)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset (&sa.sa_mask);
  return sigaction (sig, &sa, NULL);
}

void
hi_prim_signal_reraise (int sig)
{
  hi_prim_signal_default (sig);
  /* To this thread: blocked while its handler runs, then fatal. */
  syscall (SYS_tgkill, (pid_t) getpid (), (pid_t) syscall (SYS_gettid), sig);
}

int
hi_prim_signal_max (void)
{
  return SIGRTMAX;
}

extern int __cxa_atexit (void (*fn) (void *), void *arg, void *dso);

int
hi_prim_at_exit (void (*fn) (void *), void *arg)
{
  return __cxa_atexit (fn, arg, NULL) == 0 ? 0 : -1;
}

uint64_t
hi_prim_fd_identity (int fd)
{
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    return 0;
  return ((uint64_t) st.st_dev << 40) ^ (uint64_t) st.st_ino ^ 1;
}

void
hi_prim_stop_for_tracer (int fd, uint64_t identity, unsigned long long value)
{
  int saved = errno;
  siginfo_t si;
  memset (&si, 0, sizeof si);
  si.si_signo = SIGTRAP;
  si.si_code = SI_QUEUE;
  si.si_pid = getpid ();
  si.si_uid = getuid ();
  si.si_value.sival_ptr = (void *) (uintptr_t) value;
  /* To the main thread, the one the tracer follows; from it, the signal
     is taken on the way out of this call, even where the program blocks
     SIGTRAP. */
  int main_thread = syscall (SYS_gettid) == getpid ();
  sigset_t trap, old;
  sigemptyset (&trap);
  sigaddset (&trap, SIGTRAP);
  if (main_thread)
    pthread_sigmask (SIG_UNBLOCK, &trap, &old);
  syscall (SYS_rt_tgsigqueueinfo, getpid (), getpid (), SIGTRAP, &si);
  if (main_thread)
    pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (hi_prim_fd_identity (fd) != identity)
    {
      errno = saved;
      return;                   /* not our pipe any more: leave it be */
    }
  /* The tracer writes a byte when it takes the stop and closes its end
     when done.  No byte in 2 s: the main thread did not stop (it blocks
     SIGTRAP, or has ended) and nobody scans; go on exiting. */
  struct pollfd p = { fd, POLLIN, 0 };
  int r;
  do
    r = poll (&p, 1, 2000);
  while (r < 0 && errno == EINTR);
  char c;
  while (r > 0)
    {
      ssize_t n = read (fd, &c, 1);
      if (n <= 0 && !(n < 0 && errno == EINTR))
        break;
    }
  close (fd);
  errno = saved;
}

void
hi_prim_atfork (void (*prepare) (void), void (*parent) (void),
                void (*child) (void))
{
  pthread_atfork (prepare, parent, child);
}

static void
exit_call (void *arg)
{
  prim.exit_fn (arg);
}

static void
exit_key_make (void)
{
  prim.exit_ok = pthread_key_create (&prim.exit_key, exit_call) == 0;
}

int
hi_prim_at_thread_exit (void (*fn) (void *), void *arg)
{
  prim.exit_fn = fn;
  pthread_once (&prim.exit_once, exit_key_make);
  if (!prim.exit_ok || pthread_setspecific (prim.exit_key, arg) != 0)
    return -1;
  return 0;
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

/* Set by the dynamic linker (or the static start code): an address near
   the top of the main thread's stack. */
extern void *__libc_stack_end;

/* The mapping of /proc/self/maps that holds ADDR: *START, *END, and the
   end of the mapping below it in *PREV_END.  Parsed in a small buffer
   with read(2): no stdio, no malloc (pthread_getattr_np uses both). */
static int
find_mapping (uint64_t addr, uint64_t *start, uint64_t *end,
              uint64_t *prev_end)
{
  int fd = open ("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[512];
  uint64_t lo = 0, hi = 0, last_end = 0;
  int field = 0, found = 0;     /* field 0: start, 1: end, 2: the rest */
  ssize_t n;
  while (!found && (n = read (fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < n && !found; i++)
      {
        char c = buf[i];
        int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (c == '\n')
          {
            if (field == 2 && lo <= addr && addr < hi)
              found = 1;
            else
              {
                last_end = hi;
                lo = hi = 0;
                field = 0;
              }
          }
        else if (field == 0 && digit >= 0)
          lo = lo << 4 | (uint64_t) digit;
        else if (field == 0 && c == '-')
          field = 1;
        else if (field == 1 && digit >= 0)
          hi = hi << 4 | (uint64_t) digit;
        else if (field == 1)
          field = 2;
      }
  close (fd);
  if (!found)
    return 0;
  *start = lo;
  *end = hi;
  *prev_end = last_end;
  return 1;
}

int
hi_prim_stack_bounds (uint64_t *lo, uint64_t *hi)
{
  uint64_t start, end, prev_end;
  if (hi_prim_tid () == hi_prim_pid ())
    {
      /* The main thread's stack grows down to its rlimit, not past the
         mapping below it. */
      if (!__libc_stack_end
          || !find_mapping ((uint64_t) (uintptr_t) __libc_stack_end,
                            &start, &end, &prev_end))
        return 0;
      struct rlimit rl;
      uint64_t low = prev_end;
      if (getrlimit (RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
          && rl.rlim_cur < end && end - rl.rlim_cur > low)
        low = end - rl.rlim_cur;
      *lo = low < start ? low : start;
      *hi = end;
      return 1;
    }
  /* glibc keeps a thread's descriptor at the top of its stack mapping
     (the guard page below is a mapping of its own). */
  if (!find_mapping ((uint64_t) (uintptr_t) pthread_self (), &start, &end,
                     &prev_end))
    return 0;
  *lo = start;
  *hi = end;
  return 1;
}

int
hi_prim_readable (uint64_t addr, size_t n)
{
  char buf[64];
  if (n > sizeof buf)
    return 0;
  struct iovec local = { buf, n }, remote = { (void *) (uintptr_t) addr, n };
  return syscall (SYS_process_vm_readv, (long) getpid (), &local, 1UL,
                  &remote, 1UL, 0UL) == (long) n;
}

struct unwind_cfa_state
{
  uint64_t *out, *cfa;
  int n, max;
};

static _Unwind_Reason_Code
unwind_one_cfa (struct _Unwind_Context *ctx, void *arg)
{
  struct unwind_cfa_state *s = arg;
  uintptr_t ip = _Unwind_GetIP (ctx);
  if (ip == 0)
    return _URC_END_OF_STACK;
  s->cfa[s->n] = _Unwind_GetCFA (ctx);
  s->out[s->n++] = ip;
  return s->n < s->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

int
hi_prim_backtrace_cfa (uint64_t *out, uint64_t *cfa, int max)
{
  struct unwind_cfa_state s = { out, cfa, 0, max };
  if (max > 0)
    _Unwind_Backtrace (unwind_one_cfa, &s);
  return s.n;
}

void
hi_prim_malloc_extra (size_t extra)
{
  const char *t = hi_prim_getenv ("GLIBC_TUNABLES");
  if (t && strstr (t, "mxfast"))
    return;
  /* glibc's default limit and its most (malloc/malloc.c: DEFAULT_MXFAST,
     MAX_FAST_SIZE), in bytes asked for. */
  size_t limit = 64 * sizeof (size_t) / 4 + extra;
  if (limit > 80 * sizeof (size_t) / 4)
    limit = 80 * sizeof (size_t) / 4;
  mallopt (M_MXFAST, (int) limit);
}
