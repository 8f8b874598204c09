/* guard.c - heap errors: what a pointer that is not a live block is
   (double free, interior pointer, no heap at all, an overwritten
   header), the report on stderr, the errors arena, and what follows
   (HEAPINSPECT_ON_ERROR).  All of it runs only once a header check has
   failed: the hot path pays nothing.  Memory around a bad pointer is
   read with hi_prim_read_safe, never directly (but for words on the
   page of the 16 bytes before it, which malloc.c's lookup read), and
   no bad pointer is ever handed to glibc. */
#define _GNU_SOURCE
#include "guard.h"
#include "chain.h"
#include "modules.h"
#include "heapinspect/leak-stop.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_malloc (size_t);
extern void __libc_free (void *);

/* Bytes before a plain block's user pointer (malloc.c's PRE). */
#define PRE ((uint64_t) (sizeof (struct hi_block_header) + hi_state.birth))
/* How far back a bad pointer's block is looked for, header by header;
   beyond, only where a block of its own mapping would start. */
#define SEARCH_FINE   (UINT64_C(256) << 10)
#define SEARCH_PAGES  (UINT64_C(256) << 20)
/* Full reports at most; later errors are recorded and counted. */
#define REPORTS_MAX 64

/* ---- configuration ---- */

static void
warn_value (const char *var, const char *value, const char *why)
{
  const char *parts[] = { var, "=", value, ": ", why };
  hi_prim_warnv (parts, 5);
}

/* S as bytes: digits with an optional K, M or G (powers of 1024); -1 if
   it is not that or is past MAX. */
static int64_t
parse_size (const char *s, uint64_t max)
{
  uint64_t v = 0;
  if (*s < '0' || *s > '9')
    return -1;
  for (; *s >= '0' && *s <= '9'; s++)
    {
      v = v * 10 + (uint64_t) (*s - '0');
      if (v > max)
        return -1;
    }
  uint64_t unit = 1;
  if (*s == 'k' || *s == 'K')
    unit = UINT64_C(1) << 10;
  else if (*s == 'm' || *s == 'M')
    unit = UINT64_C(1) << 20;
  else if (*s == 'g' || *s == 'G')
    unit = UINT64_C(1) << 30;
  if (unit > 1)
    s++;
  if (*s || v > max / unit)
    return -1;
  return (int64_t) (v * unit);
}

void
hi_guard_configure (void)
{
  struct hi_root *r = &heapinspect_root;
  struct hi_guard *g = &hi_state.guard;
  struct hi_quarantine *qs = &hi_state.quarantine;
  g->on_error = HI_GUARD_ON_ERROR_ABORT;
  const char *on = hi_prim_getenv ("HEAPINSPECT_ON_ERROR");
  if (on && strcmp (on, "report") == 0)
    g->on_error = HI_GUARD_ON_ERROR_REPORT;
  else if (on && strcmp (on, "ignore") == 0)
    g->on_error = HI_GUARD_ON_ERROR_IGNORE;
  else if (on && *on && strcmp (on, "abort") != 0)
    warn_value ("HEAPINSPECT_ON_ERROR", on, "the values are abort, report "
                "and ignore; using abort");
  const char *run = hi_prim_getenv (HI_RUN_REPORTS_ENV);
  long pid = 0;
  for (; run && *run >= '0' && *run <= '9' && pid < 0x7fffffffL; run++)
    pid = pid * 10 + (*run - '0');
  g->run_pid = run && !*run ? pid : 0;
  const char *q = hi_prim_getenv ("HEAPINSPECT_QUARANTINE");
  if (q && *q)
    {
      int64_t v = parse_size (q, UINT64_C(1) << 44);
      if (v < 0)
        warn_value ("HEAPINSPECT_QUARANTINE", q, "not a size (bytes, or "
                    "with K, M or G, up to 16T); no quarantine");
      else if (v > 0)
        {
          qs->limit = (uint64_t) v;
          g->quarantine = 1;
        }
    }
  const char *z = hi_prim_getenv ("HEAPINSPECT_REDZONE");
  if (z && *z)
    {
      int64_t v = parse_size (z, 4096);
      if (v < 0 || v > 4096)
        warn_value ("HEAPINSPECT_REDZONE", z, "not a number of bytes from 0 "
                    "to 4096; no redzone");
      else
        g->redzone = (uint64_t) v;
    }
  r->guard_flags = (uint32_t) g->on_error
                   | (g->quarantine ? HI_GUARD_QUARANTINE : 0u);
  r->redzone = (uint32_t) g->redzone;
  r->quarantine_limit = qs->limit;
}

/* glibc's tcache writes a per-process key 8 bytes into every chunk it
   holds: a pointer whose "header" has it there was freed to glibc
   already.  Learned from two chunks of one size freed in turn: the key
   is what both hold at +8; unknown (0) if they differ (no tcache, or
   that size's tcache full). */
