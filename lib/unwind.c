/* unwind.c - a cached DWARF CFI unwinder for x86-64.

   libgcc's unwinder finds and interprets the FDE of every frame of every
   allocation: most of the monitor's cost if done each time.  Here the
   outcome of that work - how to get from a frame to its caller at one
   return address - is reduced to a small rule (CFA = rsp or rbp +
   offset; return address at CFA - 8; rbp saved at CFA + n or unchanged)
   and cached per return address, so an unwound frame costs a cache
   probe and two loads.
   A rule is computed once from .eh_frame (found with _dl_find_object).
   Anything a rule cannot express (signal frames, DWARF expressions,
   unusual return-address rules) makes the chain fall back to libgcc.
   Every stack read is checked against the thread's stack bounds, so a
   wrong rule yields a wrong chain, never a crash. */
#define _GNU_SOURCE
#include "unwind.h"

#include <dlfcn.h>
#include <string.h>

#ifdef HI_FAST_UNWIND

/* DWARF register numbers on x86-64. */
enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

enum
{
  R_VALID = 1,        /* the entry holds a rule */
  R_BP_SAVED = 2,     /* caller's rbp is at CFA + bp_off */
  R_END = 4,          /* outermost frame: no caller */
  R_FALLBACK = 8,     /* not expressible: use libgcc for this chain */
};

/* A rule, in the cache of rules by return address (hi_state.unwind).
   ip is written last (release) and read first and last (acquire) by
   readers, so a reader never uses a rule for another ip. */
struct hi_unwind_rule
{
  uint64_t ip;
  int32_t cfa_off;
  int16_t bp_off;
  uint8_t cfa_reg;
  uint8_t flags;
};

#define CACHE_BITS 14
#define CACHE_SIZE (1u << CACHE_BITS)

/* --- reading CFI ----------------------------------------------------- */

struct reader
{
  const uint8_t *p, *end;
  int bad;
};

static uint64_t
uleb (struct reader *r)
{
  uint64_t v = 0;
  for (int shift = 0; r->p < r->end && shift < 64; shift += 7)
    {
      uint8_t b = *r->p++;
      v |= (uint64_t) (b & 0x7f) << shift;
      if (!(b & 0x80))
        return v;
    }
  r->bad = 1;
  return 0;
}

static int64_t
sleb (struct reader *r)
{
  int64_t v = 0;
  int shift = 0;
  uint8_t b = 0x80;
  while (r->p < r->end && (b & 0x80) && shift < 64)
    {
      b = *r->p++;
      v |= (int64_t) (b & 0x7f) << shift;
      shift += 7;
    }
  if (b & 0x80)
    r->bad = 1;
  else if (shift < 64 && (b & 0x40))
    v |= -((int64_t) 1 << shift);
  return v;
}

static uint64_t
fixed (struct reader *r, int n)
{
  uint64_t v = 0;
  if (r->end - r->p < n)
    {
      r->bad = 1;
      return 0;
    }
  memcpy (&v, r->p, (size_t) n);   /* little-endian */
  r->p += n;
  return v;
}

/* A pointer in DW_EH_PE encoding ENC; only what GCC and clang emit. */
static uint64_t
encoded (struct reader *r, uint8_t enc, uint64_t datarel)
{
  uint64_t here = (uint64_t) (uintptr_t) r->p, v;
  if (enc == 0xff)                         /* DW_EH_PE_omit */
    return 0;
  switch (enc & 0x0f)
    {
    case 0x00: v = fixed (r, 8); break;                     /* absptr */
    case 0x01: v = uleb (r); break;                         /* uleb128 */
    case 0x02: v = fixed (r, 2); break;                     /* udata2 */
    case 0x03: v = fixed (r, 4); break;                     /* udata4 */
    case 0x04: v = fixed (r, 8); break;                     /* udata8 */
    case 0x09: v = (uint64_t) sleb (r); break;              /* sleb128 */
    case 0x0a: v = (uint64_t) (int64_t) (int16_t) fixed (r, 2); break;
    case 0x0b: v = (uint64_t) (int64_t) (int32_t) fixed (r, 4); break;
    case 0x0c: v = fixed (r, 8); break;                     /* sdata8 */
    default: r->bad = 1; return 0;
    }
  switch (enc & 0x70)
    {
    case 0x00: break;                                       /* absolute */
    case 0x10: v += here; break;                            /* pcrel */
    case 0x30: v += datarel; break;                         /* datarel */
    default: r->bad = 1; break;
    }
  if (enc & 0x80)                                           /* indirect */
    r->bad = 1;
  return v;
}

