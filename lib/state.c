/* state.c - the root, the arenas, configuration, and process-lifetime hooks
   (initialization, fork, exit snapshot, snapshot signal). */
#define _GNU_SOURCE
#include "monitor.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__ ((visibility ("default"))) struct hi_root heapinspect_root;
HI_HIDDEN struct hi_state hi_state;
__thread struct hi_tls hi_tls __attribute__ ((tls_model ("initial-exec")));

#ifdef HI_WRAP
HI_HIDDEN _Atomic int hi_unwind_ready;
__attribute__ ((constructor)) static void
allow_unwinding (void)
{
  atomic_store (&hi_unwind_ready, 1);
}
#else
HI_HIDDEN _Atomic int hi_unwind_ready = 1;
#endif

enum { ST_NONE, ST_BUSY, ST_READY, ST_FAILED };
static _Atomic int init_state;

static void *
add_arena (int index, uint32_t kind, uint64_t capacity, uint32_t entry_size)
{
  void *p = hi_prim_reserve ((size_t) capacity * entry_size);
  struct hi_arena_desc *a = &heapinspect_root.arenas[index];
  a->addr = (uint64_t) (uintptr_t) p;
  a->capacity = p ? capacity : 0;
  a->count = 0;
  a->kind = kind;
  a->entry_size = entry_size;
  return p;
}

static int
parse_uint (const char *s, long max, long fallback)
{
  long v = 0;
  if (!s || !*s)
    return (int) fallback;
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9' || v > max)
        return (int) fallback;
      v = v * 10 + (*s - '0');
    }
  return v < 1 ? 1 : v > max ? (int) max : (int) v;
}