static void
learn_tcache_key (void)
{
  void *a = __libc_malloc (24), *b = __libc_malloc (24);
  if (!a || !b)
    {
      __libc_free (a);
      __libc_free (b);
      return;
    }
  uint64_t ua = (uint64_t) (uintptr_t) a, ub = (uint64_t) (uintptr_t) b;
  __libc_free (a);
  __libc_free (b);
  uint64_t ka = 0, kb = 0;
  if (hi_prim_read_safe (ua + 8, &ka, 8) == 0
      && hi_prim_read_safe (ub + 8, &kb, 8) == 0 && ka == kb && ka != 0)
    hi_state.guard.tcache_key = ka;
}

int
hi_guard_arenas (void)
{
  struct hi_root *r = &heapinspect_root;
  struct hi_guard *g = &hi_state.guard;
  struct hi_quarantine *q = &hi_state.quarantine;
  if (r->n_arenas + 2 > HI_MAX_ARENAS + HI_MAX_MORE_ARENAS)
    return -1;
  /* The errors arena is small and committed whole: an error found while
     a snapshot is written from a signal handler takes no lock. */
  g->errors_index = (int) r->n_arenas;
  g->errors = hi_arena_add (g->errors_index, HI_ARENA_ERRORS, HI_ERRORS_MAX,
                            sizeof (struct hi_error));
  if (!g->errors)
    return -1;
  r->n_arenas++;
  if (hi_arena_commit (g->errors_index, HI_ERRORS_MAX) != 0)
    return -1;
  if (g->quarantine)
    {
      q->ring_index = (int) r->n_arenas;
      q->ring = hi_arena_add (q->ring_index, HI_ARENA_QUARANTINE,
                              HI_QUARANTINE_SLOTS, sizeof (struct hi_freed));
      if (q->ring)
        r->n_arenas++;
      else
        {
          hi_prim_warn ("cannot reserve memory for the quarantine; "
                        "no quarantine");
          g->quarantine = 0;
          r->guard_flags &= ~HI_GUARD_QUARANTINE;
          r->quarantine_limit = 0;
        }
    }
  return 0;
}

void
hi_guard_fork_prepare (void)
{
  hi_lock_acquire (&hi_state.guard.report_lock);
  hi_lock_acquire (&hi_state.quarantine.ring_lock);
}

void
hi_guard_fork_parent (void)
{
  hi_lock_release (&hi_state.quarantine.ring_lock);
  hi_lock_release (&hi_state.guard.report_lock);
}

/* This thread's: its id, cached (a forked child's only thread has a
   new one: hi_state.guard.fork_gen changes in the child), and whether
   it runs the exit handler (hi_guard_exit_check on): errors found then
   are found at exit, not in a signal handler. */
static __thread struct
{
  uint64_t tid, tid_gen;
  int in_exit;
} mine_data HI_TLS_MODEL;
#define mine HI_TLS (mine_data, HI_TLS_SLOT_GUARD)

uint64_t
hi_guard_tid (void)
{
  uint64_t gen = atomic_load_explicit (&hi_state.guard.fork_gen,
                                      memory_order_relaxed);
  if (HI_UNLIKELY (mine.tid_gen != gen))
    {
      mine.tid = hi_prim_tid ();
      mine.tid_gen = gen;
    }
  return mine.tid;
}

void
hi_guard_fork_child (void)
{
  atomic_fetch_add (&hi_state.guard.fork_gen, 1);
  atomic_store (&hi_state.guard.unacted, 0);   /* the parent's, not ours */
  hi_state.quarantine.ring_lock.word = 0;
  hi_state.guard.report_lock.word = 0;
}

uint32_t
hi_guard_call_site (const struct hi_frame *caller)
{
  if (!caller || hi_tls.busy
      || !atomic_load_explicit (&hi_unwind_ready, memory_order_relaxed))
    return HI_SITE_UNKNOWN;
  hi_tls.busy++;
  uint32_t site = hi_chain_site (caller);
  hi_tls.busy--;
  return site;
}

/* ---- the report: one block of text, written at once ---- */

static void
put (const char *s)
{
  struct hi_guard *g = &hi_state.guard;
  size_t n = strlen (s);
  if (n > sizeof g->report - g->report_len)
    n = sizeof g->report - g->report_len;
  memcpy (g->report + g->report_len, s, n);
  g->report_len += n;
}

static void
put_dec (uint64_t v)
{
  char tmp[24];
  int n = 0;
  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  char out[24];
  for (int i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = '\0';
  put (out);
}

static void
put_hex (uint64_t v)
{
  char out[24] = "0x";
  int n = 2;
  int shift = 60;
  while (shift > 0 && ((v >> shift) & 15) == 0)
    shift -= 4;
  for (; shift >= 0; shift -= 4)
    out[n++] = "0123456789abcdef"[(v >> shift) & 15];
  out[n] = '\0';
  put (out);
}

static void
put_head (void)
{
  put ("==");
  put_dec (hi_prim_pid ());
  put ("== heapinspect: ");
}

/* The loaded module holding ADDR, or NULL. */
static const struct hi_module *
module_of (uint64_t addr)
{
  uint64_t n = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_MODULES].count);
  for (uint64_t i = 0; i < n; i++)
    {
      const struct hi_module *m = &hi_state.modules[i];
      if ((m->flags & HI_MODULE_LOADED) && addr >= m->start && addr < m->end)
        return m;
    }
  return NULL;
}

