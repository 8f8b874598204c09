/* reach-stacks.c - exited threads' stacks, which are not roots.  glibc
   keeps a thread's stack mapped after the thread exits (its stack
   cache, up to 40 MiB, for the next pthread_create), with every word
   the thread left there: scanned as a root, it would make blocks only a
   dead thread pointed to look reachable, where memcheck (which stops
   scanning a thread's frames as they are popped) calls them lost.

   A stack glibc allocated holds its thread's descriptor at its top
   (struct pthread, TLS_TCB_AT_TP on x86-64), whose first word (tcb)
   and third (self) both hold the descriptor's own address.  An
   anonymous mapping whose top holds such a descriptor is a thread's
   stack; the thread is alive when glibc's own thread list has its
   descriptor.  That list comes from libthread_db (target/thread-db.c),
   as gdb gets it: it holds every thread glibc has not cleaned up after,
   including threads killed with the process at the kernel's exit stop,
   whose stacks memcheck still scans.  Where libthread_db cannot be had,
   the registers stand in: a descriptor no thread's fs_base names is
   dead, if glibc counts as many running threads (__nptl_nthreads,
   which a thread lowers as it exits by itself) as the target has;
   else, and without every thread's registers (a raw dump, gdb's own
   target), every stack stays a root.

   What memcheck stops scanning is the frames: the stack below the
   thread's last stack pointer.  Its descriptor and its static TLS
   blocks (right below the descriptor) stay memory like any other: the
   descriptor points into its DTV, which memcheck then calls possibly
   lost.  So the part left out is the mapping's start up to the lowest
   static TLS block its DTV names (the descriptor's own address if the
   DTV cannot be read). */
#define _GNU_SOURCE
#include "reach/reach-int.h"
#include "target/target.h"

#include <stdlib.h>
#include <string.h>

/* The descriptor lies this near the top: sizeof (struct pthread) (2,304
   bytes in glibc 2.36), aligned down to the static TLS alignment. */
#define TOP_SEARCHED 8192u
#define TCB_ALIGN 16u

/* Who is alive: libthread_db's descriptors, or the threads' fs_base. */
struct alive
{
  struct hi_db_thread *db;
  size_t n_db;
  int have_db;
};

static int
is_alive (const struct hi_scan *s, const struct alive *a, uint64_t tp)
{
  if (a->have_db)
    {
      for (size_t i = 0; i < a->n_db; i++)
        if (a->db[i].descriptor == tp)
          return 1;
      return 0;
    }
  for (size_t i = 0; i < s->n_threads; i++)
    if (s->threads[i].fs_base == tp)
      return 1;
  return 0;
}

static int
holds_live_sp (const struct hi_scan *s, const struct hi_map_entry *e)
{
  for (size_t i = 0; i < s->n_threads; i++)
    if (s->threads[i].sp >= e->start && s->threads[i].sp < e->end)
      return 1;
  return 0;
}

/* The address of the thread descriptor at mapping E's top if its thread
   is dead, else 0. */
static uint64_t
dead_descriptor (struct hi_scan *s, const struct alive *a,
                 const struct hi_map_entry *e)
{
  uint64_t size = e->end - e->start;
  uint64_t from = size > TOP_SEARCHED ? e->end - TOP_SEARCHED : e->start;
  /* Read in pieces that never cross a cache slot. */
  for (uint64_t at = from; at < e->end;)
    {
      uint64_t slot_end = (at | (HI_SCAN_SLOT - 1)) + 1;
      uint64_t len = (slot_end < e->end ? slot_end : e->end) - at;
      const unsigned char *p = hi_scan_read (s, at, (size_t) len);
      if (!p)
        return 0;
      for (uint64_t off = (TCB_ALIGN - at % TCB_ALIGN) % TCB_ALIGN;
           off + 24 <= len; off += TCB_ALIGN)
        {
          uint64_t tcb, self, tp = at + off;
          memcpy (&tcb, p + off, 8);
          memcpy (&self, p + off + 16, 8);
          if (tcb == tp && self == tp)
            return is_alive (s, a, tp) ? 0 : tp;
        }
      at += len;
    }
  return 0;
}

/* Where the static TLS blocks of the thread whose descriptor is at TP
   begin, in [START, TP]: the lowest block its DTV (the descriptor's
   second word: a pointer to dtv[1]; dtv[-1] holds the entries
   allocated) points to there; TP if none. */
static uint64_t
static_tls_start (struct hi_scan *s, uint64_t start, uint64_t tp)
{
  uint64_t low = tp, dtv, n;
  const unsigned char *p = hi_scan_read (s, tp + 8, 8);
  if (!p)
    return low;
  memcpy (&dtv, p, 8);
  if (dtv < 32 || !(p = hi_scan_read (s, dtv - 16, 8)))
    return low;
  memcpy (&n, p, 8);
  if (n > 1024)
    n = 1024;
  /* dtv[0] is the generation; dtv[1...] one {pointer, to_free} each. */
  for (uint64_t i = 1; i < n; i++)
    {
      uint64_t block;
      if (!(p = hi_scan_read (s, dtv + 16 * i, 8)))
        break;
      memcpy (&block, p, 8);
      if (block >= start && block < low)
        low = block;
    }
  return low;
}

/* Whether the registers can stand in for libthread_db: every thread's
   thread pointer known, and glibc counting no thread the target lacks.
   (The main thread's descriptor lies in memory ld.so mapped, which may
   hold roots: it must be known alive.) */
static int
registers_tell (struct hi_scan *s)
{
  if (!s->n_threads)
    return 0;
  for (size_t i = 0; i < s->n_threads; i++)
    if (!s->threads[i].fs_base)
      return 0;
  uint64_t at;
  uint32_t running;
  const unsigned char *p;
  if (!s->t->ops->lookup_symbol
      || s->t->ops->lookup_symbol (s->t->ctx, "__nptl_nthreads", &at) != 0
      || !(p = hi_scan_read (s, at, 4)))
    return 0;
  memcpy (&running, p, 4);
  return running == s->n_threads;
}

hi_status
hi_scan_dead_stacks (struct hi_scan *s, struct hi_ranges *exclude)
{
  struct alive a = { 0 };
  const char *why;
  a.have_db = hi_thread_db_list (s->t, &a.db, &a.n_db, &why) == 0
              && a.n_db > 0;
  s->r->thread_db = a.have_db;
  if (!a.have_db && s->t->thread_db)
    s->r->thread_db_why = a.n_db == 0 && !why ? "it lists no thread" : why;
  s->r->dead_by_registers = !a.have_db && registers_tell (s);
  if (!a.have_db && !s->r->dead_by_registers)
    {
      free (a.db);
      return HI_OK;
    }
  hi_status st = HI_OK;
  for (size_t i = 0; i < s->n_maps; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      uint64_t tp;
      if (!hi_scan_map_is_root (e) || !e->in_target || e->path[0]
          || holds_live_sp (s, e) || !(tp = dead_descriptor (s, &a, e)))
        continue;
      uint64_t stop = static_tls_start (s, e->start, tp);
      if (hi_ranges_add (exclude, e->start, stop))
        {
          st = HI_E_NOMEM;
          break;
        }
      s->r->dead_stacks++;
      s->r->dead_stack_bytes += stop - e->start;
    }
  free (a.db);
  return st;
}