struct state
{
  uint8_t cfa_reg;
  int64_t cfa_off;
  int bp_rule;        /* 0 same value, 1 saved at CFA + bp_off, -1 other */
  int64_t bp_off;
  int ra_rule;        /* 1 at CFA + ra_off, 0 undefined, -1 other */
  int64_t ra_off;
  int cfa_expr;
};

/* What a CFA instruction that gives REG a rule we cannot express does:
   the caller's rbp, or its return address, is not found. */
static void
rule_unknown (struct state *s, uint64_t reg)
{
  if (reg == REG_RBP)
    s->bp_rule = -1;
  else if (reg == REG_RA)
    s->ra_rule = -1;
}

/* Apply the CFA instruction OP (its operands at R) if it is one that
   only sets the CFA's rule or a register's: 1 if it is, else 0. */
static int
set_rule (struct reader *r, struct state *s, uint8_t op, int64_t data_align)
{
  uint64_t reg;
  switch (op)
    {
    case 0x07:                                /* undefined */
      reg = uleb (r);
      if (reg == REG_RA)
        s->ra_rule = 0;
      else if (reg == REG_RBP)
        s->bp_rule = -1;
      break;
    case 0x08:                                /* same_value */
      reg = uleb (r);
      if (reg == REG_RBP)
        s->bp_rule = 0;
      else if (reg == REG_RA)
        s->ra_rule = -1;
      break;
    case 0x09:                                /* register */
      reg = uleb (r);
      uleb (r);
      rule_unknown (s, reg);
      break;
    case 0x0c:                                /* def_cfa */
      s->cfa_reg = (uint8_t) uleb (r);
      s->cfa_off = (int64_t) uleb (r);
      s->cfa_expr = 0;
      break;
    case 0x0d:                                /* def_cfa_register */
      s->cfa_reg = (uint8_t) uleb (r);
      s->cfa_expr = 0;
      break;
    case 0x0e:                                /* def_cfa_offset */
      s->cfa_off = (int64_t) uleb (r);
      break;
    case 0x0f:                                /* def_cfa_expression */
      s->cfa_expr = 1;
      r->p += uleb (r);
      break;
    case 0x10:                                /* expression */
    case 0x16:                                /* val_expression */
      reg = uleb (r);
      r->p += uleb (r);
      rule_unknown (s, reg);
      break;
    case 0x12:                                /* def_cfa_sf */
      s->cfa_reg = (uint8_t) uleb (r);
      s->cfa_off = sleb (r) * data_align;
      s->cfa_expr = 0;
      break;
    case 0x13:                                /* def_cfa_offset_sf */
      s->cfa_off = sleb (r) * data_align;
      break;
    case 0x14:                                /* val_offset */
    case 0x15:                                /* val_offset_sf */
      reg = uleb (r);
      if (op == 0x14)
        uleb (r);
      else
        sleb (r);
      rule_unknown (s, reg);
      break;
    case 0x2e:                                /* GNU_args_size */
      uleb (r);
      break;
    default:
      return 0;
    }
  return 1;
}

/* Run CFA instructions until the location passes TARGET: 0, or -1 for
   an instruction this unwinder does not know. */