/* One frame as ASan prints one: "#N 0xADDR in NAME+0xOFF (MODULE+0xOFF)";
   the name only when the dynamic symbol table has one that holds the
   address (dladdr's nearest symbol may be another function's). */
static void
put_frame (int i, uint64_t ret, int symbolize)
{
  put ("    #");
  put_dec ((uint64_t) i);
  put (" ");
  put_hex (ret);
  if (symbolize && ret > 0)
    {
      Dl_info info;
      const ElfW (Sym) *sym = NULL;
      if (dladdr1 ((void *) (uintptr_t) (ret - 1), &info, (void **) &sym,
                   RTLD_DL_SYMENT)
          && info.dli_sname && sym && info.dli_saddr
          && ret - 1 < (uint64_t) (uintptr_t) info.dli_saddr + sym->st_size)
        {
          put (" in ");
          put (info.dli_sname);
          put ("+");
          put_hex (ret - (uint64_t) (uintptr_t) info.dli_saddr);
        }
    }
  const struct hi_module *m = module_of (ret);
  if (m)
    {
      put (" (");
      put (m->path);
      put ("+");
      put_hex (ret - m->bias);
      put (")");
    }
  put ("\n");
}

/* TITLE, then the chain of SITE innermost first. */
static void
put_chain (const char *title, uint32_t site, int symbolize)
{
  put (title);
  put ("\n");
  uint64_t nsites = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_SITES].count);
  if (site == HI_SITE_UNKNOWN || site == HI_SITE_INTERNAL || site >= nsites)
    {
      put ("    (no chain recorded)\n");
      return;
    }
  uint64_t nnodes = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_NODES].count);
  uint32_t node = hi_state.sites[site].node;
  int i = 0;
  while (node > HI_NODE_CUT && node < nnodes && i < HI_MAX_DEPTH)
    {
      put_frame (i++, hi_state.nodes[node].ret, symbolize);
      node = hi_state.nodes[node].parent;
    }
  if (node == HI_NODE_CUT)
    put ("    ... (the chain is cut at HEAPINSPECT_DEPTH)\n");
}

/* The call an error was found in, as "free()". */
static void
put_call (uint32_t when)
{
  put (hi_error_call (when));
  put ("()");
}

/* What the bad call did, for its chain's title. */
static const char *
call_verb (uint32_t when)
{
  return when == HI_WHEN_REALLOC ? "reallocated"
         : when == HI_WHEN_USABLE_SIZE ? "called" : "freed";
}

/* A chain's title: "VERB by thread TID here:", or "VERB here:" when the
   thread is not known (TID 0).  The string lives until the next call. */
static const char *
titled (const char *verb, uint64_t tid)
{
  char *t = hi_state.guard.title;
  size_t n = strlen (verb);
  if (n > 48)
    n = 48;
  memcpy (t, verb, n);
  if (tid)
    {
      memcpy (t + n, " by thread ", 11);
      n += 11;
      char tmp[24];
      int k = 0;
      do
        tmp[k++] = (char) ('0' + tid % 10);
      while ((tid /= 10) != 0);
      while (k > 0)
        t[n++] = tmp[--k];
    }
  memcpy (t + n, " here:", 7);
  return t;
}

static void
put_found (uint32_t when)
{
  if (when == HI_WHEN_EVICT)
    put ("found as it left the quarantine");
  else if (when == HI_WHEN_SNAPSHOT)
    put (mine.in_exit ? "found at exit"
         : "found while a snapshot was written");
  else
    {
      put ("found in ");
      put_call (when);
    }
}

static void
put_block (uint64_t user, uint64_t size)
{
  put ("the ");
  put_dec (size);
  put ("-byte block at ");
  put_hex (user);
}

/* E as text, into `report`.  LOST: a double free of a block glibc holds
   again (its size and chains are gone). */
