/* serve-procs.c - the processes `heapinspect serve` serves: those of
   the host whose memory its user may read (the kernel's ptrace access
   check on /proc/PID/mem, as `heapinspect -p PID`) and in whose memory
   the reader finds the monitor's root, by its symbol as hi_model_load
   does (a process is known by its data, not by its name); -p PID keeps
   to those.  Found again for each request, or reused while at most a
   second old; and the reads of them. */
#define _GNU_SOURCE
#include "serve.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t reader_mutex = PTHREAD_MUTEX_INITIALIZER;

void
serve_reader_lock (void)
{
  pthread_mutex_lock (&reader_mutex);
}

void
serve_reader_unlock (void)
{
  pthread_mutex_unlock (&reader_mutex);
}

/* The listing and when it was made (under list_mutex). */
static pthread_mutex_t list_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct serve_proc *cached;
static size_t n_cached;
static struct timespec cached_at;
static int have_cache;
static pid_t only[SERVE_PIDS_MAX];
static size_t n_only;

void
serve_procs_restrict (const pid_t *pids, size_t n)
{
  pthread_mutex_lock (&list_mutex);
  n_only = n < SERVE_PIDS_MAX ? n : SERVE_PIDS_MAX;
  memcpy (only, pids, n_only * sizeof *only);
  have_cache = 0;
  pthread_mutex_unlock (&list_mutex);
}

/* The first line of /proc/PID/NAME (its newline removed) into BUF of
   SIZE bytes; "" if it cannot be read. */
static void
proc_line (pid_t pid, const char *name, char *buf, size_t size)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, name);
  buf[0] = '\0';
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t n = read (fd, buf, size - 1);
  close (fd);
  buf[n > 0 ? n : 0] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
}

/* 1 if process PID holds the monitor's root, ready (the reader's target
   of its memory, the root by its symbol and its magic), and recording:
   a monitor `heapinspect attach` attached and then detached is not
   served, as an unmonitored process is not (its figures are frozen at
   the detach: served, they would chart a flat heap while the program's
   grows; left out, Prometheus marks its series stale). */
static int
monitored (pid_t pid)
{
  struct hi_target t;
  int found = 0;
  serve_reader_lock ();
  if (hi_target_open_maps ((int) pid, &t) == HI_OK)
    {
      uint64_t addr, magic;
      found = t.ops->lookup_symbol (t.ctx, "heapinspect_root", &addr) == 0
              && t.ops->read_memory (t.ctx, addr, &magic, sizeof magic) == 0
              && magic == HI_ROOT_MAGIC
              && hi_target_monitor_detached (&t) == 0;
      hi_target_close (&t);
    }
  serve_reader_unlock ();
  return found;
}

/* PID's entry in *P if it is monitored and readable: 1, else 0. */
static int
examine (pid_t pid, struct serve_proc *p)
{
  if (pid == getpid () || !monitored (pid))
    return 0;
  memset (p, 0, sizeof *p);
  p->pid = pid;
  proc_line (pid, "comm", p->comm, sizeof p->comm);
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/exe", (int) pid);
  ssize_t n = readlink (path, p->exe, sizeof p->exe - 1);
  p->exe[n > 0 ? n : 0] = '\0';
  return 1;
}

static int
by_pid (const void *a, const void *b)
{
  pid_t x = ((const struct serve_proc *) a)->pid;
  pid_t y = ((const struct serve_proc *) b)->pid;
  return (x > y) - (x < y);
}

/* A new listing into *OUT, *N: 0, or -1. */
static int
find (struct serve_proc **out, size_t *n)
{
  size_t cap = n_only > 16 ? n_only : 16, k = 0;
  struct serve_proc *v = malloc (cap * sizeof *v);
  if (!v)
    return -1;
  if (n_only)
    {
      for (size_t i = 0; i < n_only; i++)
        k += examine (only[i], &v[k]);
    }
  DIR *d = n_only ? NULL : opendir ("/proc");
  struct dirent *e;
  while (d && (e = readdir (d)))
    {
      if (!isdigit ((unsigned char) e->d_name[0]))
        continue;
      long pid = strtol (e->d_name, NULL, 10);
      if (pid <= 0)
        continue;
      if (k == cap)
        {
          struct serve_proc *bigger = realloc (v, 2 * cap * sizeof *v);
          if (!bigger)
            {
              closedir (d);
              free (v);
              return -1;
            }
          v = bigger;
          cap *= 2;
        }
      k += examine ((pid_t) pid, &v[k]);
    }
  if (d)
    closedir (d);
  qsort (v, k, sizeof *v, by_pid);
  *out = v;
  *n = k;
  return 0;
}

static double
age (const struct timespec *then)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  return (double) (now.tv_sec - then->tv_sec)
         + (double) (now.tv_nsec - then->tv_nsec) / 1e9;
}

int
serve_procs_list (struct serve_proc **out, size_t *n)
{
  pthread_mutex_lock (&list_mutex);
  if (!have_cache || age (&cached_at) >= 1.0)
    {
      struct serve_proc *v;
      size_t k;
      if (find (&v, &k) != 0)
        {
          pthread_mutex_unlock (&list_mutex);
          return -1;
        }
      free (cached);
      cached = v;
      n_cached = k;
      clock_gettime (CLOCK_MONOTONIC, &cached_at);
      have_cache = 1;
    }
  *out = malloc ((n_cached ? n_cached : 1) * sizeof **out);
  if (*out)
    memcpy (*out, cached, n_cached * sizeof **out);
  *n = n_cached;
  pthread_mutex_unlock (&list_mutex);
  return *out ? 0 : -1;
}

int
serve_proc_find (pid_t pid, struct serve_proc *out)
{
  struct serve_proc *v;
  size_t n;
  if (serve_procs_list (&v, &n) != 0)
    return 0;
  int found = 0;
  for (size_t i = 0; i < n && !found; i++)
    if (v[i].pid == pid)
      {
        *out = v[i];
        found = 1;
      }
  free (v);
  return found;
}

struct hi_model *
serve_read (pid_t pid, hi_status *st)
{
  struct hi_target t;
  struct hi_model *m = NULL;
  serve_reader_lock ();
  *st = hi_target_open_process ((int) pid, 0, &t);
  if (*st == HI_OK)
    {
      *st = hi_model_load (&t, &m);
      /* A process that allocated while it was read (HI_E_INCONSISTENT)
         is served all the same, as `heapinspect -p PID --no-stop`
         reports it with a warning. */
      hi_target_finish (&t);
      hi_target_close (&t);
    }
  serve_reader_unlock ();
  return m;
}

void
serve_read_failed (pid_t pid, hi_status st, struct serve_reply *r)
{
  int gone = st == HI_E_PROCESS || st == HI_E_NO_DATA
             || st == HI_E_NOT_READY || st == HI_E_UNREADABLE;
  serve_reply_text (r, gone ? 404 : 500, "process %d: %s", (int) pid,
                    gone ? "gone, or no longer readable" : hi_strerror (st));
}