static int
run_cfa (struct reader *r, struct state *s, const struct state *initial,
         uint64_t loc, uint64_t target, uint64_t code_align,
         int64_t data_align)
{
  struct state stack[8];
  int depth = 0;
  while (r->p < r->end && !r->bad)
    {
      uint8_t op = *r->p++;
      uint64_t reg, delta = 0;
      int64_t off;
      switch (op >> 6)
        {
        case 1:                                   /* advance_loc */
          delta = (uint64_t) (op & 0x3f) * code_align;
          goto advance;
        case 2:                                   /* offset */
          reg = op & 0x3f;
          off = (int64_t) uleb (r) * data_align;
          goto set_offset;
        case 3:                                   /* restore */
          reg = op & 0x3f;
          goto restore;
        }
      switch (op)
        {
        case 0x00:                                /* nop */
          break;
        case 0x02: delta = fixed (r, 1) * code_align; goto advance;
        case 0x03: delta = fixed (r, 2) * code_align; goto advance;
        case 0x04: delta = fixed (r, 4) * code_align; goto advance;
        case 0x05:                                /* offset_extended */
          reg = uleb (r);
          off = (int64_t) uleb (r) * data_align;
          goto set_offset;
        case 0x06:                                /* restore_extended */
          reg = uleb (r);
          goto restore;
        case 0x0a:                                /* remember_state */
          if (depth == 8)
            return -1;
          stack[depth++] = *s;
          break;
        case 0x0b:                                /* restore_state */
          if (depth == 0)
            return -1;
          *s = stack[--depth];
          break;
        case 0x11:                                /* offset_extended_sf */
          reg = uleb (r);
          off = sleb (r) * data_align;
          goto set_offset;
        case 0x2f:                                /* GNU_negative_offset_ext */
          reg = uleb (r);
          off = -(int64_t) uleb (r) * data_align;
          goto set_offset;
        default:
          if (!set_rule (r, s, op, data_align))
            return -1;
        }
      continue;
    advance:
      loc += delta;
      if (loc > target)
        return 0;
      continue;
    set_offset:
      if (reg == REG_RBP)
        s->bp_rule = 1, s->bp_off = off;
      else if (reg == REG_RA)
        s->ra_rule = 1, s->ra_off = off;
      continue;
    restore:
      if (!initial)
        return -1;                     /* restore inside a CIE */
      if (reg == REG_RBP)
        s->bp_rule = initial->bp_rule, s->bp_off = initial->bp_off;
      else if (reg == REG_RA)
        s->ra_rule = initial->ra_rule, s->ra_off = initial->ra_off;
    }
  return r->bad ? -1 : 0;
}