static void
compose (const struct hi_error *e, int lost, const char *where_path,
         int symbolize)
{
  struct hi_guard *g = &hi_state.guard;
  g->report_len = 0;
  put_head ();
  put ("ERROR: ");
  switch (e->kind)
    {
    case HI_ERR_DOUBLE_FREE:
      put ("double free of ");
      put_hex (e->addr);
      if (!lost)
        {
          put (" (a ");
          put_dec (e->block_size);
          put ("-byte block");
          if (e->free_site != HI_SITE_UNKNOWN
              || (heapinspect_root.guard_flags & HI_GUARD_QUARANTINE))
            put (", in the quarantine");
          put (")");
        }
      put (" in ");
      put_call (e->when);
      put ("\n");
      if (lost)
        put ("the block was given back to malloc already: its size and "
             "chains are lost (HEAPINSPECT_QUARANTINE keeps them)\n");
      put_chain (titled (call_verb (e->when), e->tid), e->call_site,
                   symbolize);
      if (e->free_site != HI_SITE_UNKNOWN)
        put_chain (titled ("previously freed", g->report_free_tid),
                   e->free_site, symbolize);
      if (!lost)
        put_chain ("allocated here:", e->alloc_site, symbolize);
      break;
    case HI_ERR_INTERIOR_FREE:
      put_call (e->when);
      put (" of ");
      put_hex (e->addr);
      put (", not the start of a block: it is ");
      put_dec (e->offset);
      put (e->offset == 1 ? " byte inside " : " bytes inside ");
      put_block (e->block, e->block_size);
      put ("\n");
      put_chain (titled (call_verb (e->when), e->tid), e->call_site,
                   symbolize);
      put_chain ("the block was allocated here:", e->alloc_site, symbolize);
      break;
    case HI_ERR_NOT_HEAP:
      put_call (e->when);
      put (" of ");
      put_hex (e->addr);
      put (", not a heap block: ");
      if (e->where_kind == HI_WHERE_STACK)
        {
          put ("it is on the stack of thread ");
          put_dec (e->tid);
        }
      else if (e->where_kind == HI_WHERE_MODULE)
        {
          put ("it is in the image of ");
          put (where_path ? where_path : "a loaded object");
        }
      else if (e->where_kind == HI_WHERE_UNMAPPED)
        put ("no memory is mapped there");
      else
        put ("it is in no block of the heap");
      put ("\n");
      put_chain (titled (call_verb (e->when), e->tid), e->call_site,
                   symbolize);
      break;
    case HI_ERR_HEADER_CORRUPT:
      if (g->report_chunk)
        {
          /* Our header is whole, glibc's size word before it is not. */
          put ("heap corruption: the chunk size word of ");
          put_block (e->block, e->block_size);
          put (" (malloc's, before its header) is overwritten, ");
        }
      else
        {
          put ("heap corruption: the header of the block at ");
          put_hex (e->addr);
          put (" is overwritten, ");
        }
      put_found (e->when);
      put ("\n");
      if (e->other)
        {
          put ("the block before it, ");
          put_block (e->other, e->other_size);
          put (", likely overflowed into it\n");
        }
      else
        put ("no valid block was found before it\n");
      if (e->call_site != HI_SITE_UNKNOWN)
        put_chain (titled (call_verb (e->when), e->tid), e->call_site,
                   symbolize);
      if (g->report_chunk)
        put_chain ("the block was allocated here:", e->alloc_site,
                   symbolize);
      if (e->other)
        put_chain ("the block before it was allocated here:", e->other_site,
                   symbolize);
      break;
    case HI_ERR_WRITE_AFTER_FREE:
      put ("write after free: ");
      put_block (e->block, e->block_size);
      if (e->offset == 0)
        put (" was written after its free, from its first byte, ");
      else
        {
          put (" was written after its free, first ");
          put_dec (e->offset);
          put (e->offset == 1 ? " byte into it, " : " bytes into it, ");
        }
      put_found (e->when);
      put ("\n");
      put_chain (titled ("freed", g->report_free_tid), e->free_site,
                 symbolize);
      put_chain ("allocated here:", e->alloc_site, symbolize);
      break;
    case HI_ERR_REDZONE:
      put ("heap buffer overflow past the end of ");
      put_block (e->block, e->block_size);
      put (": its redzone changed at byte ");
      put_dec (e->offset);
      put (" (");
      put_dec (e->offset - e->block_size);
      put (e->offset - e->block_size == 1 ? " byte after the end), "
           : " bytes after the end), ");
      put_found (e->when);
      put ("\n");
      if (e->call_site != HI_SITE_UNKNOWN)
        put_chain (titled (call_verb (e->when), e->tid), e->call_site,
                   symbolize);
      if (e->free_site != HI_SITE_UNKNOWN)
        put_chain (titled ("freed", g->report_free_tid), e->free_site,
                 symbolize);
      put_chain ("the block was allocated here:", e->alloc_site, symbolize);
      break;
    default:
      put ("heap error\n");
    }
}

/* ---- the errors arena ---- */

static void
record (const struct hi_error *e)
{
  struct hi_root *r = &heapinspect_root;
  uint64_t slot = HI_ADD (r->errors_total, 1);
  if (slot >= HI_ERRORS_MAX || !hi_state.guard.errors)
    return;
  struct hi_error *to = &hi_state.guard.errors[slot];
  struct hi_error copy = *e;
  uint32_t kind = copy.kind;
  copy.kind = 0;
  *to = copy;
  /* The kind last: an entry is complete once it is set.  The count is
     raised over complete entries only, by whoever sees them so (an
     entry written by a signal handler may complete before the one it
     interrupted). */
  HI_STORE_REL (to->kind, kind);
  struct hi_arena_desc *a = hi_arena_at (hi_state.guard.errors_index);
  _Atomic uint64_t *count = (_Atomic uint64_t *) &a->count;
  uint64_t c = atomic_load (count);
  while (c < HI_ERRORS_MAX && HI_LOAD_ACQ (hi_state.guard.errors[c].kind) != 0)
    if (atomic_compare_exchange_weak (count, &c, c + 1))
      c++;
}

static void
act (int may_abort)
{
  if (!may_abort || hi_state.guard.on_error != HI_GUARD_ON_ERROR_ABORT)
    return;
  hi_error_snapshot ();
  hi_prim_abort ();
}

/* Whether `heapinspect run` reports this process's errors in full, its
   frames named (leak-stop.h). */
static int
reported_by_run (void)
{
  return hi_state.guard.run_pid != 0
         && (uint64_t) hi_state.guard.run_pid == hi_prim_pid ();
}

