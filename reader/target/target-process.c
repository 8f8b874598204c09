/* target-process.c - a live process as a target: /proc/PID/mem, with its
   threads stopped by ptrace (seize + interrupt) only while it is read. */
#define _GNU_SOURCE
#include "common/clock.h"
#include "util/errors.h"
#include "util/vec.h"
#include "target/target.h"
#include "hi-reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct process
{
  int pid, mem;
  int no_vm_readv;           /* process_vm_readv refused: pread only */
  struct hi_mapping *maps;
  char *writable;
  uint32_t *prot;            /* HI_MAP_* of each map */
  size_t nmaps;
  size_t *wmaps;             /* indexes of the writable maps, once asked */
  size_t nwmaps;
  int *tids;                 /* seized threads */
  int *sigs;                 /* the signal each was stopped with, if it
                                was a signal's stop: passed on at detach */
  size_t ntids, cap_tids, cap_sigs;
  int held;                  /* the thread the caller holds stopped
                                (hi_target_open_stopped), or 0 */
  struct hi_thread_regs *regs; /* every stopped thread's, read at once */
  size_t nregs;
  int stop;
  uint64_t root;             /* for the --no-stop consistency check */
  struct digest *before;
};

/* What the report sums, to tell whether the process changed while it
   was read without being stopped: the totals, the tables' counts, and
   each thread record's counters (the threads count allocations and frees
   apart, so the totals alone may not move). */
struct digest
{
  struct hi_totals totals;
  uint64_t counts[HI_MAX_ARENAS + HI_MAX_MORE_ARENAS];
  uint64_t threads[8 + HI_NCALLS];
};

static int
proc_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct process *p = ctx;
  char *out = buf;
  /* process_vm_readv first: a third faster than /proc/PID/mem for the
     reachability scan's large reads.  It stops at a page it may not
     read (PROT_NONE: /proc/PID/mem reads those as the tracer) or where it
     is refused: the rest goes through /proc/PID/mem. */
  if (!p->no_vm_readv)
    {
      struct iovec local = { out, len };
      struct iovec remote = { (void *) (uintptr_t) addr, len };
      ssize_t n = process_vm_readv (p->pid, &local, 1, &remote, 1, 0);
      if (n < 0 && (errno == ENOSYS || errno == EPERM))
        p->no_vm_readv = 1;
      if (n > 0)
        {
          out += n;
          addr += (uint64_t) n;
          len -= (size_t) n;
        }
    }
  while (len > 0)
    {
      ssize_t n = pread (p->mem, out, len, (off_t) addr);
      if (n <= 0)
        return -1;
      out += n;
      addr += (uint64_t) n;
      len -= (size_t) n;
    }
  return 0;
}

static int proc_read (void *ctx, uint64_t addr, void *buf, size_t len);

/* Read D from the process at ROOT; 0, or -1 if it cannot be read. */
static int
take_digest (struct process *p, struct digest *d)
{
  struct hi_root r;
  memset (d, 0, sizeof *d);
  if (proc_read (p, p->root, &r, sizeof r) != 0
      || r.n_arenas > HI_MAX_ARENAS + HI_MAX_MORE_ARENAS)
    return -1;
  d->totals = r.totals;
  for (uint32_t i = 0; i < r.n_arenas; i++)
    {
      /* Format 4 lists arenas beyond the first 8 in more_arenas. */
      const struct hi_arena_desc *a = i < HI_MAX_ARENAS ? &r.arenas[i]
                                      : &r.more_arenas[i - HI_MAX_ARENAS];
      d->counts[i] = a->count;
      if (a->kind != HI_ARENA_THREADS || a->entry_size != sizeof (struct hi_thread)
          || a->count > 65536)
        continue;
      for (uint64_t t = 0; t < a->count; t++)
        {
          /* The counters up to the bins, which they sum. */
          struct hi_thread th;
          if (proc_read (p, a->addr + t * sizeof th, &th,
                         offsetof (struct hi_thread, bins)) != 0)
            return -1;
          uint64_t v[8 + HI_NCALLS] = { th.tid, th.chains, th.frames,
                                        th.frames_cached, th.allocations,
                                        th.frees, th.bytes_allocated,
                                        th.bytes_freed };
          memcpy (v + 8, th.calls, sizeof th.calls);
          for (size_t k = 0; k < 8 + HI_NCALLS; k++)
            d->threads[k] += v[k];
        }
    }
  return 0;
}