/* The rule at return address IP (looking up IP - 1, the call). */
static void
compute_rule (uint64_t ip, struct hi_unwind_rule *out)
{
  memset (out, 0, sizeof *out);
  out->flags = R_VALID | R_FALLBACK;
  uint64_t pc = ip - 1;
  struct dl_find_object dlfo;
  /* Not found (static programs, JIT code): libgcc knows more ways. */
  if (_dl_find_object ((void *) (uintptr_t) pc, &dlfo) != 0
      || !dlfo.dlfo_eh_frame)
    return;
  /* .eh_frame_hdr: version 1, a sorted table of (pc, FDE) as datarel
     sdata4, the common layout. */
  const uint8_t *hdr = dlfo.dlfo_eh_frame;
  if (hdr[0] != 1 || hdr[3] != 0x3b)
    return;
  struct reader r = { hdr + 4, hdr + 4 + 16, 0 };
  encoded (&r, hdr[1], (uint64_t) (uintptr_t) hdr);     /* eh_frame ptr */
  uint64_t count = encoded (&r, hdr[2], (uint64_t) (uintptr_t) hdr);
  if (r.bad || count == 0 || count > (UINT64_C(1) << 28))
    return;
  const int32_t *table = (const int32_t *) r.p;
  uint64_t base = (uint64_t) (uintptr_t) hdr, lo = 0, hi = count;
  while (hi - lo > 1)
    {
      uint64_t mid = (lo + hi) / 2;
      if (base + (uint64_t) (int64_t) table[2 * mid] <= pc)
        lo = mid;
      else
        hi = mid;
    }
  if (base + (uint64_t) (int64_t) table[2 * lo] > pc)
    {
      out->flags = R_VALID | R_END;
      return;
    }
  const uint8_t *fde = (const uint8_t *) (uintptr_t)
                       (base + (uint64_t) (int64_t) table[2 * lo + 1]);

  /* The FDE and its CIE. */
  uint32_t fde_len, cie_off, cie_len;
  memcpy (&fde_len, fde, 4);
  memcpy (&cie_off, fde + 4, 4);
  if (fde_len == 0 || fde_len == 0xffffffff || cie_off == 0)
    return;
  const uint8_t *cie = fde + 4 - cie_off;
  memcpy (&cie_len, cie, 4);
  if (cie_len == 0 || cie_len == 0xffffffff)
    return;
  struct reader c = { cie + 8, cie + 4 + cie_len, 0 };
  uint8_t version = (uint8_t) fixed (&c, 1);
  const char *aug = (const char *) c.p;
  size_t aug_len = strnlen (aug, (size_t) (c.end - c.p));
  c.p += aug_len + 1;
  if (aug[0] && aug[0] != 'z')
    return;
  uint64_t code_align = uleb (&c);
  int64_t data_align = sleb (&c);
  uint64_t ra_reg = version == 1 ? fixed (&c, 1) : uleb (&c);
  uint8_t fde_enc = 0;
  if (aug[0] == 'z')
    {
      uint64_t n = uleb (&c);
      struct reader a = { c.p, c.p + n, 0 };
      for (const char *k = aug + 1; *k && !a.bad; k++)
        switch (*k)
          {
          case 'R': fde_enc = (uint8_t) fixed (&a, 1); break;
          case 'L': fixed (&a, 1); break;
          case 'P':
            {
              uint8_t enc = (uint8_t) fixed (&a, 1);
              encoded (&a, enc & 0x7f, 0);
              break;
            }
          case 'S': return;                  /* signal frame */
          default: return;
          }
      c.p += n;
      if (a.bad)
        return;
    }
  if (c.bad || ra_reg != REG_RA || code_align == 0)
    return;
  struct state initial = { REG_RSP, 8, 0, 0, 1, -8, 0 };
  if (run_cfa (&c, &initial, NULL, 0, UINT64_MAX, code_align, data_align))
    return;

  struct reader f = { fde + 8, fde + 4 + fde_len, 0 };
  uint64_t pc_begin = encoded (&f, fde_enc, 0);
  uint64_t pc_range = encoded (&f, fde_enc & 0x0f, 0);
  if (aug[0] == 'z')
    f.p += uleb (&f);
  if (f.bad || pc < pc_begin || pc - pc_begin >= pc_range)
    {
      out->flags = R_VALID | R_END;
      return;
    }
  struct state s = initial;
  if (run_cfa (&f, &s, &initial, pc_begin, pc, code_align, data_align))
    return;
  if (s.ra_rule == 0)
    {
      out->flags = R_VALID | R_END;          /* outermost frame */
      return;
    }
  if (s.cfa_expr || (s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP)
      || s.ra_rule != 1 || s.ra_off != -8 || s.bp_rule < 0
      || s.cfa_off < 8 || s.cfa_off > (1 << 30)
      || s.bp_off < -32768 || s.bp_off > 32767)
    return;
  out->cfa_reg = s.cfa_reg;
  out->cfa_off = (int32_t) s.cfa_off;
  out->bp_off = (int16_t) s.bp_off;
  out->flags = R_VALID | (s.bp_rule == 1 ? R_BP_SAVED : 0);
}

static inline uint32_t
slot_of (uint64_t ip)
{
  return (uint32_t) ((ip * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - CACHE_BITS));
}

static void
lookup (uint64_t ip, struct hi_unwind_rule *out)
{
  struct hi_unwind_rule *e = &hi_state.unwind.rules[slot_of (ip)];
  _Atomic uint64_t *tag = (_Atomic uint64_t *) &e->ip;
  if (atomic_load_explicit (tag, memory_order_acquire) == ip)
    {
      struct hi_unwind_rule copy = *e;
      atomic_thread_fence (memory_order_acquire);
      if (atomic_load_explicit (tag, memory_order_relaxed) == ip)
        {
          *out = copy;
          out->ip = ip;
          return;
        }
    }
  compute_rule (ip, out);
  /* Publish: invalidate, write the rule, then the tag. */
  atomic_store_explicit (tag, 0, memory_order_relaxed);
  atomic_thread_fence (memory_order_release);
  e->cfa_off = out->cfa_off;
  e->bp_off = out->bp_off;
  e->cfa_reg = out->cfa_reg;
  e->flags = out->flags;
  atomic_store_explicit (tag, ip, memory_order_release);
}

