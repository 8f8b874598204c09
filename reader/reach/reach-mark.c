/* reach-mark.c - memcheck's leak search (mc_leakcheck.c) over the blocks
   found: mark from the roots, then gather the unreached blocks into
   cliques.  The rules are memcheck's, so the classes agree with it:
   - a word equal to a block's start reaches it; a word inside it (a
     0-byte block covers one byte) reaches it only possibly, unless one
     of memcheck's heuristics (all on by default: stdstring, length64,
     newarray, multipleinheritance) takes it for a start pointer;
   - a block reached by a start pointer from a root or from a reachable
     block is reachable; any other reached block is possibly lost, and
     so is whatever it reaches that is not reachable otherwise;
   - then, in address order, each block still unreached leads a clique:
     it stays definitely lost and every unreached block it reaches, by
     any pointer, is indirectly lost (a leader reached later joins the
     later clique, so a cycle has one leader: its lowest block).
   What memcheck has that a core does not: which bytes are defined.  It
   skips words it knows were never written; here every word counts. */
#define _GNU_SOURCE
#include "target/target.h"
#include "reach/reach-int.h"
#include "util/sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RED_ZONE 128u              /* below the stack pointer (x86-64) */
#define PAGE 4096u
#define VTABLE_MAX_CHECK 20

/* user_regs_struct's general registers, what memcheck scans (rax ...
   r15 with rsp and rbp): every word but orig_rax, rip, eflags and the
   segment and base registers. */
static const unsigned gp_regs[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                    12, 13, 14, 19 };

static void
push (struct hi_scan *s, uint32_t i)
{
  if (!s->b[i].pending)
    {
      s->stack[s->top++] = i;
      s->b[i].pending = 1;
    }
}

static int
read_word (struct hi_scan *s, uint64_t addr, uint64_t *out)
{
  const unsigned char *p = hi_scan_read (s, addr, 8);
  if (!p)
    return -1;
  memcpy (out, p, 8);
  return 0;
}

/* A mapping of a file, as memcheck's SkFileC: named, not "[heap]" or
   the like. */
static int
file_mapping (const struct hi_map_entry *e)
{
  return e && e->path[0] && e->path[0] != '[';
}

/* memcheck's aligned_ptr_above_page0_is_vtable_addr: PTR is in a
   readable file mapping and the words there, up to 20 on, hold two
   non-NULL pointers into executable file mappings before anything
   else. */
static int
is_vtable (struct hi_scan *s, uint64_t ptr)
{
  const struct hi_map_entry *e = hi_scan_mapping_of (s, ptr);
  if (!file_mapping (e) || !(e->prot & HI_MAP_READ))
    return 0;
  uint64_t scan_max = ptr + VTABLE_MAX_CHECK * 8;
  /* memcheck's segment end is its last byte */
  if (scan_max > e->end - 1 - 8)
    scan_max = e->end - 1 - 8;
  unsigned n = 0;
  for (uint64_t scan = ptr; scan <= scan_max; scan += 8)
    {
      uint64_t fn;
      if (read_word (s, scan, &fn) != 0)
        return 0;
      if (fn == 0)
        continue;
      const struct hi_map_entry *f = hi_scan_mapping_of (s, fn);
      if (!file_mapping (f) || !(f->prot & HI_MAP_EXEC))
        return 0;
      if (++n == 2)
        return 1;
    }
  return 0;
}

/* memcheck's heuristic_reachedness: whether interior pointer PTR to
   block I counts as a start pointer. */