static int
proc_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct process *p = ctx;
  return hi_find_symbol_in_mappings (p->maps, p->nmaps, NULL, name, addr);
}

static int
proc_region (void *ctx, size_t i, uint64_t *addr, uint64_t *size)
{
  struct process *p = ctx;
  /* Index the writable maps once: a scan asks for each in turn. */
  if (!p->wmaps)
    {
      p->wmaps = malloc ((p->nmaps + 1) * sizeof *p->wmaps);
      if (!p->wmaps)
        return -1;
      for (size_t k = 0; k < p->nmaps; k++)
        if (p->writable[k])
          p->wmaps[p->nwmaps++] = k;
    }
  if (i >= p->nwmaps)
    return -1;
  *addr = p->maps[p->wmaps[i]].start;
  *size = p->maps[p->wmaps[i]].end - p->maps[p->wmaps[i]].start;
  return 0;
}

static void
detach_all (struct process *p)
{
  for (size_t i = 0; i < p->ntids; i++)
    ptrace (PTRACE_DETACH, p->tids[i], NULL, (void *) (long) p->sigs[i]);
  p->ntids = 0;
}

static hi_status
proc_finish (void *ctx)
{
  struct process *p = ctx;
  detach_all (p);
  struct digest after;
  if (!p->stop && p->before
      && (take_digest (p, &after) != 0
          || memcmp (&after, p->before, sizeof after) != 0))
    return HI_E_INCONSISTENT;
  return HI_OK;
}

static void
proc_close (void *ctx)
{
  struct process *p = ctx;
  detach_all (p);
  for (size_t i = 0; i < p->nmaps; i++)
    free ((char *) p->maps[i].path);
  free (p->maps);
  free (p->writable);
  free (p->prot);
  free (p->regs);
  free (p->wmaps);
  free (p->tids);
  free (p->sigs);
  free (p->before);
  if (p->mem >= 0)
    close (p->mem);
  free (p);
}

static int
proc_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  struct process *p = ctx;
  if (i >= p->nmaps)
    return -1;
  const struct hi_mapping *m = &p->maps[i];
  memset (out, 0, sizeof *out);
  out->start = m->start;
  out->end = m->end;
  out->prot = p->prot[i];
  /* The kernel shows a file's offset for anonymous maps too (the page
     offset of the region); the contract says 0 for them. */
  out->file_offset = m->path && m->path[0] == '/' ? m->offset : 0;
  /* The kernel's own pages cannot be read through /proc/PID/mem. */
  out->in_target = !m->path || (strncmp (m->path, "[vvar", 5) != 0
                                && strcmp (m->path, "[vsyscall]") != 0);
  if (m->path)
    snprintf (out->path, sizeof out->path, "%s", m->path);
  return 0;
}

static int
proc_thread_regs (void *ctx, size_t i, struct hi_thread_regs *out)
{
  struct process *p = ctx;
  if (i >= p->nregs)
    return -1;
  *out = p->regs[i];
  return 0;
}

static const struct hi_target_ops process_ops = {
  proc_read, proc_symbol, proc_close, proc_region, proc_finish,
  proc_mapping, proc_thread_regs
};

/* What the process maps readable (/proc/PID/maps). */
int
hi_target_process_backed (const struct hi_target *t, uint64_t *bytes)
{
  if (t->ops != &process_ops)
    return -1;
  const struct process *p = t->ctx;
  *bytes = 0;
  for (size_t i = 0; i < p->nmaps; i++)
    if (p->prot[i] & HI_MAP_READ)
      *bytes += p->maps[i].end - p->maps[i].start;
  return 0;
}

/* 1 if process PID has this process's CLOCK_MONOTONIC: the same time
   namespace (or a kernel without them). */
static int
same_clock (int pid)
{
  char path[64], mine[64], theirs[64];
  snprintf (path, sizeof path, "/proc/%d/ns/time", pid);
  ssize_t a = readlink ("/proc/self/ns/time", mine, sizeof mine);
  ssize_t b = readlink (path, theirs, sizeof theirs);
  if (a < 0 && b < 0)
    return 1;
  return a > 0 && a == b && memcmp (mine, theirs, (size_t) a) == 0;
}

