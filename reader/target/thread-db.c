/* thread-db.c - the target's threads as glibc's libthread_db lists
   them, as gdb asks for them: the reader implements proc_service (the
   callbacks libthread_db calls: memory, registers, symbols) over its
   target ops, loads libthread_db and walks its thread list.  That list
   is glibc's own: every thread not yet exited and cleaned up (its
   stack_used and stack_user lists), with each thread's descriptor
   address and start function, and never the stacks glibc keeps cached
   for reuse.

   libthread_db resolves the ps_* functions in the global scope: the
   host's executable must export them (cli/local.mk links with
   --export-dynamic-symbol).  In gdb, whose own ps_* would take our
   handle for its own, the plugin's targets never ask (hi_target's
   thread_db flag is 0 there).  libthread_db checks glibc's version
   string in the target against its own and refuses another glibc: the
   caller then falls back to what the registers say.  Memory a core
   leaves out because the file holds it (libc's read-only data, where
   that version string and libthread_db's layout descriptions are) is
   read from the mapped file. */
#define _GNU_SOURCE
#include "target/target.h"
#include "util/errors.h"
#include "util/vec.h"

#include <dlfcn.h>
#include <proc_service.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <thread_db.h>
#include <unistd.h>

struct ps_prochandle
{
  const struct hi_target *t;
};

int
hi_target_mapping_of (const struct hi_target *t, uint64_t addr,
                      struct hi_map_entry *e)
{
  for (size_t i = 0; t->ops->mapping && t->ops->mapping (t->ctx, i, e) == 0;
       i++)
    if (addr >= e->start && addr < e->end)
      return 0;
  return -1;
}

int
hi_target_read_mapped_file (const struct hi_target *t, uint64_t addr,
                            void *buf, size_t len)
{
  struct hi_map_entry e;
  if (hi_target_mapping_of (t, addr, &e) != 0 || !e.path[0]
      || e.path[0] == '[' || len > e.end - addr)
    return -1;
  int fd = hi_open_regular (e.path);
  if (fd < 0)
    return -1;
  ssize_t n = pread (fd, buf, len, (off_t) (e.file_offset
                                             + (addr - e.start)));
  close (fd);
  return n == (ssize_t) len ? 0 : -1;
}

int
hi_target_read_object (const struct hi_target *t, uint64_t addr, void *buf,
                       size_t len, const char *path, uint64_t load)
{
  return t->ops->read_memory (t->ctx, addr, buf, len) == 0
         || hi_target_read_mapped_file (t, addr, buf, len) == 0
         || (path && path[0] == '/' && addr >= load
             && hi_elf_read_vaddr (path, addr - load, buf, len) == 0)
         ? 0 : -1;
}

ps_err_e
ps_pdread (struct ps_prochandle *ph, psaddr_t addr, void *buf, size_t len)
{
  uint64_t a = (uint64_t) (uintptr_t) addr;
  if (hi_target_read_object (ph->t, a, buf, len, NULL, 0) == 0)
    return PS_OK;
  return PS_BADADDR;
}

ps_err_e
ps_pdwrite (struct ps_prochandle *ph, psaddr_t addr, const void *buf,
            size_t len)
{
  (void) ph, (void) addr, (void) buf, (void) len;
  return PS_ERR;                /* the reader never writes */
}

ps_err_e
ps_lgetregs (struct ps_prochandle *ph, lwpid_t lwp, prgregset_t regs)
{
  struct hi_thread_regs th;
  if (!ph->t->ops->thread_regs)
    return PS_BADLID;
  for (size_t i = 0; ph->t->ops->thread_regs (ph->t->ctx, i, &th) == 0; i++)
    if (th.tid == (uint64_t) lwp)
      {
        memset (regs, 0, sizeof (prgregset_t));
        size_t n = th.n_regs < sizeof (prgregset_t) / sizeof regs[0]
                   ? th.n_regs : sizeof (prgregset_t) / sizeof regs[0];
        for (size_t k = 0; k < n; k++)
          regs[k] = (elf_greg_t) th.regs[k];
        return PS_OK;
      }
  return PS_BADLID;
}