static int
heuristic (struct hi_scan *s, uint64_t ptr, uint32_t i)
{
  uint64_t data = s->b[i].start, size = s->b[i].size, w0, w1;
  /* The size asked for, memcheck's szB, is in [least, size]: a glibc
     chunk's usable size may be more (reach-chunks.c). */
  uint64_t least = size > s->b[i].slack ? size - s->b[i].slack : 0;
  /* stdstring: length, capacity, refcount, then the characters */
  if (ptr == data + 24 && read_word (s, data + 8, &w1) == 0
      && w1 < size && 24 + w1 + 1 >= least && 24 + w1 + 1 <= size
      && read_word (s, data, &w0) == 0 && w0 <= w1)
    return 1;
  /* length64: the bytes after the first word, counted in it (sqlite) */
  if (ptr == data + 8 && read_word (s, data, &w0) == 0 && w0 > 0
      && w0 < size && w0 + 8 >= least && w0 + 8 <= size)
    return 1;
  /* newarray: new[]'s element count, then the elements */
  if (ptr == data + 8 && read_word (s, data, &w0) == 0 && w0 > 0
      && (size - 8) % w0 == 0)
    return 1;
  /* multipleinheritance: a vtable pointer at PTR and at the start */
  uint64_t inner, first;
  if ((ptr & 7) == 0 && read_word (s, ptr, &inner) == 0 && (inner & 7) == 0
      && inner >= PAGE && read_word (s, data, &first) == 0
      && (first & 7) == 0 && first >= PAGE && is_vtable (s, inner)
      && is_vtable (s, first))
    return 1;
  return 0;
}

/* The block holding PTR into *I: 0, or -1 if no block holds it. */
static int
block_at (const struct hi_scan *s, uint64_t ptr, uint32_t *i)
{
  int64_t found = hi_scan_find (s, ptr);
  if (found < 0)
    return -1;
  *i = (uint32_t) found;
  return 0;
}

/* Gives block I its new STATE and pushes it, to look at its words. */
static void
mark (struct hi_scan *s, uint32_t i, uint8_t state)
{
  s->b[i].state = state;
  push (s, i);
}

/* lc_push_without_clique_if_a_chunk_ptr. */
static void
push_root (struct hi_scan *s, uint64_t ptr, int prior_definite)
{
  uint32_t i;
  if (block_at (s, ptr, &i) != 0 || s->b[i].state == HI_ST_REACHABLE)
    return;
  int start = ptr == s->b[i].start || heuristic (s, ptr, i);
  if (start && prior_definite)
    mark (s, i, HI_ST_REACHABLE);
  else if (s->b[i].state == HI_ST_UNREACHED)
    mark (s, i, HI_ST_POSSIBLE);
}

/* lc_push_with_clique_if_a_chunk_ptr (no sizes: the loss records'
   "(N direct, M indirect)" are not shown). */
static void
push_clique (struct hi_scan *s, uint64_t ptr, uint32_t clique)
{
  uint32_t i;
  if (block_at (s, ptr, &i) == 0 && s->b[i].state == HI_ST_UNREACHED
      && i != clique)
    mark (s, i, HI_ST_INDIRECT);
}

/* The live threads' TLS blocks that are heap blocks (a dlopen'd
   module's, which glibc allocates on a thread's first use and reaches
   only through the thread's DTV, found by libthread_db): roots, as
   LeakSanitizer scans them, and reachable themselves. */
static void
tls_roots (struct hi_scan *s)
{
  uint64_t *tls;
  size_t n;
  const char *why;
  /* Without libthread_db (gdb gives the threads), each thread's DTV. */
  if (hi_thread_db_tls_blocks (s->t, &tls, &n, &why) != 0
      && hi_threads_dtv_blocks (s->t, &tls, &n) != 0)
    return;
  for (size_t k = 0; k < n; k++)
    {
      uint32_t i;
      if (block_at (s, tls[k], &i) == 0 && s->b[i].state != HI_ST_REACHABLE)
        {
          mark (s, i, HI_ST_REACHABLE);
          s->r->tls_blocks++;
        }
    }
  free (tls);
}

#define BATCH 32

/* Push (as lc_push_if_a_chunk_ptr) the blocks the N words of CAND point
   into. */