/* This thread's: its stack bounds, found once, and its memos
   (unwind.h), used in turn: the new chain is written while the old is
   read.  A frame of the new chain in the same state as memo frame j is
   followed by memo frames j + 1, ... for as long as the values read
   from the stack are the memo's: the rules are functions of the ip and
   the bounds checks of the state, so the outcome is exactly that of
   unwinding them again.  rbp is compared only where it matters
   (bp_matters): where a rule computes the CFA from it, at that frame or
   at an outer one it reaches unsaved; elsewhere (code without frame
   pointers) it is any register. */
static __thread struct
{
  uint64_t stack_lo, stack_hi;
  int memo_cur;
  struct hi_unwind_memo memos[2];
} mine_data HI_TLS_MODEL;
#define mine HI_TLS (mine_data, HI_TLS_SLOT_UNWIND)

static int
stack_bounds (void)
{
  if (mine.stack_hi)
    return 1;
  uint64_t lo, hi;
  if (!hi_prim_stack_bounds (&lo, &hi))
    return 0;
  mine.stack_lo = lo;
  mine.stack_hi = hi;
  return 1;
}

const struct hi_unwind_memo *
hi_unwind_memo (void)
{
  return &mine.memos[mine.memo_cur];
}

/* Close memo M of N frames (BROKE: stopped at frame N - 1's rule or a
   bound, else state N is ip, sp, bp). */
static inline void
memo_close (struct hi_unwind_memo *m, uint32_t gen, int n, int broke,
            uint64_t ip, uint64_t sp, uint64_t bp)
{
  if (n <= HI_MEMO_CAP)
    {
      m->m = n;
      m->broke = broke;
      m->ip[n] = ip;
      m->sp[n] = sp;
      m->bp[n] = ~bp;
    }
  else
    {
      m->m = HI_MEMO_CAP;      /* state HI_MEMO_CAP was written on the way */
      m->broke = 0;
    }
  m->gen = gen;
}

/* 1 if the rbp of memo M's frame J decides anything in frames J, ...:
   a rule computes the CFA from it before a frame restores it from the
   stack.  If not, *CLEAN is the last frame it reaches (rbp is compared
   no more up to there). */
static int
bp_matters (const struct hi_unwind_memo *m, int j, int *clean)
{
  for (int k = j; k < m->m; k++)
    {
      if (m->flags[k] & HI_MEMO_USES_BP)
        return 1;
      if (m->flags[k] & HI_MEMO_SAVES_BP)
        {
          *clean = k;
          return 0;
        }
    }
  *clean = m->m - 1;
  return 0;
}

