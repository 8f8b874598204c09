/* reach-stacks.c - exited threads' stacks, which are not roots.  glibc
   keeps a thread's stack mapped after the thread exits (its stack
   cache, up to 40 MiB, for the next pthread_create), with every word
   the thread left there: scanned as a root, it would make blocks only a
   dead thread pointed to look reachable, where memcheck (which stops
   tracking a thread's stack when it exits) calls them lost.

   A stack glibc allocated holds its thread's descriptor at its top
   (struct pthread, TLS_TCB_AT_TP on x86-64), whose first word (tcb)
   and third (self) both hold the descriptor's own address: the thread
   pointer.  Every live thread's thread pointer is in its registers
   (fs_base).  So an anonymous mapping whose top holds such a
   descriptor that is no live thread's is an exited thread's stack.
   Without the threads' registers (a raw dump, gdb's own target) live
   and dead cannot be told apart, and every stack stays a root.  Nor
   when glibc counts more running threads (__nptl_nthreads, which a
   thread lowers as it exits by itself) than the target has: threads
   killed with the process (the kernel's exit stop after _exit or a
   signal) left their stacks as they were, uncached, and memcheck, which
   still tracks them, scans them.

   What memcheck stops scanning is the frames the thread popped: the
   stack below its last stack pointer.  Its descriptor and its static
   TLS blocks (right below the descriptor) stay memory like any other,
   scanned: the descriptor points into its DTV, which memcheck then
   calls possibly lost.  So the part left out is the mapping's start up
   to the lowest static TLS block its DTV names (the descriptor's own
   address if the DTV cannot be read). */
#define _GNU_SOURCE
#include "reach/reach-int.h"

#include <string.h>

/* The descriptor lies this near the top: sizeof (struct pthread) (2,304
   bytes in glibc 2.36), aligned down to the static TLS alignment. */
#define TOP_SEARCHED 8192u
#define TCB_ALIGN 16u

static int
is_live_tcb (const struct hi_scan *s, uint64_t tp)
{
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

/* The address of the thread descriptor at mapping E's top if no live
   thread has it, else 0. */
static uint64_t
dead_descriptor (struct hi_scan *s, const struct hi_map_entry *e)
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
            return is_live_tcb (s, tp) ? 0 : tp;
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

hi_status
hi_scan_dead_stacks (struct hi_scan *s, struct hi_ranges *exclude)
{
  /* Every thread's thread pointer known, or nothing is left out: the
     main thread's descriptor lies in memory ld.so mapped, and may sit
     near the top of a mapping that holds roots. */
  if (!s->n_threads)
    return HI_OK;
  for (size_t i = 0; i < s->n_threads; i++)
    if (!s->threads[i].fs_base)
      return HI_OK;
  uint64_t at;
  uint32_t running;
  const unsigned char *p;
  if (!s->t->ops->lookup_symbol
      || s->t->ops->lookup_symbol (s->t->ctx, "__nptl_nthreads", &at) != 0
      || !(p = hi_scan_read (s, at, 4)))
    return HI_OK;
  memcpy (&running, p, 4);
  if (running != s->n_threads)
    return HI_OK;
  for (size_t i = 0; i < s->n_maps; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      uint64_t tp;
      if (!hi_scan_map_is_root (e) || !e->in_target || e->path[0]
          || holds_live_sp (s, e) || !(tp = dead_descriptor (s, e)))
        continue;
      uint64_t stop = static_tls_start (s, e->start, tp);
      if (hi_ranges_add (exclude, e->start, stop))
        return HI_E_NOMEM;
      s->r->dead_stacks++;
      s->r->dead_stack_bytes += stop - e->start;
    }
  return HI_OK;
}