int
hi_target_process_time (const struct hi_target *t, uint64_t *realtime_ns,
                        uint64_t *monotonic_ns)
{
  if (t->ops != &process_ops)
    return -1;
  *realtime_ns = hi_clock_ns (CLOCK_REALTIME);
  *monotonic_ns = same_clock (((const struct process *) t->ctx)->pid)
                  ? hi_clock_ns (CLOCK_MONOTONIC) : 0;
  return 0;
}

static int
read_maps (struct process *p)
{
  char path[64], line[4096 + 128];
  snprintf (path, sizeof path, "/proc/%d/maps", p->pid);
  FILE *f = fopen (path, "re");
  if (!f)
    {
      if (errno == ENOENT)
        errno = ESRCH;        /* /proc/PID gone: the process is */
      return -1;
    }
  size_t cap_maps = 0, cap_writable = 0, cap_prot = 0;
  while (fgets (line, sizeof line, f))
    {
      unsigned long long start, end, offset;
      char perms[8];
      int name_at = 0;
      if (sscanf (line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
                  &offset, &name_at) < 4)
        continue;
      size_t need = p->nmaps + 1;
      if (hi_grow ((void **) &p->maps, &cap_maps, need, sizeof *p->maps) != 0
          || hi_grow ((void **) &p->writable, &cap_writable, need, 1) != 0
          || hi_grow ((void **) &p->prot, &cap_prot, need,
                      sizeof *p->prot) != 0)
        break;
      char *name = name_at ? line + name_at : NULL;
      if (name)
        name[strcspn (name, "\n")] = '\0';
      p->maps[p->nmaps] = (struct hi_mapping) { start, end, offset,
                                                name && *name ? strdup (name)
                                                              : NULL };
      p->prot[p->nmaps] = (perms[0] == 'r' ? HI_MAP_READ : 0)
                          | (perms[1] == 'w' ? HI_MAP_WRITE : 0)
                          | (perms[2] == 'x' ? HI_MAP_EXEC : 0);
      p->writable[p->nmaps++] = perms[1] == 'w';
    }
  fclose (f);
  return 0;
}

/* Seize and interrupt every thread but P->held, until no new one
   appears. */
static int
stop_all (struct process *p)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/task", p->pid);
  for (int round = 0, added = 1; added && round < 100; round++)
    {
      added = 0;
      DIR *d = opendir (path);
      if (!d)
        {
          if (errno == ENOENT)
            errno = ESRCH;
          return -1;
        }
      struct dirent *e;
      while ((e = readdir (d)) != NULL)
        {
          int tid = atoi (e->d_name);
          int known = tid <= 0 || tid == p->held;
          for (size_t i = 0; i < p->ntids && !known; i++)
            known = p->tids[i] == tid;
          if (known)
            continue;
          if (hi_grow ((void **) &p->tids, &p->cap_tids, p->ntids + 1,
                       sizeof *p->tids) != 0
              || hi_grow ((void **) &p->sigs, &p->cap_sigs, p->ntids + 1,
                          sizeof *p->sigs) != 0)
            break;
          if (ptrace (PTRACE_SEIZE, tid, NULL, NULL) != 0)
            {
              /* Gone, or (held) dying: a thread killed by the exit of
                 its group cannot be seized any more. */
              if (errno == ESRCH || (p->held && errno == EPERM))
                continue;
              int err = errno;
              closedir (d);
              errno = err;
              return -1;
            }
          p->tids[p->ntids] = tid;
          p->sigs[p->ntids++] = 0;
          added = 1;
          int status;
          if (ptrace (PTRACE_INTERRUPT, tid, NULL, NULL) == 0
              && waitpid (tid, &status, __WALL) == tid && WIFSTOPPED (status)
              && status >> 16 == 0)
            /* A signal's stop came first: it is the thread's, not ours
               to swallow. */
            p->sigs[p->ntids - 1] = WSTOPSIG (status);
        }
      closedir (d);
    }
  return 0;
}

/* Store the registers of thread TID (stopped, traced by us) in P->regs;
   a thread that died meanwhile is left out. */