static void
lookup_batch (struct hi_scan *s, const uint64_t *cand, size_t n,
              int prior_definite, int64_t clique)
{
  if (n > 4)
    {
      for (size_t k = 0; k < n; k++)
        hi_scan_prefetch (s, cand[k], 0);
      for (size_t k = 0; k < n; k++)
        hi_scan_prefetch (s, cand[k], 1);
    }
  for (size_t k = 0; k < n; k++)
    if (clique < 0)
      push_root (s, cand[k], prior_definite);
    else
      push_clique (s, cand[k], (uint32_t) clique);
}

/* lc_scan_memory: the 8-aligned words of [START, START + LEN).  CLIQUE
   is -1 for the marking from the roots. */
static void
scan_memory (struct hi_scan *s, uint64_t start, uint64_t len,
             int prior_definite, int64_t clique)
{
  uint64_t at = (start + 7) & ~(uint64_t) 7;
  uint64_t end = (start + len) & ~(uint64_t) 7;
  if (start + len < start)
    return;
  const uint64_t lo = s->lo, span = s->hi - s->lo;
  while (at < end && !hi_scan_stop (s))
    {
      uint64_t piece = HI_SCAN_SLOT - (at & (HI_SCAN_SLOT - 1));
      size_t n = end - at > piece ? (size_t) piece : (size_t) (end - at);
      const unsigned char *p = hi_scan_read (s, at, n);
      if (!p)
        {
          /* A torn piece: find what can be read, a page at a time. */
          n = PAGE - (at & (PAGE - 1));
          if (n > end - at)
            n = end - at;
          p = hi_scan_read (s, at, n);
          if (!p)
            {
              s->r->skipped.unreadable_bytes += n;
              at += n;
              continue;
            }
        }
      /* The pointers of the piece, looked up in batches: prefetch their
         page entries, then their blocks, then look them up (memory
         latency, not work, is what a lookup costs). */
      uint64_t cand[BATCH];
      size_t nc = 0;
      /* A heuristic's reads may reuse P's cache slot: then read the
         piece again (the target's memory does not change). */
      size_t slot = hi_scan_slot (at);
      uint64_t gen = s->slot_gen[slot];
      for (size_t k = 0; k + 8 <= n; k += 8)
        {
          uint64_t v;
          memcpy (&v, p + k, 8);
          if (v - lo >= span)
            continue;
          if (s->edge)
            {
              /* hi_scan_edges: every pointer into a block, where it is. */
              int64_t i = hi_scan_find (s, v);
              if (i >= 0)
                s->edge (s->edge_ctx, at + k, v, (uint32_t) i);
              continue;
            }
          cand[nc++] = v;
          if (nc < BATCH)
            continue;
          lookup_batch (s, cand, nc, prior_definite, clique);
          nc = 0;
          if (s->slot_gen[slot] != gen)
            {
              p = hi_scan_read (s, at, n);
              gen = s->slot_gen[slot];
              if (!p)
                {
                  s->r->skipped.unreadable_bytes += n - k - 8;
                  break;
                }
            }
        }
      if (nc)
        lookup_batch (s, cand, nc, prior_definite, clique);
      at += n;
    }
}

static int
index_cmp (const void *x, const void *y)
{
  return hi_cmp_u64 (*(const uint32_t *) x, *(const uint32_t *) y);
}

/* lc_process_markstack, the stack taken in batches scanned in address
   order (the outcome is the same in any order: states only rise, and a
   block whose state rises is scanned again), so that the target's
   memory is read in order, not at random. */
