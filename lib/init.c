/* init.c - the monitor's life in the process: configuration and
   initialization, the fork and signal hooks, the snapshots it writes by
   itself (at exit, on an error, on a signal) and heapinspect_snapshot. */
#define _GNU_SOURCE
#include "monitor.h"
#include "attach.h"
#include "client.h"
#include "guard.h"
#include "modules.h"
#include "timeline.h"
#include "tools.h"
#include "heapinspect/heapinspect.h"
#include "common/output-name.h"

#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* VAR=VALUE: WHY, as one warning line. */
static void
warn_value (const char *var, const char *value, const char *why)
{
  const char *parts[] = { var, "=", value, ": ", why };
  hi_prim_warnv (parts, 5);
}

/* S as a decimal number from 1 to MAX, or -1. */
static long
parse_number (const char *s, long max)
{
  long v = 0;
  if (!*s)
    return -1;
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9')
        return -1;
      v = v * 10 + (*s - '0');
      if (v > max)
        return -1;
    }
  return v >= 1 ? v : -1;
}

#define HI_STR(x) HI_STR_ (x)
#define HI_STR_(x) #x

static int
parse_depth (const char *s)
{
  if (!s || !*s)
    return HI_DEFAULT_DEPTH;
  long v = parse_number (s, HI_MAX_DEPTH);
  if (v < 0)
    {
      warn_value ("HEAPINSPECT_DEPTH", s, "not a number from 1 to "
                  HI_STR (HI_MAX_DEPTH) "; using " HI_STR (HI_DEFAULT_DEPTH));
      return HI_DEFAULT_DEPTH;
    }
  return (int) v;
}