static const struct { const char *name; int sig; } signal_names[] = {
  { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
  { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "TERM", SIGTERM },
  { "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "URG", SIGURG },
};

/* "USR1", "SIGUSR1" or a number; 0 if none or unknown. */
static int
parse_signal (const char *s)
{
  if (!s || !*s)
    return 0;
  if (*s >= '0' && *s <= '9')
    return parse_uint (s, 64, 0);
  if (strncmp (s, "SIG", 3) == 0)
    s += 3;
  for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
    if (strcmp (s, signal_names[i].name) == 0)
      return signal_names[i].sig;
  hi_prim_warn ("HEAPINSPECT_SIGNAL names no signal this monitor knows; ignored");
  return 0;
}

static void
on_snapshot_signal (int sig)
{
  (void) sig;
  hi_tls.busy++;
  hi_snapshot_write (hi_state.output, 1);
  hi_tls.busy--;
}

static void
fork_prepare (void)
{
  hi_lock_acquire (&hi_state.module_lock);
  hi_lock_acquire (&hi_state.table_lock);
}

static void
fork_parent (void)
{
  hi_lock_release (&hi_state.table_lock);
  hi_lock_release (&hi_state.module_lock);
}

static void
fork_child (void)
{
  /* Only this thread exists now; the child keeps its own copy of every
     counter and writes its own snapshot (named by its pid). */
  hi_state.table_lock.word = 0;
  hi_state.module_lock.word = 0;
  heapinspect_root.pid = hi_prim_pid ();
}

static void
configure (void)
{
  hi_state.depth = parse_uint (hi_prim_getenv ("HEAPINSPECT_DEPTH"),
                               HI_MAX_DEPTH, HI_DEFAULT_DEPTH);
  const char *check = hi_prim_getenv ("HEAPINSPECT_CHECK_UNWIND");
  hi_state.check_unwind = check && check[0] == '1';
  const char *out = hi_prim_getenv ("HEAPINSPECT_OUTPUT");
  if (!out || !*out)
    out = "heapinspect.%p.hip";
  if (strcmp (out, "none") == 0)
    out = "";
  /* A relative name is relative to the directory the program started in,
     wherever it has moved to by exit. */
  size_t dir = 0;
  if (out[0] && out[0] != '/' && getcwd (hi_state.output,
                                         sizeof hi_state.output - 1))
    {
      dir = strlen (hi_state.output);
      hi_state.output[dir++] = '/';
    }
  if (dir + strlen (out) >= sizeof hi_state.output)
    {
      hi_prim_warn ("HEAPINSPECT_OUTPUT is too long; no snapshot will be written");
      dir = 0;
      out = "";
    }
  strcpy (hi_state.output + dir, out);
}

static int
init_once (void)
{
  struct hi_root *r = &heapinspect_root;
  r->header_salt = hi_prim_random32 ();
  r->pointer_size = sizeof (void *);
  r->byte_order = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                  ? HI_ORDER_LITTLE : HI_ORDER_BIG;
  r->root_size = sizeof *r;
  r->version = HI_FORMAT_VERSION;
  r->pid = hi_prim_pid ();
  configure ();
  r->max_depth = (uint16_t) hi_state.depth;

  hi_state.nodes = add_arena (HI_A_NODES, HI_ARENA_NODES, HI_CAP_NODES,
                              sizeof (struct hi_node));
  hi_state.sites = add_arena (HI_A_SITES, HI_ARENA_SITES, HI_CAP_SITES,
                              sizeof (struct hi_site));
  hi_state.threads = add_arena (HI_A_THREADS, HI_ARENA_THREADS,
                                HI_CAP_THREADS, sizeof (struct hi_thread));
  hi_state.modules = add_arena (HI_A_MODULES, HI_ARENA_MODULES,
                                HI_CAP_MODULES, sizeof (struct hi_module));
  struct hi_hash *h = add_arena (HI_A_HASH, HI_ARENA_HASH,
                                 HI_HASH_FIRST + 2, sizeof (uint32_t));
  if (h)
    h->mask = HI_HASH_FIRST - 1;
  atomic_store (&hi_state.hash, h);
  r->n_arenas = HI_A_COUNT;
  if (!hi_state.nodes || !hi_state.sites || !hi_state.threads || !hi_state.modules || !h)
    return -1;
  /* Node 0 is the root, node 1 the parent of cut chains; site 0 gathers
     allocations whose chain was not recorded. */
  hi_state.nodes[HI_NODE_CUT].parent = HI_NODE_ROOT;
  r->arenas[HI_A_NODES].count = 2;
  r->arenas[HI_A_SITES].count = 1;
  r->arenas[HI_A_HASH].count = HI_HASH_FIRST + 2;
  return 0;
}

/* Hooks that may allocate inside libc; called with hi_tls.busy set so
   those allocations are the monitor's own. */
static void
install_hooks (void)
{
  pthread_atfork (fork_prepare, fork_parent, fork_child);
  int sig = parse_signal (hi_prim_getenv ("HEAPINSPECT_SIGNAL"));
  if (sig > 0)
    {
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = on_snapshot_signal;
      sa.sa_flags = SA_RESTART;
      sigemptyset (&sa.sa_mask);
      sigaction (sig, &sa, NULL);
    }
}

int
hi_ensure_init (void)
{
  int s = atomic_load_explicit (&init_state, memory_order_acquire);
  if (HI_LIKELY (s == ST_READY))
    return 1;
  if (s == ST_FAILED)
    return 0;
  int expect = ST_NONE;
  if (atomic_compare_exchange_strong (&init_state, &expect, ST_BUSY))
    {
      hi_tls.busy++;
      int ok = init_once () == 0;
      if (ok)
        {
          heapinspect_root.ready = 1;
          HI_STORE_REL (heapinspect_root.magic, HI_ROOT_MAGIC);
        }
      else
        hi_prim_warn ("cannot reserve memory for the monitor; not profiling");
      atomic_store_explicit (&init_state, ok ? ST_READY : ST_FAILED,
                             memory_order_release);
      if (ok)
        {
          install_hooks ();
          hi_jit_register ();
        }
      hi_tls.busy--;
      return ok;
    }
  if (expect == ST_BUSY && hi_tls.busy)
    return 0;   /* nested call during our own initialization */
  while ((s = atomic_load_explicit (&init_state, memory_order_acquire))
         == ST_BUSY)
    ;
  return s == ST_READY;
}

static void
write_exit_snapshot (void *unused)
{
  (void) unused;
  if (atomic_load (&init_state) != ST_READY || !hi_state.output[0])
    return;
  hi_tls.busy++;
  hi_snapshot_write (hi_state.output, 0);
  hi_tls.busy--;
}

extern int __cxa_atexit (void (*fn) (void *), void *arg, void *dso);

/* The loader runs this destructor before those of libraries loaded after
   the monitor, and exit handlers may still free.  exit() calls handlers
   registered while it runs once the current one returns, and the
   loader's destructor pass is itself the first-registered handler, so a
   handler registered here (for no DSO: no __cxa_finalize runs it early)
   comes after every destructor and every other handler. */
__attribute__ ((destructor)) static void
at_exit_snapshot (void)
{
  hi_tls.busy++;      /* the handler list may grow: libc's allocation */
  int r = __cxa_atexit (write_exit_snapshot, NULL, NULL);
  hi_tls.busy--;
  if (r != 0)
    write_exit_snapshot (NULL);   /* exit handlers are done already */
}