static void
process (struct hi_scan *s, int64_t clique)
{
  while (s->top && !s->stop)
    {
      uint32_t n = s->top;
      memcpy (s->batch, s->stack, n * sizeof *s->batch);
      s->top = 0;
      if (n > 1)
        qsort (s->batch, n, sizeof *s->batch, index_cmp);
      for (uint32_t k = 0; k < n && !hi_scan_stop (s); k++)
        {
          uint32_t i = s->batch[k];
          if (!s->b[i].pending)
            continue;           /* scanned already, pushed again since */
          s->b[i].pending = 0;
          int prior_definite = s->b[i].state != HI_ST_POSSIBLE;
          s->r->scanned_bytes += s->b[i].size;
          const unsigned char *w;
          if (s->first && s->b[i].size >= 8
              && (w = hi_scan_read (s, s->b[i].start, 8)))
            memcpy (&s->first[i], w, 8);
          scan_memory (s, s->b[i].start, s->b[i].size, prior_definite, clique);
        }
    }
}

/* Register REG (an index of user_regs_struct, or HI_SCAN_EXIT_REG + k)
   of thread THREAD, of value V, as a root. */
static void
root_register (struct hi_scan *s, size_t thread, unsigned reg, uint64_t v)
{
  if (!s->edge_reg)
    {
      push_root (s, v, 1);
      return;
    }
  if (v - s->lo >= s->hi - s->lo)
    return;
  int64_t i = hi_scan_find (s, v);
  if (i >= 0)
    s->edge_reg (s->edge_ctx, thread, reg, v, (uint32_t) i);
}

/* Where the stack roots of the threads whose stack pointer is in
   mapping [START, END) begin: the lowest of their stack pointers less
   the red zone (not below START), or, for the thread held in exit() at
   the exit stop, exit()'s caller's frame; START if none is there.
   *SKIP gets the bytes of exit()'s frames left out, if that thread's
   start is the lowest. */
static uint64_t
stack_start (const struct hi_scan *s, uint64_t start, uint64_t end,
             uint64_t *skip)
{
  uint64_t low = UINT64_MAX;
  *skip = 0;
  for (size_t i = 0; i < s->n_threads; i++)
    {
      uint64_t sp = s->threads[i].sp;
      if (sp < start || sp >= end)
        continue;
      uint64_t from = sp - start > RED_ZONE ? sp - RED_ZONE : start;
      uint64_t left = 0;
      if (i == s->exit_thread && s->exit_cfa > from)
        {
          left = s->exit_cfa - from;
          from = s->exit_cfa;
        }
      if (from < low)
        {
          low = from;
          *skip = left;
        }
    }
  return low == UINT64_MAX ? start : low;
}

/* Scan [A, B) as roots but for the parts in EXCLUDE (normalized). */
static void
scan_root_piece (struct hi_scan *s, uint64_t a, uint64_t b,
                 const struct hi_ranges *exclude)
{
  /* The first range ending after A. */
  size_t lo = hi_upper_bound_u64 (exclude->v, exclude->n, sizeof *exclude->v,
                                   offsetof (struct hi_range, end), a);
  for (size_t j = lo; a < b; j++)
    {
      uint64_t stop = j < exclude->n && exclude->v[j].start < b
                      ? exclude->v[j].start : b;
      if (stop > a)
        {
          s->r->root_bytes += stop - a;
          scan_memory (s, a, stop - a, 1, -1);
        }
      if (stop == b)
        break;
      a = exclude->v[j].end;
    }
}

/* The roots of S: the memory ones (readable, writable mappings but the
   monitor's arenas, malloc's heap, glibc's main arena and the stacks of
   exited threads; a stack from below its thread's stack pointer's red
   zone) scanned, then the registers pushed (or, with S->edge set, every
   pointer of theirs into a block handed to S->edge and S->edge_reg).
   HI_E_NOMEM. */