int
hi_unwind (const struct hi_frame *start, uint64_t *out, int max)
{
  if (HI_UNLIKELY (!hi_state.unwind.rules))
    {
      struct hi_unwind_rule *c = hi_prim_alloc (CACHE_SIZE * sizeof *c);
      struct hi_unwind_rule *expect = NULL;
      if (!c)
        return -1;
      if (!atomic_compare_exchange_strong
            ((struct hi_unwind_rule *_Atomic *) &hi_state.unwind.rules,
             &expect, c))
        hi_prim_release (c, CACHE_SIZE * sizeof *c);
    }
  if (HI_UNLIKELY (!stack_bounds ()))
    return -1;
  uint64_t ip = start->ip, sp = start->sp, bp = start->bp;
  const uint64_t lo = mine.stack_lo, hi = mine.stack_hi;
  /* On another stack than the thread's own (a coroutine's, a signal
     stack), the bounds say nothing: let libgcc unwind. */
  if (sp < lo || sp >= hi)
    return -1;
  uint32_t gen = atomic_load_explicit (&hi_state.unwind.generation,
                                      memory_order_relaxed);
  const struct hi_unwind_memo *old = &mine.memos[mine.memo_cur];
  struct hi_unwind_memo *new = &mine.memos[mine.memo_cur ^ 1];
  mine.memo_cur ^= 1;
  new->gen = 0;
  int old_m = old->gen == gen && gen ? old->m : 0;
  int j = 0;            /* the first old frame not below sp */
  int clean = -1;       /* old frames up to here: rbp does not matter */
  int n = 0;
  while (n < max && ip)
    {
      while (j < old_m && old->sp[j] < sp)
        j++;
      if (j < old_m && old->sp[j] == sp && old->ip[j] == ip
          && (old->bp[j] == ~bp || j <= clean
              || !bp_matters (old, j, &clean)))
        {
          /* Follow the old frames while the stack still holds them. */
          for (;;)
            {
              if (n <= HI_MEMO_CAP)
                {
                  new->ip[n] = ip;
                  new->sp[n] = sp;
                  new->bp[n] = ~bp;
                  if (n < HI_MEMO_CAP)
                    {
                      new->bp_at[n] = old->bp_at[j];
                      new->flags[n] = old->flags[j];
                    }
                }
              out[n++] = ip;
              if (j + 1 == old_m && old->broke)
                {
                  memo_close (new, gen, n, 1, 0, 0, 0);
                  return n;
                }
              uint64_t at = old->bp_at[j];
              sp = old->sp[j + 1];
              ip = *(const uint64_t *) (uintptr_t) (sp - 8);
              if (at)
                bp = *(const uint64_t *) (uintptr_t) at;
              j++;
              if (n >= max || !ip)
                {
                  memo_close (new, gen, n, 0, ip, sp, bp);
                  return n;
                }
              if (j >= old_m || ip != old->ip[j]
                  || (~bp != old->bp[j] && j > clean
                      && bp_matters (old, j, &clean)))
                break;          /* unwind on from this state */
            }
          continue;
        }
      if (n <= HI_MEMO_CAP)
        {
          new->ip[n] = ip;
          new->sp[n] = sp;
          new->bp[n] = ~bp;
          if (n < HI_MEMO_CAP)
            {
              new->bp_at[n] = 0;
              new->flags[n] = 0;
            }
        }
      out[n++] = ip;
      struct hi_unwind_rule e;
      lookup (ip, &e);
      if (e.flags & R_FALLBACK)
        return -1;
      if (e.flags & R_END)
        break;
      if (n <= HI_MEMO_CAP && e.cfa_reg != REG_RSP)
        new->flags[n - 1] = HI_MEMO_USES_BP;
      uint64_t cfa = (e.cfa_reg == REG_RSP ? sp : bp) + (uint64_t) (int64_t) e.cfa_off;
      /* Each caller's frame is above its callee's, inside the stack. */
      if (cfa <= sp || cfa < lo + 8 || cfa > hi)
        break;
      if (e.flags & R_BP_SAVED)
        {
          uint64_t at = cfa + (uint64_t) (int64_t) e.bp_off;
          if (at < lo || at + 8 > hi)
            break;
          bp = *(const uint64_t *) (uintptr_t) at;
          if (n <= HI_MEMO_CAP)
            {
              new->bp_at[n - 1] = at;
              new->flags[n - 1] |= HI_MEMO_SAVES_BP;
            }
        }
      ip = *(const uint64_t *) (uintptr_t) (cfa - 8);
      sp = cfa;
      if (!(n < max && ip))
        {
          memo_close (new, gen, n, 0, ip, sp, bp);
          return n;
        }
    }
  /* Stopped at frame n - 1's rule or a bound (or never started). */
  memo_close (new, gen, n, 1, 0, 0, 0);
  return n;
}

void
hi_unwind_forget (void)
{
  atomic_fetch_add_explicit (&hi_state.unwind.generation, 1,
                             memory_order_relaxed);
  struct hi_unwind_rule *rules = hi_state.unwind.rules;
  if (rules)
    for (uint32_t i = 0; i < CACHE_SIZE; i++)
      atomic_store_explicit ((_Atomic uint64_t *) &rules[i].ip, 0,
                             memory_order_relaxed);
}

#else  /* no fast unwinder here: always libgcc's */

int
hi_unwind (const struct hi_frame *start, uint64_t *out, int max)
{
  (void) start;
  (void) out;
  (void) max;
  return -1;
}

void
hi_unwind_forget (void)
{
}

#endif