static const struct { const char *name; int sig; } signal_names[] = {
  { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
  { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "TERM", SIGTERM },
  { "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "URG", SIGURG },
};

/* HEAPINSPECT_SIGNAL: "USR1", "SIGUSR1" or a number of a signal the
   program can continue after; 0 if unset or refused (with a warning). */
static int
parse_signal (const char *s)
{
  if (!s || !*s)
    return 0;
  int sig = 0;
  if (*s >= '0' && *s <= '9')
    {
      long v = parse_number (s, hi_prim_signal_max ());
      if (v < 0)
        {
          warn_value ("HEAPINSPECT_SIGNAL", s, "not a signal number of this "
                      "system; no snapshot signal");
          return 0;
        }
      sig = (int) v;
    }
  else
    {
      const char *name = strncmp (s, "SIG", 3) == 0 ? s + 3 : s;
      for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (strcmp (name, signal_names[i].name) == 0)
          sig = signal_names[i].sig;
      if (!sig)
        {
          warn_value ("HEAPINSPECT_SIGNAL", s, "names no signal this monitor "
                      "knows (USR1, USR2, HUP, INT, QUIT, TERM, PROF, WINCH, "
                      "URG, or a number); no snapshot signal");
          return 0;
        }
    }
  if (sig == SIGKILL || sig == SIGSTOP)
    {
      warn_value ("HEAPINSPECT_SIGNAL", s, "this signal cannot be caught; "
                  "no snapshot signal");
      return 0;
    }
  if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL
      || sig == SIGTRAP || sig == SIGSYS || sig == SIGABRT)
    {
      warn_value ("HEAPINSPECT_SIGNAL", s, "a program cannot continue after "
                  "this signal; no snapshot signal");
      return 0;
    }
  return sig;
}

/* A snapshot (hi_snapshot_write), the quarantine checked first: writes
   into quarantined blocks since their free go into its errors. */
static int
write_snapshot (const char *path, int warn)
{
  hi_quarantine_check ();
  return hi_snapshot_write (path, warn);
}

/* 1 if this process writes the snapshots nobody asked for by a call or a
   signal of its own (at exit, on a fatal signal): all processes, or only
   the one HEAPINSPECT_ROOT_PID names. */
static int
automatic_snapshots (void)
{
  return hi_state.output[0]
         && (hi_state.root_pid == 0
             || (uint64_t) hi_state.root_pid == hi_prim_pid ());
}

/* Refresh the module list, then write: for snapshots outside signal
   handlers (dl_iterate_phdr is not async-signal-safe). */
static int
snapshot_now (const char *path, int warn)
{
  hi_tls.busy++;
  hi_modules_refresh ();
  int r = write_snapshot (path, warn);
  hi_tls.busy--;
  return r;
}

static void
on_snapshot_signal (int sig)
{
  (void) sig;
  int saved = errno;
  hi_tls.busy++;
  if (hi_state.output[0])
    write_snapshot (hi_state.output, 1);
  hi_tls.busy--;
  errno = saved;
}

/* HEAPINSPECT_ON_SIGNAL=snapshot: a snapshot, then the signal's default
   action (the program dies of it, as it would have). */
static void
on_fatal_signal (int sig)
{
  hi_tls.busy++;
  if (automatic_snapshots ())
    write_snapshot (hi_state.output, 1);
  hi_tls.busy--;
  hi_prim_signal_reraise (sig);
}

static void
fork_prepare (void)
{
  hi_pools_fork (0);     /* the client API's locks come first */
  hi_types_fork (0);
  hi_guard_fork_prepare ();
  hi_lock_acquire (&hi_state.module_lock);
  hi_lock_acquire (&hi_state.table_lock);
  hi_lock_acquire (&hi_state.commit_lock);
}

static void
fork_parent (void)
{
  hi_lock_release (&hi_state.commit_lock);
  hi_lock_release (&hi_state.table_lock);
  hi_lock_release (&hi_state.module_lock);
  hi_guard_fork_parent ();
  hi_types_fork (1);
  hi_pools_fork (1);
}

static void
fork_child (void)
{
  hi_guard_fork_child ();
  /* Only this thread exists now; the child keeps its own copy of every
     counter and writes its own snapshot (named by its pid). */
  hi_state.table_lock.word = 0;
  hi_state.module_lock.word = 0;
  hi_state.commit_lock.word = 0;
  hi_state.sole_lock.word = 0;
  hi_types_fork (2);
  hi_pools_fork (2);
  heapinspect_root.pid = hi_prim_pid ();
  if (hi_state.process)
    {
      hi_process_forked (hi_state.process);
      hi_state.start_ns = hi_state.process->start_monotonic_ns;
    }
  else
    hi_state.start_ns = hi_prim_monotonic_ns ();
  hi_timeline_forked ();
}

static void
configure (void)
{
  hi_state.depth = parse_depth (hi_prim_getenv ("HEAPINSPECT_DEPTH"));
  const char *check = hi_prim_getenv ("HEAPINSPECT_CHECK_UNWIND");
  hi_state.check_unwind = check && check[0] == '1';
  const char *on = hi_prim_getenv ("HEAPINSPECT_ON_SIGNAL");
  if (on && strcmp (on, "snapshot") == 0)
    hi_state.on_signal = 1;
  else if (on && *on)
    warn_value ("HEAPINSPECT_ON_SIGNAL", on, "the only value is "
                "\"snapshot\"; ignored");
  hi_leak_stop_configure ();
  const char *root = hi_prim_getenv ("HEAPINSPECT_ROOT_PID");
  if (root && *root)
    {
      hi_state.root_pid = parse_number (root, 0x7fffffffL);
      if (hi_state.root_pid < 0)
        {
          warn_value ("HEAPINSPECT_ROOT_PID", root, "not a process id; "
                      "every process writes its snapshot");
          hi_state.root_pid = 0;
        }
    }
  hi_set_output (hi_prim_getenv ("HEAPINSPECT_OUTPUT"));
}

void
hi_set_output (const char *out)
{
  if (!out || !*out)
    out = "heapinspect.%p.hip";
  /* A privileged program writes no file where its invoking user points
     it, not even the default name in a directory that user chose. */
  if (strcmp (out, "none") == 0 || hi_prim_secure ())
    out = "";
  /* A relative name is relative to the directory the program started in,
     wherever it has moved to by exit. */
  size_t dir = 0;
  if (out[0] && out[0] != '/'
      && hi_prim_getcwd (hi_state.output, sizeof hi_state.output - 1) == 0)
    {
      dir = strlen (hi_state.output);
      hi_state.output[dir++] = '/';
    }
  if (dir + strlen (out) >= sizeof hi_state.output)
    {
      /* Said as a failed snapshot would say it (none will be written). */
      const char *parts[] = { "cannot write the snapshot: HEAPINSPECT_OUTPUT=",
                              out, ": the file name is too long" };
      hi_prim_warnv (parts, 3);
      dir = 0;
      out = "";
    }
  strcpy (hi_state.output + dir, out);
  hi_prim_keep_own_fd (hi_state.output);
}

static int
init_once (void)
{
  struct hi_root *r = &heapinspect_root;
  /* First, before anything here may allocate: every block from now on
     has a birth stamp, or none does. */
  const char *life = hi_prim_getenv ("HEAPINSPECT_LIFETIMES");
  if (life && strcmp (life, "1") == 0)
    {
      hi_state.birth = sizeof (struct hi_block_birth);
      r->time_flags = HI_TIME_LIFETIMES;
      r->birth_size = (uint32_t) hi_state.birth;
    }
  else if (life && *life && strcmp (life, "0") != 0)
    warn_value ("HEAPINSPECT_LIFETIMES", life, "the values are 1 and 0; "
                "no lifetimes");
  hi_guard_configure ();     /* the redzone: fixed before any block too */
  hi_state.site_time_size = hi_state.birth ? sizeof (struct hi_site_life)
                                           : sizeof (struct hi_site_time);
  hi_prim_malloc_extra (sizeof (struct hi_block_header) + hi_state.birth);
  r->header_salt = hi_prim_random32 ();
  r->pointer_size = sizeof (void *);
  r->byte_order = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                  ? HI_ORDER_LITTLE : HI_ORDER_BIG;
  r->root_size = sizeof *r;
  r->version = HI_FORMAT_VERSION;
  r->pid = hi_prim_pid ();
  configure ();
  r->max_depth = (uint16_t) hi_state.depth;

  hi_state.nodes = hi_arena_add (HI_A_NODES, HI_ARENA_NODES, HI_CAP_NODES,
                                 sizeof (struct hi_node));
  hi_state.sites = hi_arena_add (HI_A_SITES, HI_ARENA_SITES, HI_CAP_SITES,
                                 sizeof (struct hi_site));
  hi_state.threads = hi_arena_add (HI_A_THREADS, HI_ARENA_THREADS,
                                   HI_CAP_THREADS, sizeof (struct hi_thread));
  hi_state.modules = hi_arena_add (HI_A_MODULES, HI_ARENA_MODULES,
                                   HI_CAP_MODULES, sizeof (struct hi_module));
  /* The pair index is used whole from the start: readable at once. */
  struct hi_hash *h = hi_arena_add (HI_A_HASH, HI_ARENA_HASH,
                                    HI_HASH_FIRST + 2, sizeof (uint32_t));
  hi_state.site_time = hi_arena_add (HI_A_SITE_TIME, HI_ARENA_SITE_TIME,
                                     HI_CAP_SITES,
                                     (uint32_t) hi_state.site_time_size);
  hi_state.thread_time = hi_arena_add (HI_A_THREAD_TIME, HI_ARENA_THREAD_TIME,
                                       HI_CAP_THREADS,
                                       sizeof (struct hi_thread_time));
  hi_state.timeline = hi_arena_add (HI_A_TIMELINE, HI_ARENA_TIMELINE, 1,
                                    sizeof (struct hi_timeline));
  /* The client API's types: optional, as the process record. */
  hi_state.types.recs = hi_arena_add (HI_A_TYPES, HI_ARENA_TYPES,
                                      HI_CAP_TYPE_RECS,
                                      sizeof (struct hi_type_rec));
  if (hi_state.types.recs && hi_arena_commit (HI_A_TYPES, 1) == 0)
    hi_arena_at (HI_A_TYPES)->count = 1;
  else
    hi_state.types.recs = NULL;
  hi_state.pools.arena = hi_arena_add (HI_A_POOLS, HI_ARENA_POOLS,
                                       HI_POOLS_MAX, sizeof (struct hi_pool));
  r->n_arenas = HI_A_COUNT;
  r->client[HI_CLIENT_PRIVATE] = hi_prim_private_base ();
  if (!hi_state.nodes || !hi_state.sites || !hi_state.threads
      || !hi_state.modules || !h
      || !hi_state.site_time || !hi_state.thread_time || !hi_state.timeline
      || hi_arena_commit (HI_A_HASH, HI_HASH_FIRST + 2) != 0
      || hi_arena_commit (HI_A_NODES, 2) != 0
      || hi_arena_commit (HI_A_SITES, 1) != 0
      || hi_arena_commit (HI_A_SITE_TIME, 1) != 0
      || hi_arena_commit (HI_A_TIMELINE, 1) != 0)
    return -1;
  hi_arena_at (HI_A_SITE_TIME)->count = 1;
  hi_arena_at (HI_A_TIMELINE)->count = 1;
  /* Without membarrier(2), every thread updates the totals atomically. */
  atomic_store (&hi_state.sole, hi_prim_barrier_setup () == 0);
  h->mask = HI_HASH_FIRST - 1;
  atomic_store (&hi_state.hash, h);
  /* Node 0 is the root, node 1 the parent of cut chains; site 0 gathers
     allocations whose chain was not recorded. */
  hi_state.nodes[HI_NODE_CUT].parent = HI_NODE_ROOT;
  r->arenas[HI_A_NODES].count = 2;
  r->arenas[HI_A_SITES].count = 1;
  r->arenas[HI_A_HASH].count = HI_HASH_FIRST + 2;
  if (hi_guard_arenas () != 0)
    return -1;
  /* The process record is not needed for profiling: without it, readers
     say the command and run time were not recorded. */
  struct hi_process *p = hi_arena_add (HI_A_PROCESS, HI_ARENA_PROCESS, 1,
                                       sizeof (struct hi_process));
  if (p && hi_arena_commit (HI_A_PROCESS, 1) == 0)
    {
      hi_process_record (p);
      if (atomic_load (&hi_state.attach) != HI_ATTACH_NONE)
        hi_process_attached (p);
      hi_state.process = p;
      r->arenas[HI_A_PROCESS].count = 1;
      hi_state.start_ns = p->start_monotonic_ns;
    }
  else
    hi_state.start_ns = hi_prim_monotonic_ns ();
  return 0;
}

/* Hooks that may allocate inside libc; called with hi_tls.busy set so
   those allocations are the monitor's own. */
static void
install_hooks (void)
{
  hi_prim_atfork (fork_prepare, fork_parent, fork_child);
  hi_state.snapshot_signal
    = parse_signal (hi_prim_getenv ("HEAPINSPECT_SIGNAL"));
  if (hi_state.snapshot_signal > 0)
    hi_prim_signal_catch (hi_state.snapshot_signal, on_snapshot_signal);
  hi_fatal_signals (1);
}

void
hi_fatal_signals (int catch)
{
  static const int fatal[] = { SIGTERM, SIGINT, SIGHUP };
  for (size_t i = 0; hi_state.on_signal && i < sizeof fatal / sizeof *fatal;
       i++)
    if (fatal[i] == hi_state.snapshot_signal)
      continue;
    else if (catch && hi_prim_signal_is_default (fatal[i]))
      hi_prim_signal_catch (fatal[i], on_fatal_signal);
    else if (!catch && hi_prim_signal_is (fatal[i], on_fatal_signal))
      hi_prim_signal_default (fatal[i]);
}

int
hi_ensure_init_slow (void)
{
  int s = atomic_load_explicit (&hi_init_state, memory_order_acquire);
  if (HI_LIKELY (s == HI_INIT_READY))
    return 1;
  if (s == HI_INIT_FAILED || s == HI_INIT_DORMANT)
    return 0;
  int expect = HI_INIT_NONE;
  if (atomic_compare_exchange_strong (&hi_init_state, &expect, HI_INIT_BUSY))
    {
      hi_tls.busy++;
      int ok = init_once () == 0;
      if (ok)
        {
          heapinspect_root.ready = 1;
          HI_STORE_REL (heapinspect_root.magic, HI_ROOT_MAGIC);
        }
      else
        {
          hi_arenas_release ();
          hi_prim_warn ("cannot reserve memory for the monitor; "
                        "not profiling");
        }
      atomic_store_explicit (&hi_init_state,
                             ok ? HI_INIT_READY : HI_INIT_FAILED,
                             memory_order_release);
      if (ok)
        {
          install_hooks ();
          hi_jit_register ();
        }
      hi_tls.busy--;
      return ok;
    }
  if (expect == HI_INIT_BUSY && hi_tls.busy)
    return 0;   /* nested call during our own initialization */
  while ((s = atomic_load_explicit (&hi_init_state, memory_order_acquire))
         == HI_INIT_BUSY)
    ;
  return s == HI_INIT_READY;
}

#ifdef HI_WRAP
int
hi_interposing (void)
{
  return 1;
}
#else
struct load_order
{
  int at, self, libc;
};

static int
note_order (struct dl_phdr_info *obj, size_t size, void *arg)
{
  (void) size;
  struct load_order *o = arg;
  uint64_t own = (uint64_t) (uintptr_t) hi_own_malloc;
  for (int i = 0; i < obj->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &obj->dlpi_phdr[i];
      if (ph->p_type == PT_LOAD && own >= obj->dlpi_addr + ph->p_vaddr
          && own < obj->dlpi_addr + ph->p_vaddr + ph->p_memsz)
        o->self = o->at;
    }
  const char *name = obj->dlpi_name ? strrchr (obj->dlpi_name, '/') : NULL;
  if (name && strcmp (name + 1, "libc.so.6") == 0 && o->libc < 0)
    o->libc = o->at;
  o->at++;
  return 0;
}

/* The loader's list is in load order: the program, the preloaded
   objects, the needed ones breadth first, then those dlopen'd.  This
   library's malloc is the process's when it comes before libc's (the
   binding of the name itself would not tell: in a program built
   without -pie that takes malloc's address, every object's malloc is
   the program's PLT entry). */
int
hi_interposing (void)
{
  struct load_order o = { 0, -1, -1 };
  dl_iterate_phdr (note_order, &o);
  return o.self >= 0 && (o.libc < 0 || o.self < o.libc);
}
#endif

int
hi_start_attached (void)
{
  int dormant = HI_INIT_DORMANT;
  if (!atomic_compare_exchange_strong (&hi_init_state, &dormant,
                                       HI_INIT_NONE))
    return 0;
  atomic_store (&hi_state.attach, HI_ATTACH_ON);
  if (hi_ensure_init ())
    return 1;
  atomic_store (&hi_state.attach, HI_ATTACH_NONE);
  return 0;
}

/* Set up at load, not at the first allocation: the signal handlers and
   the exit snapshot do not wait for the program to allocate.  A monitor
   dlopen'd into a running program (its malloc is not the process's)
   stays dormant until heapinspect_attach: the program's blocks from
   before have no headers, and its environment is not the monitor's
   settings. */
__attribute__ ((constructor)) static void
init_at_load (void)
{
  int none = HI_INIT_NONE;
  /* Preloaded, the program's first malloc (in libc's start, before this
     constructor) has started the monitor already. */
  if (atomic_load (&hi_init_state) == HI_INIT_NONE && !hi_interposing ())
    atomic_compare_exchange_strong (&hi_init_state, &none, HI_INIT_DORMANT);
  else
    hi_ensure_init ();
}

void
hi_error_snapshot (void)
{
  if (atomic_load (&hi_init_state) == HI_INIT_READY && automatic_snapshots ())
    snapshot_now (hi_state.output, 1);
}

static void
write_exit_snapshot (void *unused)
{
  (void) unused;
  if (atomic_load (&hi_init_state) != HI_INIT_READY)
    return;
  /* Heap errors first: `run --leak-check` then reads them too. */
  hi_guard_exit_check ();
  hi_leak_stop_at_exit ();
  /* Rewritten if exit() frees after this, unless the file is a pipe or
     a device: a second snapshot would follow the first in its stream. */
  if (automatic_snapshots () && snapshot_now (hi_state.output, 1) == 0
      && !hi_state.wrote_in_place)
    hi_tls.exit_writer = 1;
  hi_guard_exit_act ();
}

int
hi_auto_snapshot_path (char *buf, size_t cap)
{
  if (!automatic_snapshots ()
      || hi_expand_output (buf, cap, hi_state.output,
                           (long) hi_prim_pid ()) < 0)
    return -1;
  return 0;
}

void
hi_exit_changed (void)
{
  /* Only exit()'s last steps come here: a few frees.  The cap keeps a
     program that goes on allocating in its exiting thread (an exit
     handler of a library unknown to us) from rewriting without end. */
  if (hi_tls.busy || hi_state.exit_rewrites <= 0)
    return;
  hi_state.exit_rewrites--;
  hi_tls.busy++;
  write_snapshot (hi_state.output, 1);
  hi_tls.busy--;
}

__attribute__ ((visibility ("default"))) int
heapinspect_snapshot (const char *path)
{
  if (!hi_ensure_init ())
    {
      errno = EAGAIN;
      return -1;
    }
  if (!path && !hi_state.output[0])
    {
      errno = EINVAL;     /* HEAPINSPECT_OUTPUT=none */
      return -1;
    }
  return snapshot_now (path ? path : hi_state.output, 0);
}

/* The loader runs this destructor before those of libraries loaded after
   the monitor, and exit handlers may still free.  exit() calls handlers
   registered while it runs once the current one returns, and the
   loader's destructor pass is itself an exit handler registered before
   the program's, so a handler registered here (for no DSO: no
   __cxa_finalize runs it early) comes after every destructor and every
   other handler.  exit() may still free its own blocks of handlers
   after it: the exiting thread then writes again (hi_exit_changed). */
__attribute__ ((destructor)) static void
at_exit_snapshot (void)
{
  hi_tls.busy++;      /* the handler list may grow: libc's allocation */
  int r = hi_prim_at_exit (write_exit_snapshot, NULL);
  hi_tls.busy--;
  if (r != 0)
    write_exit_snapshot (NULL);   /* exit handlers are done already */
}