static hi_status
scan_roots (struct hi_scan *s, unsigned flags)
{
  /* What is not a root: the monitor's arenas and malloc's heap. */
  struct hi_ranges exclude = { 0 };
  for (size_t i = 0; i < s->monitor.n; i++)
    if (hi_ranges_add (&exclude, s->monitor.v[i].start, s->monitor.v[i].end))
      goto nomem;
  for (size_t i = 0; i < s->heap.n; i++)
    if (hi_ranges_add (&exclude, s->heap.v[i].start, s->heap.v[i].end))
      goto nomem;
  if (hi_scan_glibc (s, &exclude) != HI_OK
      || hi_scan_dead_stacks (s, &exclude) != HI_OK)
    goto nomem;
  hi_ranges_normalize (&exclude);
  /* Threads whose stack pointer is in no mapping held. */
  for (size_t i = 0; i < s->n_threads; i++)
    {
      const struct hi_map_entry *e = hi_scan_mapping_of (s, s->threads[i].sp);
      if (!e || !e->in_target)
        s->r->skipped.threads++;
    }
  if (!s->n_blocks)
    goto done;
  /* The memory roots. */
  for (size_t i = 0; i < s->n_maps; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      if (!hi_scan_map_is_root (e) || !e->in_target)
        continue;
      uint64_t skip, a = stack_start (s, e->start, e->end, &skip);
      s->r->exit_frames_bytes += skip;
      scan_root_piece (s, a, e->end, &exclude);
    }
  /* The registers. */
  for (size_t i = 0; i < s->n_threads && !(flags & HI_REACH_NO_REGISTERS);
       i++)
    {
      const struct hi_thread_regs *t = &s->threads[i];
      if (t->n_regs > 19)
        for (size_t k = 0; k < sizeof gp_regs / sizeof gp_regs[0]; k++)
          root_register (s, i, gp_regs[k], t->regs[gp_regs[k]]);
      else
        for (size_t k = 0; k < t->n_regs; k++)
          root_register (s, i, (unsigned) k, t->regs[k]);
    }
  /* exit()'s caller's registers, kept across the call (its frames
     saved them, and were left out above). */
  for (unsigned k = 0; k < s->n_exit_regs
       && !(flags & HI_REACH_NO_REGISTERS); k++)
    root_register (s, s->exit_thread, HI_SCAN_EXIT_REG + k, s->exit_regs[k]);
  if (s->exit_thread < s->n_threads)
    s->r->exit_tid = s->threads[s->exit_thread].tid;
done:
  hi_ranges_free (&exclude);
  return HI_OK;
nomem:
  hi_ranges_free (&exclude);
  return HI_E_NOMEM;
}

hi_status
hi_scan_mark (struct hi_scan *s, unsigned flags)
{
  uint32_t n = s->n_blocks;
  s->stack = malloc ((n + 1) * sizeof *s->stack);
  s->batch = malloc ((n + 1) * sizeof *s->batch);
  if (!s->m)
    {
      /* Without the monitor, each block's first word (a C++ object's
         vtable pointer), kept as it is read. */
      free (s->first);
      s->first = calloc (n + 1, sizeof *s->first);
    }
  if (!s->stack || !s->batch || (!s->m && !s->first))
    return HI_E_NOMEM;
  s->r->threads = s->n_threads;
  hi_status st = scan_roots (s, flags);
  if (st != HI_OK || !n)
    return st;
  tls_roots (s);
  process (s, -1);
  /* The cliques of what is left. */
  for (uint32_t i = 0; i < n && !hi_scan_stop (s); i++)
    if (s->b[i].state == HI_ST_UNREACHED)
      {
        push (s, i);
        process (s, i);
      }
  return HI_OK;
}

hi_status
hi_scan_edges (struct hi_scan *s, unsigned flags)
{
  /* What the roots' scan counts belongs to the marking's result. */
  struct hi_reach keep = *s->r;
  hi_status st = scan_roots (s, flags);
  *s->r = keep;
  return st;
}

void
hi_scan_block_edges (struct hi_scan *s, uint32_t i)
{
  struct hi_reach keep = *s->r;
  scan_memory (s, s->b[i].start, s->b[i].size, 1, -1);
  *s->r = keep;
}