/* The report cut to its first line, "==PID== heapinspect: ERROR: ...". */
static void
headline_only (void)
{
  struct hi_guard *g = &hi_state.guard;
  const char *nl = memchr (g->report, '\n', g->report_len);
  if (nl)
    g->report_len = (size_t) (nl - g->report) + 1;
}

static void
error_locked (struct hi_error *e, int may_abort, int lost,
              const char *where_path, int have_lock)
{
  e->tid = e->tid ? e->tid : hi_guard_tid ();
  e->time_ns = hi_time_now ();
  /* Found at exit: the report says so, and so does the record. */
  if (mine.in_exit && e->when == HI_WHEN_SNAPSHOT)
    e->flags |= HI_ERROR_FLAG_AT_EXIT;
  record (e);
  if (!may_abort && hi_state.guard.on_error == HI_GUARD_ON_ERROR_ABORT)
    atomic_fetch_add (&hi_state.guard.unacted, 1);
  if (hi_state.guard.on_error == HI_GUARD_ON_ERROR_IGNORE || !have_lock)
    return;
  if (hi_state.guard.reports >= REPORTS_MAX)
    return;
  /* dladdr takes the loader's lock: not from a signal handler. */
  compose (e, lost, where_path, may_abort || mine.in_exit);
  int by_run = reported_by_run ();
  if (by_run)
    headline_only ();
  if (++hi_state.guard.reports == REPORTS_MAX)
    {
      put_head ();
      put ("further heap errors are recorded, not reported\n");
    }
  put_head ();
  if (may_abort && hi_state.guard.on_error == HI_GUARD_ON_ERROR_ABORT)
    put ("aborting (HEAPINSPECT_ON_ERROR=abort)\n");
  else if (hi_state.guard.on_error == HI_GUARD_ON_ERROR_ABORT && mine.in_exit)
    put ("aborting after the exit snapshot (HEAPINSPECT_ON_ERROR=abort)\n");
  else if (hi_state.guard.on_error == HI_GUARD_ON_ERROR_ABORT)
    put ("going on: found while a snapshot was written; aborting at exit "
         "(HEAPINSPECT_ON_ERROR=abort)\n");
  else
    put ("going on (HEAPINSPECT_ON_ERROR=report)\n");
  put_head ();
  if (by_run)
    {
      put ("the report, every frame named: heapinspect run's, when the "
           "program ends\n");
      hi_prim_write_err (hi_state.guard.report, hi_state.guard.report_len);
      return;
    }
  /* The frames are addresses: heapinspect names them from the snapshot
     (written before an abort and at exit) or the core. */
  char path[1024];
  put ("names for these frames: heapinspect -t errors ");
  if (hi_auto_snapshot_path (path, sizeof path) == 0)
    put (path);
  else if (hi_state.guard.on_error == HI_GUARD_ON_ERROR_ABORT)
    put ("CORE (the core file of this process)");
  else
    {
      put ("-p ");
      put_dec (hi_prim_pid ());
      put (" (while the process runs)");
    }
  put ("\n");
  hi_prim_write_err (hi_state.guard.report, hi_state.guard.report_len);
}

void
hi_guard_error (struct hi_error *e, int may_abort)
{
  hi_guard_error_freed (e, may_abort, 0);
}

void
hi_guard_error_freed (struct hi_error *e, int may_abort, uint64_t free_tid)
{
  int locked;
  if (may_abort)
    {
      hi_lock_acquire (&hi_state.guard.report_lock);
      locked = 1;
    }
  else
    locked = hi_lock_try (&hi_state.guard.report_lock);
  if (may_abort)
    hi_modules_refresh ();
  if (locked)
    hi_state.guard.report_free_tid = free_tid;
  error_locked (e, may_abort, 0, NULL, locked);
  if (locked)
    {
      hi_state.guard.report_free_tid = 0;
      hi_lock_release (&hi_state.guard.report_lock);
    }
  act (may_abort);
}

void
hi_guard_exit_check (void)
{
  mine.in_exit = 1;
  hi_quarantine_check ();
}

void
hi_guard_exit_act (void)
{
  if (atomic_load (&hi_state.guard.unacted) == 0
      || hi_state.guard.on_error != HI_GUARD_ON_ERROR_ABORT)
    return;
  /* exit() would flush stdio after this, its last handler. */
  fflush (NULL);
  hi_prim_abort ();
}

/* ---- what a bad pointer is ---- */

static int
read64 (uint64_t addr, uint64_t *v)
{
  return addr >= 4096 && hi_prim_read_safe (addr, v, 8) == 0;
}

enum { H_BAD, H_LIVE, H_QUARANTINED, H_FREED };

/* The state of header H read from address HADDR. */
static int
header_state (uint64_t haddr, const struct hi_block_header *h)
{
  uint64_t nsites = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_SITES].count);
  if ((h->size_flags & HI_BLOCK_SIZE_MASK) > (UINT64_C(1) << 47)
      || (h->site != HI_SITE_INTERNAL && h->site >= nsites))
    return H_BAD;
  uint32_t want = hi_block_check (heapinspect_root.header_salt, haddr,
                                  h->site, h->size_flags);
  return h->check == want ? H_LIVE
         : h->check == (want ^ HI_CHECK_QUARANTINED) ? H_QUARANTINED
         : h->check == ~want ? H_FREED : H_BAD;
}