ps_err_e
ps_lsetregs (struct ps_prochandle *ph, lwpid_t lwp, const prgregset_t regs)
{
  (void) ph, (void) lwp, (void) regs;
  return PS_ERR;
}

ps_err_e
ps_lgetfpregs (struct ps_prochandle *ph, lwpid_t lwp, prfpregset_t *regs)
{
  (void) ph, (void) lwp, (void) regs;
  return PS_NOFREGS;
}

ps_err_e
ps_lsetfpregs (struct ps_prochandle *ph, lwpid_t lwp,
               const prfpregset_t *regs)
{
  (void) ph, (void) lwp, (void) regs;
  return PS_ERR;
}

pid_t
ps_getpid (struct ps_prochandle *ph)
{
  /* The first thread is the main one: its id is the process's. */
  struct hi_thread_regs th;
  if (ph->t->ops->thread_regs && ph->t->ops->thread_regs (ph->t->ctx, 0,
                                                          &th) == 0)
    return (pid_t) th.tid;
  return 0;
}

ps_err_e
ps_pglobal_lookup (struct ps_prochandle *ph, const char *object,
                   const char *name, psaddr_t *addr)
{
  (void) object;                /* glibc's names are its own */
  uint64_t a;
  if (!ph->t->ops->lookup_symbol
      || ph->t->ops->lookup_symbol (ph->t->ctx, name, &a) != 0)
    return PS_NOSYM;
  *addr = (psaddr_t) (uintptr_t) a;
  return PS_OK;
}

/* libthread_db's entry points, found once. */
static struct
{
  int tried;
  const char *why;
  td_err_e (*init) (void);
  td_err_e (*ta_new) (struct ps_prochandle *, td_thragent_t **);
  td_err_e (*ta_delete) (td_thragent_t *);
  td_err_e (*ta_thr_iter) (const td_thragent_t *, td_thr_iter_f *, void *,
                           td_thr_state_e, int, sigset_t *, unsigned int);
  td_err_e (*thr_get_info) (const td_thrhandle_t *, td_thrinfo_t *);
  td_err_e (*thr_tls_get_addr) (const td_thrhandle_t *, psaddr_t, size_t,
                                psaddr_t *);
} db;

