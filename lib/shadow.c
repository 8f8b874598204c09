/* shadow.c - call chains from -finstrument-functions: a per-thread shadow
   stack kept by __cyg_profile_func_enter/exit, used instead of unwinding
   when HEAPINSPECT_CHAINS=instrument.  Exact where unwinding cannot go
   (code without CFI, JIT code), for the functions that are instrumented.

   An entry is a function entered and not left: its address, its call
   site (the return address into its caller) and where that return
   address is on the stack (its slot).  A function left without its exit
   hook (longjmp; clang's exceptions, which skip the hooks) leaves stale
   entries: their slots are at or below the slot of a function entered
   later by one of their callers, and below the stack of any allocation
   made by one, so each hook and each chain first drops the entries whose
   slot is not above its own stack pointer.  GCC calls the exit hooks
   while an exception unwinds; the exit hook drops every entry above the
   one it matches. */
#define _GNU_SOURCE
#include "shadow.h"
#include "unwind.h"

#define PUBLIC __attribute__ ((visibility ("default"), noinline, \
                               no_instrument_function))
#define NOINST __attribute__ ((no_instrument_function))

#define SHADOW_MAX 1024u
/* How far above the hook the instrumented function's return address may
   be (its frame: locals, saved registers) when the stack's top is not
   known from an outer entry. */
#define SCAN_FIRST 4096u
#define SCAN_MAX   (UINT64_C(1) << 20)

struct entry
{
  uint64_t fn;       /* the instrumented function */
  uint64_t site;     /* the return address into its caller */
  uint64_t slot;     /* where SITE is on the stack; 0: not found */
  uint64_t hook;     /* where the enter hook's return address was: the
                        function's stack pointer (less 8) in its body */
};

struct shadow
{
  uint32_t n;        /* entries in use */
  uint32_t lost;     /* functions entered beyond SHADOW_MAX */
  struct entry e[SHADOW_MAX];
};

static __thread struct shadow *sh_data
  HI_TLS_MODEL;
#define sh HI_TLS (sh_data, HI_TLS_SLOT_SHADOW)

extern void *__libc_stack_end;

static NOINST int
on (void)
{
  int m = atomic_load_explicit (&hi_state.shadow.mode,
                                memory_order_relaxed);
  if (HI_LIKELY (m))
    return m == 2;
  const char *v = hi_prim_getenv ("HEAPINSPECT_CHAINS");
  m = v && (v[0] == 'i' && v[1] == 'n' && v[2] == 's') ? 2 : 1;
  atomic_store (&hi_state.shadow.mode, m);
  hi_state.shadow.on = m == 2;
  return m == 2;
}

/* Drop the entries whose slot is not above SP (functions already left). */
static inline NOINST void
drop_below (struct shadow *s, uint64_t sp)
{
  while (s->n && s->e[s->n - 1].slot && s->e[s->n - 1].slot <= sp)
    s->n--;
}

/* The slot of return address SITE: the first word equal to it from FROM
   upward, below LIMIT; 0 if none. */
static NOINST uint64_t
find_slot (uint64_t from, uint64_t limit, uint64_t site)
{
  for (uint64_t p = from; p + 8 <= limit; p += 8)
    if (*(const uint64_t *) (uintptr_t) p == site)
      return p;
  return 0;
}

PUBLIC void
__cyg_profile_func_enter (void *fn, void *site)
{
  if (HI_LIKELY (!on ()))
    return;
  struct shadow *s = sh;
  if (HI_UNLIKELY (!s))
    {
      s = hi_prim_alloc_nodump (sizeof *s);
      if (!s)
        return;
      sh = s;
    }
  uint64_t hook = (uint64_t) (uintptr_t) __builtin_frame_address (0) + 8;
  uint64_t from = hook + 8;      /* FN's stack pointer */
  /* The scan stays inside the live stack: below the outermost entry's
     slot, or the main thread's start, or a page above. */
  uint64_t limit = from + SCAN_FIRST;
  uint64_t top = (uint64_t) (uintptr_t) __libc_stack_end;
  if (s->n && s->e[0].slot > from && s->e[0].slot - from < SCAN_MAX)
    limit = s->e[0].slot + 8;
  else if (top > from && top - from < SCAN_MAX)
    limit = top;
  uint64_t slot = find_slot (from, limit, (uint64_t) (uintptr_t) site);
  if (slot)
    drop_below (s, slot);
  if (s->n == SHADOW_MAX)
    {
      s->lost++;
      return;
    }
  s->e[s->n++] = (struct entry) { (uint64_t) (uintptr_t) fn,
                                  (uint64_t) (uintptr_t) site, slot, hook };
}

PUBLIC void
__cyg_profile_func_exit (void *fn, void *site)
{
  struct shadow *s = sh;
  if (!s || !s->n)
    return;
  if (s->lost)
    {
      s->lost--;
      return;
    }
  uint64_t f = (uint64_t) (uintptr_t) fn, c = (uint64_t) (uintptr_t) site;
  for (uint32_t i = s->n; i-- > 0;)
    if (s->e[i].fn == f && s->e[i].site == c)
      {
        s->n = i;    /* and the entries above it: left without a hook */
        return;
      }
}

/* The frame of the backtrace (CFA[0..N)) from FROM on whose stack
   pointer is WANT: its index, or -1.  (libgcc's CFA of a frame's context
   is the stack pointer in that frame: the CFA of the frame it called.) */