struct found
{
  uint64_t user, size;
  uint32_t site;
  int aligned;
};

/* Consider the header at HADDR (its bytes at H): a live or quarantined
   block.  Returns 1 if it holds P (*IN set), 2 if it is a block not
   holding P (*NEAR set if it is the first), else 0. */
static int
consider (uint64_t haddr, const struct hi_block_header *h, uint64_t p,
          struct found *in, struct found *near)
{
  int st = header_state (haddr, h);
  if (st != H_LIVE && st != H_QUARANTINED)
    return 0;
  struct found f = { haddr + 16, h->size_flags & HI_BLOCK_SIZE_MASK, h->site,
                     (h->size_flags & HI_BLOCK_ALIGNED) != 0 };
  if (p > f.user && p < f.user + f.size + HI_POST)
    {
      *in = f;
      return 1;
    }
  if (!near->user)
    *near = f;
  return 2;
}

/* Look back from P for our blocks: *IN the one holding P (a live or
   quarantined block that P points into), *NEAR the nearest one before
   P.  user 0: none found.  Every 16 bytes over SEARCH_FINE, then, with
   FAR, where a block mapped on its own would have its header (a page's
   start + 16) as long as the pages are mapped, up to SEARCH_PAGES. */
static void
search_back (uint64_t p, struct found *in, struct found *near, int far)
{
  memset (in, 0, sizeof *in);
  memset (near, 0, sizeof *near);
  uint64_t h = (p - 17) & ~UINT64_C(15);   /* below P's own header */
  uint64_t floor = p > SEARCH_FINE + 4096 ? p - SEARCH_FINE : 4096;
  uint64_t page = UINT64_MAX;
  unsigned char *page_buf = hi_state.guard.page;
  for (; h >= floor && p > 32; h -= 16)
    {
      uint64_t pg = h & ~UINT64_C(4095);
      if (pg != page)
        {
          if (hi_prim_read_safe (pg, page_buf, sizeof hi_state.guard.page)
              != 0)
            return;
          page = pg;
        }
      struct hi_block_header hd;
      memcpy (&hd, page_buf + (h - pg), sizeof hd);
      int r = consider (h, &hd, p, in, near);
      if (r == 1)
        return;
      if (r == 2)
        return;      /* blocks do not overlap: none before it holds P */
    }
  /* A block of its own mapping (glibc mmaps large ones): its header is
     at the mapping's start + 16 (+ the birth stamp). */
  if (!far)
    return;
  uint64_t off = 16 + hi_state.birth;
  for (uint64_t pg = (floor - 1) & ~UINT64_C(4095);
       pg >= 4096 && p - pg <= SEARCH_PAGES; pg -= 4096)
    {
      struct hi_block_header hd;
      if (hi_prim_read_safe (pg + off, &hd, sizeof hd) != 0)
        return;
      if (consider (pg + off, &hd, p, in, near))
        return;
    }
}

/* 1 if SIZE_WORD looks like a glibc chunk's size field. */
static int
plausible_size (uint64_t w)
{
  uint64_t cs = w & ~UINT64_C(7);
  return cs >= 32 && (cs & 15) == 0 && cs < (UINT64_C(1) << 44);
}

/* 1 if glibc would take M for one of its chunks in use (the pointer
   malloc returned): a plausible size, and the next chunk says this one
   is in use (or it is mapped on its own). */
static int
chunk_in_use (uint64_t m)
{
  uint64_t w, next, prev;
  if (!read64 (m - 8, &w) || !plausible_size (w))
    return 0;
  if (w & 2)
    return read64 (m - 16, &prev) && ((m - 16 - prev) & 4095) == 0;
  return read64 (m - 16 + (w & ~UINT64_C(7)) + 8, &next)
         && (next & 1) && (next & ~UINT64_C(7)) >= 16;
}

/* 1 if M is a chunk glibc holds freed: its key where tcache keeps it,
   or a plausible size and the next chunk saying it is free. */
static int
chunk_freed (uint64_t m)
{
  uint64_t w, next, key;
  uint64_t tkey = hi_state.guard.tcache_key;
  if (tkey && read64 (m + 8, &key) && key == tkey)
    return 1;
  if (!read64 (m - 8, &w) || !plausible_size (w) || (w & 2))
    return 0;
  return read64 (m - 16 + (w & ~UINT64_C(7)) + 8, &next) && !(next & 1)
         && plausible_size (next);
}

/* 1 if P is where the block after A starts, by A's chunk's size (glibc's
   word before A's memory): a block of ours begins there. */
static int
follows (const struct found *a, uint64_t p)
{
  uint64_t w;
  if (a->aligned || !read64 (a->user - PRE - 8, &w) || !plausible_size (w)
      || (w & 2))
    return 0;
  return a->user - PRE + (w & ~UINT64_C(7)) + PRE == p;
}