static void
take_regs (struct process *p, int tid)
{
  struct user_regs_struct u;
  if (ptrace (PTRACE_GETREGS, tid, NULL, &u) != 0)
    return;
  struct hi_thread_regs *r = &p->regs[p->nregs++];
  memset (r, 0, sizeof *r);
  r->tid = (uint64_t) tid;
  r->sp = u.rsp;
  r->fs_base = u.fs_base;
  _Static_assert (sizeof u / sizeof (uint64_t) <= HI_THREAD_REGS_MAX,
                  "user_regs_struct fits hi_thread_regs");
  r->n_regs = sizeof u / sizeof (uint64_t);
  memcpy (r->regs, &u, sizeof u);
}

/* Every stopped thread's registers, the held one first: taken at once,
   so they stay known after the threads run again. */
static int
take_all_regs (struct process *p)
{
  p->regs = calloc (p->ntids + 1, sizeof *p->regs);
  if (!p->regs)
    return -1;
  if (p->held)
    take_regs (p, p->held);
  for (size_t i = 0; i < p->ntids; i++)
    take_regs (p, p->tids[i]);
  return 0;
}

/* A zeroed record for process PID, or NULL if out of memory. */
static struct process *
proc_new (int pid)
{
  struct process *p = calloc (1, sizeof *p);
  if (p)
    p->pid = pid;
  return p;
}

/* Opens P's memory file into p->mem: 0, or -1 with errno set. */
static int
open_mem (struct process *p)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/mem", p->pid);
  p->mem = open (path, O_RDONLY | O_CLOEXEC);
  return p->mem < 0 ? -1 : 0;
}

/* Closes P after a failed step of an open: HI_E_PROCESS with that
   step's errno, said as what to do where it is a refusal. */
static hi_status
open_failed (struct process *p)
{
  int err = errno, pid = p->pid;
  p->mem = -1;
  proc_close (p);
  if (err != EPERM && err != EACCES)
    return hi_fail (HI_E_PROCESS, err);
  char why[256];
  hi_ptrace_refusal (pid, err, why, sizeof why);
  return hi_fail_text (HI_E_PROCESS, "%s", why);
}

/* Hands the open process P to OUT. */
static hi_status
opened (struct process *p, struct hi_target *out)
{
  out->ops = &process_ops;
  out->ctx = p;
  out->thread_db = 1;
  return HI_OK;
}

hi_status
hi_target_open_process (int pid, int stop, struct hi_target *out)
{
  hi_error_reset ();
  struct process *p = proc_new (pid);
  if (!p)
    return HI_E_NOMEM;
  p->stop = stop;
  /* The maps once every thread stands still: none can map more. */
  if ((stop && (stop_all (p) != 0 || take_all_regs (p) != 0))
      || read_maps (p) != 0 || open_mem (p) != 0)
    return open_failed (p);
  if (!stop && proc_symbol (p, "heapinspect_root", &p->root) == 0)
    {
      p->before = malloc (sizeof *p->before);
      if (p->before && take_digest (p, p->before) != 0)
        {
          free (p->before);
          p->before = NULL;
        }
    }
  return opened (p, out);
}

hi_status
hi_target_open_stopped (int pid, struct hi_target *out)
{
  /* p->stop stays 0 and p->root 0, so finish makes no consistency
     check: the caller's stop keeps the memory still.  The other threads
     are stopped here too, for their registers (the reachability scan's
     roots), and let go at finish or close; the held one stays the
     caller's. */
  hi_error_reset ();
  struct process *p = proc_new (pid);
  if (!p)
    return HI_E_NOMEM;
  p->held = pid;
  /* Threads that cannot be stopped only leave their registers out: the
     heap is read all the same. */
  int unused = stop_all (p);
  (void) unused;
  if (take_all_regs (p) != 0 || read_maps (p) != 0 || open_mem (p) != 0)
    return open_failed (p);
  return opened (p, out);
}

hi_status
hi_target_open_maps (int pid, struct hi_target *out)
{
  hi_error_reset ();
  struct process *p = proc_new (pid);
  if (!p)
    return HI_E_NOMEM;
  if (read_maps (p) != 0 || open_mem (p) != 0)
    return open_failed (p);
  hi_status st = opened (p, out);
  out->thread_db = 0;           /* gdb holds it, with its own */
  return st;
}