static int
frame_at (const uint64_t *cfa, int n, int from, uint64_t want)
{
  for (int i = from < 0 ? 0 : from; i < n && cfa[i] <= want; i++)
    if (cfa[i] == want)
      return i;
  return -1;
}

/* The chain of shadow stack S for CALLER into OUT (at most MAX), the
   gaps (code not instrumented between two instrumented functions, or
   between the innermost and the allocator) filled from the unwound
   return addresses IP[0..N) (IP[0] is CALLER's): the addresses after a
   function's call site up to its caller's.  A gap whose ends are not
   found stays empty.  How many. */
static int
fill_by_value (const struct shadow *s, const struct hi_frame *caller,
               const uint64_t *ip, int n, uint64_t *out, int max)
{
  const struct entry *e = s->e;
  uint32_t top = s->n - 1;
  int k = 0, pos = 0;
  out[k++] = caller->ip;
  if (caller->sp - 8 != e[top].hook)
    {
      int b = 1;
      while (b < n && ip[b] != e[top].site)
        b++;
      if (b < n)
        {
          for (int m = 1; m < b && k < max; m++)
            out[k++] = ip[m];
          pos = b;
        }
    }
  for (uint32_t i = top + 1; i-- > 0 && k < max;)
    {
      out[k++] = e[i].site;
      if (i == 0 || e[i].slot == e[i - 1].hook)
        continue;
      int a = pos;
      while (a < n && ip[a] != e[i].site)
        a++;
      int b = a + 1;
      while (b < n && ip[b] != e[i - 1].site)
        b++;
      if (b < n)
        {
          for (int m = a + 1; m < b && k < max; m++)
            out[k++] = ip[m];
          pos = b;
        }
    }
  return k;
}

/* The same, the gaps filled by libgcc's unwinder (where the monitor's
   own could not unwind), matched by stack positions: a function's frame
   is the one whose caller's stack pointer is right above its return
   address's slot.  IP and CFA: scratch of HI_MAX_DEPTH + 1 entries. */
static int
fill_by_cfa (const struct shadow *s, const struct hi_frame *caller,
             uint64_t *ip, uint64_t *cfa, uint64_t *out, int max)
{
  const struct entry *e = s->e;
  uint32_t top = s->n - 1;
  int n = hi_prim_backtrace_cfa (ip, cfa, HI_MAX_DEPTH + 1);
  int pos = 0;
  while (pos < n && ip[pos] != caller->ip)
    pos++;
  if (pos == n)
    n = 0;
  int k = 0;
  out[k++] = caller->ip;
  if (n && caller->sp - 8 != e[top].hook && e[top].slot)
    {
      /* The frames out to T's own, the one before its caller's. */
      int b = frame_at (cfa, n, pos, e[top].slot + 8);
      for (int m = pos + 1; b >= 0 && m < b && k < max; m++)
        out[k++] = ip[m];
    }
  for (uint32_t i = top + 1; i-- > 0 && k < max;)
    {
      out[k++] = e[i].site;
      if (n && i > 0 && e[i].slot != e[i - 1].hook && e[i].slot
          && e[i - 1].slot)
        {
          /* After E[i]'s caller (whose pc is its site), the frames out
             to E[i - 1]'s own. */
          int a = frame_at (cfa, n, pos, e[i].slot + 8);
          int b = a >= 0 ? frame_at (cfa, n, a, e[i - 1].slot + 8) : -1;
          for (int m = a + 1; b > a && m < b && k < max; m++)
            out[k++] = ip[m];
        }
    }
  return k;
}

/* The chain of the allocation whose entry point was called from CALLER,
   from the shadow stack: return addresses innermost first into OUT (at
   most MAX); how many, or -1 when there is no shadow stack to use.
   Where a function of the shadow stack was called by code not
   instrumented (a library's callback, the allocator called from such
   code), the frames in between come from unwinding, when it can: a
   function called directly had its stack pointer where its caller's
   enter hook had it. */
int
hi_shadow_chain (const struct hi_frame *caller, uint64_t *out, int max)
{
  struct shadow *s = sh;
  if (!s || s->lost || max < 1)
    return -1;
  drop_below (s, caller->sp - 8);
  if (!s->n)
    return -1;
  const struct entry *e = s->e;
  uint32_t top = s->n - 1;
  int gaps = caller->sp - 8 != e[top].hook;
  for (uint32_t i = top; i > 0 && !gaps; i--)
    gaps = e[i].slot != e[i - 1].hook;
  uint64_t *ip = hi_tls.raw, *cfa = hi_tls.check;
  int k = 0, n;
  out[k++] = caller->ip;
  if (!gaps)
    for (uint32_t i = top + 1; i-- > 0 && k < max;)
      out[k++] = e[i].site;
  else if ((n = hi_unwind (caller, ip, HI_MAX_DEPTH + 1)) > 0)
    k = fill_by_value (s, caller, ip, n, out, max);   /* the fast unwinder */
  else
    k = fill_by_cfa (s, caller, ip, cfa, out, max);   /* libgcc's */
  if (HI_UNLIKELY (!heapinspect_root.client[HI_CLIENT_CHAINS]))
    heapinspect_root.client[HI_CLIENT_CHAINS] = HI_CHAINS_INSTRUMENT;
  return k;
}