/* Read the word at ADDR for hi_guard_foreign_chunk's P: directly if it
   lies within the 4096 bytes around P's header (the 16 bytes before P,
   which lookup in malloc.c read already: that page is mapped and
   readable, whatever the page size), else with hi_prim_read_safe.  A
   block from before the attach that the program reallocs or frees
   often (sqlite3's line buffer: once a line) then costs no system
   call, mostly. */
static int
read64_near (uint64_t p, uint64_t addr, uint64_t *v)
{
  uint64_t page = (p - 1) & ~UINT64_C(4095);
  if (addr >= page && addr <= page + 4096 - 8)
    {
      memcpy (v, (const void *) (uintptr_t) addr, 8);
      return 1;
    }
  return read64 (addr, v);
}

int
hi_guard_foreign_chunk (void *ptr)
{
  uint64_t p = (uint64_t) (uintptr_t) ptr, key, w, next, prev;
  if ((p & 15) != 0 || p < 4096)
    return 0;
  /* chunk_in_use (p), its reads near P direct. */
  if (!read64_near (p, p - 8, &w) || !plausible_size (w))
    return 0;
  if (w & 2)
    {
      if (!read64_near (p, p - 16, &prev) || ((p - 16 - prev) & 4095) != 0)
        return 0;
    }
  else if (!read64_near (p, p - 16 + (w & ~UINT64_C(7)) + 8, &next)
           || !(next & 1) || (next & ~UINT64_C(7)) < 16)
    return 0;
  uint64_t tkey = hi_state.guard.tcache_key;
  if (tkey && read64_near (p, p + 8, &key) && key == tkey)
    return 0;                  /* in glibc's tcache: freed before */
  struct hi_block_header h;
  memcpy (&h, (const void *) (uintptr_t) (p - 16), sizeof h);
  int st = header_state (p - 16, &h);
  if (st == H_FREED || st == H_QUARANTINED)
    return 0;                  /* a block of ours freed before */
  return 1;
}

int
hi_guard_bad_pointer (void *ptr, const struct hi_frame *caller, int when)
{
  uint64_t p = (uint64_t) (uintptr_t) ptr;
  struct hi_error e;
  memset (&e, 0, sizeof e);
  e.when = (uint32_t) when;
  e.addr = p;
  /* The bad call's chain first: interning takes the monitor's locks. */
  uint32_t call_site = hi_guard_call_site (caller);
  hi_lock_acquire (&hi_state.guard.report_lock);
  /* Learned at the first bad pointer, not at start: the monitor's own
     work allocates nothing (memcheck.exp). */
  if (!hi_state.guard.tcache_key_learned)
    {
      hi_state.guard.tcache_key_learned = 1;
      learn_tcache_key ();
    }
  hi_modules_refresh ();
  e.call_site = call_site;
  int lost = 0, foreign = 0;
  uint64_t free_tid = 0;
  const char *where_path = NULL;
  int aligned = (p & 15) == 0 && p >= 4096;
  struct hi_block_header h;
  int st = aligned && hi_prim_read_safe (p - 16, &h, sizeof h) == 0
           ? header_state (p - 16, &h) : H_BAD;
  struct found in, near;
  uint64_t lo, hi;
  if (st == H_FREED || st == H_QUARANTINED)
    {
      e.kind = HI_ERR_DOUBLE_FREE;
      e.block = p;
      e.block_size = h.size_flags & HI_BLOCK_SIZE_MASK;
      e.alloc_site = h.site;
      if (st == H_QUARANTINED)
        e.free_site = hi_quarantine_free_site (p, &free_tid);
    }
  else if (aligned && st == H_BAD && hi_state.guard.tcache_key
           && read64 (p - PRE + 8, &lo) && lo == hi_state.guard.tcache_key)
    {
      /* glibc's tcache holds it: freed by the program before. */
      e.kind = HI_ERR_DOUBLE_FREE;
      e.block = p;
      lost = 1;
    }
  else if (hi_prim_stack_bounds (&lo, &hi) && p >= lo && p < hi)
    {
      e.kind = HI_ERR_NOT_HEAP;
      e.where_kind = HI_WHERE_STACK;
    }
  else if (hi_modules_cover (p))
    {
      e.kind = HI_ERR_NOT_HEAP;
      e.where_kind = HI_WHERE_MODULE;
      const struct hi_module *m = module_of (p);
      where_path = m ? m->path : NULL;
    }
  else
    {
      /* A chunk of glibc's own (the common foreign pointer) is in no
         block of ours: no need to look far back. */
      search_back (p, &in, &near, !(aligned && chunk_in_use (p)));
      if (in.user)
        {
          e.kind = HI_ERR_INTERIOR_FREE;
          e.block = in.user;
          e.block_size = in.size;
          e.alloc_site = in.site;
          e.offset = p - in.user;
        }
      else if (aligned && (st == H_LIVE || (near.user && follows (&near, p))))
        e.kind = HI_ERR_HEADER_CORRUPT;
      else if (aligned && chunk_in_use (p))
        foreign = 1;
      else if (aligned && chunk_freed (p - PRE))
        {
          e.kind = HI_ERR_DOUBLE_FREE;
          e.block = p;
          lost = 1;
        }
      else if (aligned && near.user
               && near.user + near.size + HI_POST <= p - PRE
               && p - PRE - (near.user + near.size + HI_POST) < 48
               && read64 (p - PRE - 8, &lo) && plausible_size (lo))
        e.kind = HI_ERR_HEADER_CORRUPT;
      else
        {
          unsigned char byte;
          e.kind = HI_ERR_NOT_HEAP;
          e.where_kind = hi_prim_read_safe (p, &byte, 1) == 0
                         ? HI_WHERE_UNKNOWN : HI_WHERE_UNMAPPED;
        }
      if (e.kind == HI_ERR_HEADER_CORRUPT && near.user)
        {
          e.other = near.user;
          e.other_size = near.size;
          e.other_site = near.site;
        }
    }
  if (!foreign)
    {
      hi_state.guard.report_free_tid = free_tid;
      error_locked (&e, 1, lost, where_path, 1);
      hi_state.guard.report_free_tid = 0;
    }
  hi_lock_release (&hi_state.guard.report_lock);
  if (!foreign)
    act (1);
  return foreign;
}