static const char *
load (void)
{
  if (db.tried)
    return db.why;
  db.tried = 1;
  void *h = dlopen ("libthread_db.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return db.why = "libthread_db.so.1 cannot be loaded";
  db.init = (td_err_e (*) (void)) dlsym (h, "td_init");
  db.ta_new = (td_err_e (*) (struct ps_prochandle *, td_thragent_t **))
    dlsym (h, "td_ta_new");
  db.ta_delete = (td_err_e (*) (td_thragent_t *)) dlsym (h, "td_ta_delete");
  db.ta_thr_iter = (td_err_e (*) (const td_thragent_t *, td_thr_iter_f *,
                                  void *, td_thr_state_e, int, sigset_t *,
                                  unsigned int))
    dlsym (h, "td_ta_thr_iter");
  db.thr_get_info = (td_err_e (*) (const td_thrhandle_t *, td_thrinfo_t *))
    dlsym (h, "td_thr_get_info");
  db.thr_tls_get_addr = (td_err_e (*) (const td_thrhandle_t *, psaddr_t,
                                       size_t, psaddr_t *))
    dlsym (h, "td_thr_tls_get_addr");
  if (!db.init || !db.ta_new || !db.ta_delete || !db.ta_thr_iter
      || !db.thr_get_info || !db.thr_tls_get_addr || db.init () != TD_OK)
    return db.why = "libthread_db.so.1 lacks its entry points";
  return NULL;
}

struct collect
{
  struct hi_db_thread *v;
  size_t n, cap;
  int failed;
  uint64_t tls_map, tls_offset;  /* the TLS variable asked for, if any */
  /* With hi_thread_db_tls_blocks: every loaded object's link_map, and
     the TLS blocks found. */
  const uint64_t *maps;
  size_t n_maps;
  uint64_t *blocks;
  size_t n_blocks, cap_blocks;
};

/* Each loaded object's TLS block in thread TH (td_thr_tls_get_addr at
   offset 0: the module's block, a dlopen'd one's through the DTV),
   into C's blocks.  An object without TLS, or whose block the thread
   has not yet allocated, gives none. */
static void
tls_blocks (const td_thrhandle_t *th, struct collect *c)
{
  for (size_t k = 0; k < c->n_maps; k++)
    {
      psaddr_t base = 0;
      if (db.thr_tls_get_addr (th, (psaddr_t) (uintptr_t) c->maps[k], 0,
                               &base) != TD_OK || !base)
        continue;
      if (c->n_blocks >= 1000000
          || hi_grow ((void **) &c->blocks, &c->cap_blocks, c->n_blocks + 1,
                      sizeof *c->blocks) != 0)
        {
          c->failed = 1;
          return;
        }
      c->blocks[c->n_blocks++] = (uint64_t) (uintptr_t) base;
    }
}

static int
one_thread (const td_thrhandle_t *th, void *arg)
{
  struct collect *c = arg;
  td_thrinfo_t info;
  if (db.thr_get_info (th, &info) != TD_OK
      || hi_grow ((void **) &c->v, &c->cap, c->n + 1, sizeof *c->v) != 0)
    {
      c->failed = 1;
      return 1;
    }
  psaddr_t tls = 0;
  if (c->tls_map
      && db.thr_tls_get_addr (th, (psaddr_t) (uintptr_t) c->tls_map,
                              (size_t) c->tls_offset, &tls) != TD_OK)
    tls = 0;
  if (c->maps)
    tls_blocks (th, c);
  c->v[c->n++] = (struct hi_db_thread) {
    .descriptor = (uint64_t) (uintptr_t) th->th_unique,
    .tid = (uint64_t) info.ti_lid,
    .start = (uint64_t) (uintptr_t) info.ti_startfunc,
    .tls = (uint64_t) (uintptr_t) tls,
  };
  return c->n > 100000;         /* a hostile list ends somewhere */
}

int
hi_thread_db_list (const struct hi_target *t, struct hi_db_thread **out,
                   size_t *n, const char **why)
{
  return hi_thread_db_list_tls (t, 0, 0, out, n, why);
}

/* Walk T's threads with libthread_db into C: 0, or -1 with *WHY. */
static int
walk (const struct hi_target *t, struct collect *c, const char **why)
{
  if (!t->thread_db)
    {
      *why = "the host gives the threads";
      return -1;
    }
  if ((*why = load ()))
    return -1;
  struct ps_prochandle ph = { t };
  td_thragent_t *ta;
  td_err_e e = db.ta_new (&ph, &ta);
  if (e != TD_OK)
    {
      *why = e == TD_VERSION ? "libthread_db does not match the target's glibc"
             : e == TD_NOLIBTHREAD ? "the target has no glibc threads"
             : "libthread_db cannot read the target";
      return -1;
    }
  sigset_t all;
  sigfillset (&all);
  e = db.ta_thr_iter (ta, one_thread, c, TD_THR_ANY_STATE,
                      TD_THR_LOWEST_PRIORITY, &all, TD_THR_ANY_USER_FLAGS);
  db.ta_delete (ta);
  if (e != TD_OK || c->failed)
    {
      *why = "libthread_db cannot walk the target's threads";
      return -1;
    }
  *why = NULL;
  return 0;
}

int
hi_thread_db_list_tls (const struct hi_target *t, uint64_t map,
                       uint64_t offset, struct hi_db_thread **out,
                       size_t *n, const char **why)
{
  *out = NULL;
  *n = 0;
  struct collect c = { .tls_map = map, .tls_offset = offset };
  if (walk (t, &c, why) != 0)
    {
      free (c.v);
      return -1;
    }
  *out = c.v;
  *n = c.n;
  return 0;
}

/* The link_maps of T's loaded objects, from _r_debug (at most 4096):
   0 with *OUT (malloc'd), or -1. */
static int
link_maps (const struct hi_target *t, uint64_t **out, size_t *n)
{
  uint64_t r_debug, lm;
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  if (!t->ops->lookup_symbol
      || t->ops->lookup_symbol (t->ctx, "_r_debug", &r_debug) != 0
      || t->ops->read_memory (t->ctx, r_debug + 8, &lm, 8) != 0)
    return -1;
  for (unsigned i = 0; lm && i < 4096; i++)
    {
      if (hi_grow ((void **) out, &cap, *n + 1, sizeof **out) != 0)
        return -1;
      (*out)[(*n)++] = lm;
      if (t->ops->read_memory (t->ctx, lm + 24, &lm, 8) != 0)
        break;
    }
  return 0;
}

int
hi_thread_db_tls_blocks (const struct hi_target *t, uint64_t **out,
                         size_t *n, const char **why)
{
  *out = NULL;
  *n = 0;
  uint64_t *maps;
  size_t n_maps;
  if (!t->thread_db)
    {
      *why = "the host gives the threads";
      return -1;
    }
  if (link_maps (t, &maps, &n_maps) != 0)
    {
      free (maps);
      *why = "the dynamic linker's list of objects cannot be read";
      return -1;
    }
  struct collect c = { .maps = maps, .n_maps = n_maps };
  int r = walk (t, &c, why);
  free (maps);
  free (c.v);
  if (r != 0)
    {
      free (c.blocks);
      return -1;
    }
  *out = c.blocks;
  *n = c.n_blocks;
  return 0;
}

int
hi_stack_thread (const struct hi_target *t, uint64_t addr,
                 struct hi_stack_thread *out)
{
  memset (out, 0, sizeof *out);
  struct hi_map_entry e;
  struct hi_thread_regs regs;
  if (!t->ops->thread_regs || hi_target_mapping_of (t, addr, &e) != 0)
    return -1;
  int found = 0;
  for (size_t i = 0; !found && t->ops->thread_regs (t->ctx, i, &regs) == 0;
       i++)
    found = regs.sp >= e.start && regs.sp < e.end;
  if (!found)
    return -1;
  out->tid = regs.tid;
  struct hi_db_thread *th;
  size_t n;
  const char *why;
  if (hi_thread_db_list (t, &th, &n, &why) != 0)
    {
      /* Without it (gdb gives the threads): the thread's descriptor. */
      uint64_t tid;
      if (hi_target_thread_id (t, regs.fs_base, &tid) == 0)
        out->tid = tid;
      if (hi_target_thread_start (t, regs.fs_base, &out->start) == 0)
        out->main = out->start == 0;
      return 0;
    }
  for (size_t i = 0; i < n; i++)
    if (th[i].tid == out->tid)
      {
        out->start = th[i].start;
        out->main = th[i].start == 0;
      }
  free (th);
  return 0;
}

int
hi_target_link_map (const struct hi_target *t, uint64_t bias, uint64_t *map)
{
  /* struct r_debug: r_version, then r_map; struct link_map: l_addr,
     l_name, l_ld, l_next (the public part, fixed by the ABI).  Matched
     by load bias: names differ (/lib or /usr/lib, symlinks). */
  uint64_t r_debug, lm;
  if (!t->ops->lookup_symbol
      || t->ops->lookup_symbol (t->ctx, "_r_debug", &r_debug) != 0
      || t->ops->read_memory (t->ctx, r_debug + 8, &lm, 8) != 0)
    return -1;
  for (unsigned i = 0; lm && i < 4096; i++)
    {
      uint64_t l_addr, next;
      if (t->ops->read_memory (t->ctx, lm, &l_addr, 8) != 0
          || t->ops->read_memory (t->ctx, lm + 24, &next, 8) != 0)
        return -1;
      if (l_addr == bias)
        {
          *map = lm;
          return 0;
        }
      lm = next;
    }
  return -1;
}