/* ---- glibc's chunk size word ---- */

int
hi_guard_mapped_chunk_ok (uint64_t base, uint64_t nb, uint64_t w,
                          uint64_t before)
{
  /* glibc maps the request + 8 rounded up to pages (or to huge pages
     with glibc.malloc.hugetlb=2: no upper bound but the mapping's end);
     memalign's chunk starts up to its alignment (BEFORE) into the
     mapping, whose start is prev_size (the word before) below the
     chunk: the mapping ends on a page. */
  (void) before;
  uint64_t page = (uint64_t) hi_prim_page_size ();
  uint64_t cs = w & ~UINT64_C(7), prev = ((const uint64_t *) (uintptr_t)
                                          base)[-2];
  return cs >= nb && cs < (UINT64_C(1) << 47) && prev < (UINT64_C(1) << 47)
         && ((prev + cs) & (page - 1)) == 0 && (prev & 15) == 0;
}

/* glibc's next chunk's size word at ADDR says the chunk before it is
   in use, with a plausible size of its own. */
static int
next_says_in_use (uint64_t addr, int safe)
{
  uint64_t nw;
  if (safe)
    {
      if (!read64 (addr, &nw))
        return 0;
    }
  else
    nw = *(const uint64_t *) (uintptr_t) addr;
  uint64_t ncs = nw & ~UINT64_C(7);
  return (nw & 1) && !(nw & 2) && ncs >= 16 && (ncs & 15) == 0
         && ncs < (UINT64_C(1) << 47);
}

int
hi_guard_slack_chunk_ok (uint64_t base, uint64_t nb, uint64_t w,
                         int aligned)
{
  if (w & 2)
    return 0;
  uint64_t cs = w & ~UINT64_C(7), slack = cs - nb;   /* huge if below */
  if (slack == 16)
    return next_says_in_use (base - 16 + cs + 8, 0);
  if (aligned && slack <= 32 + (uint64_t) hi_prim_page_size ()
      && (slack & 15) == 0)
    return next_says_in_use (base - 16 + cs + 8, 1);
  return 0;
}

void
hi_guard_chunk_smashed (uint64_t user, uint64_t size, uint32_t site,
                        uint32_t free_site, const struct hi_frame *caller,
                        int when)
{
  struct hi_error e;
  memset (&e, 0, sizeof e);
  e.kind = HI_ERR_HEADER_CORRUPT;
  e.when = (uint32_t) when;
  e.addr = user;
  e.block = user;
  e.block_size = size;
  e.alloc_site = site;
  e.free_site = free_site;
  e.call_site = hi_guard_call_site (caller);
  e.flags = HI_ERROR_FLAG_CHUNK_SIZE;
  hi_lock_acquire (&hi_state.guard.report_lock);
  hi_modules_refresh ();
  struct found in, near;
  search_back (user, &in, &near, 1);
  if (in.user)
    near = in;
  if (near.user)
    {
      e.other = near.user;
      e.other_size = near.size;
      e.other_site = near.site;
    }
  hi_state.guard.report_chunk = 1;
  error_locked (&e, 1, 0, NULL, 1);
  hi_state.guard.report_chunk = 0;
  hi_lock_release (&hi_state.guard.report_lock);
  act (1);
}

/* ---- redzones ---- */

void
hi_guard_fill_redzone (void *user, uint64_t size)
{
  memset ((char *) user + size, HI_REDZONE_BYTE, HI_POST);
}

void
hi_guard_check_redzone (uint64_t user, uint64_t size, uint32_t site,
                        const struct hi_frame *caller, int when)
{
  const unsigned char *z = (const unsigned char *) (uintptr_t) (user + size);
  uint64_t n = HI_POST, i = 0;
  while (i < n && z[i] == HI_REDZONE_BYTE)
    i++;
  if (HI_LIKELY (i == n))
    return;
  struct hi_error e;
  memset (&e, 0, sizeof e);
  e.kind = HI_ERR_REDZONE;
  e.when = (uint32_t) when;
  e.addr = user;
  e.block = user;
  e.block_size = size;
  e.alloc_site = site;
  e.offset = size + i;
  e.call_site = hi_guard_call_site (caller);
  hi_guard_error (&e, 1);
  hi_guard_fill_redzone ((void *) (uintptr_t) user, size);
}
