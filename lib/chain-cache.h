/* chain-cache.h - the chain cache: whole chains a thread unwound lately,
   looked up inline in the entry points, filled (chain-cache.c) from the
   memo of the unwind that missed.  Include it after defining
   _GNU_SOURCE (unwind.h). */
#ifndef HI_CHAIN_CACHE_H
#define HI_CHAIN_CACHE_H

#include "unwind.h"

#ifdef HI_FAST_UNWIND

/* Whole chains this thread unwound lately, each kept as what its unwind
   depended on: the starting frame (ip, sp), the return addresses it read
   from the stack (address and value), and rbp where a rule computed a
   CFA from it (where that rbp came from: the starting frame's, or a slot
   a frame saved it in; and its value).  The rules are functions of the
   ip, the bounds checks of the state, the thread's stack bounds never
   change: a chain starting from the same frame that reads the same
   values at the same addresses is the same chain, down to where and why
   it stopped.  So a hit costs one load and compare per frame, all
   independent of each other, and gives the site with no rule or pair
   lookup.  (A function called at the same stack depth from another
   caller finds a different return address in its frame: a miss.)
   Eight ways per set, replaced by a clock (a way hit since the hand last
   passed is kept): a call site reached from several callers at the same
   depth keeps their chains side by side, also when the address layout
   puts five chains or more that take turns in one set.  The records
   live in a ring: an entry whose records were written over is empty.
   The ring holds about 32 records for each entry: a ring much smaller
   than the entries' records feeds on itself (an entry written over
   misses, and its miss writes over another), and a replaced chain
   leaves its place to the next one of the set that fits in it. */
#define CC_SETS_BITS 6
#define CC_SETS (1 << CC_SETS_BITS)
#define CC_WAYS 8
#define CC_POOL 16384            /* records, a power of two */
#define CC_REC_MAX 96            /* most records of one entry */
struct cc_rec
{
  uint64_t val;
  uint32_t off;
} __attribute__ ((packed));
_Static_assert (sizeof (struct cc_rec) == 12, "12-byte records");
struct cc_entry
{
  uint64_t ip, sp;               /* the starting frame */
  uint64_t bp;                   /* with bp0: the starting frame's rbp */
  uint64_t start;                /* its first record, counting every
                                    record ever written; the records of
                                    an entry are contiguous in the ring */
  uint32_t gen;                  /* the unwinder's generation; 0 = empty */
  uint32_t site;
  uint16_t n;                    /* frames hi_unwind returned */
  uint8_t nret;                  /* records of return addresses: frames
                                    1 to n - 1, and the 0 that ended the
                                    chain if one did */
  uint8_t nrec;                  /* all records: then those of rbp where
                                    a rule computed a CFA from an rbp
                                    saved in the stack */
  uint8_t bp0;                   /* a rule computed a CFA from the
                                    starting frame's rbp: compare bp */
  uint8_t used;                  /* hit since the clock hand passed */
  uint8_t cap;                   /* records its place in the ring holds */
};
/* A thread's chain cache: 216 KiB (touched as it fills), in memory of
   the monitor's own rather than in thread-local storage, which glibc
   takes out of every thread's stack (a thread made with a 32 KiB stack
   must still fit).  Given back to a free list when its thread exits,
   for the next thread. */
struct hi_cc
{
  struct cc_entry sets[CC_SETS][CC_WAYS];
  uint8_t hand[CC_SETS];         /* the way to replace next */
  uint8_t last[CC_SETS];         /* the way hit last */
  /* The ring of records.  Record k of an entry starting at sp: the
     value at sp + rec[k].off is rec[k].val (a return address, an rbp a
     frame saved, or the 0 that ended a chain).  Every address an unwind
     reads is above its sp, in the stack.  Offset and value side by
     side: a hit reads one run of memory. */
  struct cc_rec rec[CC_POOL];
  uint64_t head;                 /* records ever written */
  struct hi_cc *next_free;
};
/* This thread's, NULL before its first chain, CC_NONE if it has none
   (no memory, or exiting). */
#define CC_NONE ((struct hi_cc *) 1)
extern __thread struct hi_cc *hi_cc_mine_data
  HI_TLS_MODEL HI_HIDDEN;
#define hi_cc_mine HI_TLS (hi_cc_mine_data, HI_TLS_SLOT_CHAIN_CACHE)

static inline uint32_t
cc_set_of (uint64_t ip, uint64_t sp)
{
  uint64_t x = (ip ^ (sp >> 4) ^ (sp << 28)) * UINT64_C(0x9e3779b97f4a7c15);
  return (uint32_t) (x >> (64 - CC_SETS_BITS));
}
_Static_assert (CC_SETS == 1 << CC_SETS_BITS, "CC_SETS is 2^CC_SETS_BITS");
_Static_assert (CC_REC_MAX <= 255 && CC_REC_MAX < CC_POOL, "record counts");

/* 1 if entry E of cache C, whose starting frame is START's, is this thread's
   chain now: its records were not written over and the stack holds
   their values (the first frames differ first when another caller made
   the frame). */
static inline int
cc_holds (const struct hi_cc *c, const struct cc_entry *e,
          const struct hi_frame *start, uint32_t gen)
{
  if (e->ip != start->ip || e->sp != start->sp || e->gen != gen
      || c->head - e->start > CC_POOL)
    return 0;
  const struct cc_rec *rec = &c->rec[e->start & (CC_POOL - 1)];
  uintptr_t sp = (uintptr_t) start->sp;
  /* The first record decides most misses (another caller of the
     starting frame's function at the same depth); then every record is
     read, with no branch per record: a hit reads them all anyway. */
  const struct cc_rec *r = rec, *end = rec + e->nrec;
  if (r < end)
    {
      if (*(const uint64_t *) (sp + r->off) != r->val)
        return 0;
      r++;
    }
  uint64_t diff = e->bp0 ? start->bp ^ e->bp : 0;
  for (; r + 1 < end; r += 2)
    diff |= (*(const uint64_t *) (sp + r[0].off) ^ r[0].val)
            | (*(const uint64_t *) (sp + r[1].off) ^ r[1].val);
  if (r < end)
    diff |= *(const uint64_t *) (sp + r->off) ^ r->val;
  return diff == 0;
}

/* The site of the chain from START if this thread's chain cache holds it
   and the stack still holds it (its unwind would read the same values at
   the same addresses), with the number of frames hi_unwind would return
   in *N_OUT and, when OUT is not NULL, the frames in OUT; 0 if not. */
static inline uint32_t
hi_chain_cache_lookup (const struct hi_frame *start, uint64_t *out, int *n_out)
{
  struct hi_cc *c = hi_cc_mine;
  if (HI_UNLIKELY (c == NULL || c == CC_NONE))
    return 0;
  uint32_t set = cc_set_of (start->ip, start->sp);
  struct cc_entry *e = c->sets[set];
  uint32_t gen = atomic_load_explicit (&hi_state.unwind.generation,
                                      memory_order_relaxed);
  /* The way this set hit last first: the same chain again, mostly. */
  int way = c->last[set];
  if (!cc_holds (c, &e[way], start, gen))
    {
      for (way = 0;; way++)
        {
          if (way == CC_WAYS)
            return 0;
          if (way != c->last[set] && cc_holds (c, &e[way], start, gen))
            break;
        }
      c->last[set] = (uint8_t) way;
    }
  e += way;
  if (!e->used)
    e->used = 1;
  if (out)
    {
      const struct cc_rec *rec = &c->rec[e->start & (CC_POOL - 1)];
      out[0] = start->ip;
      for (uint32_t i = 1; i < e->n; i++)
        out[i] = rec[i - 1].val;
    }
  *n_out = e->n;
  return e->site;
}

#else  /* no fast unwinder here: always libgcc's */

static inline uint32_t
hi_chain_cache_lookup (const struct hi_frame *start, uint64_t *out, int *n_out)
{
  (void) start;
  (void) out;
  (void) n_out;
  return 0;
}

#endif

/* The N frames the last hi_unwind of this thread returned, from START,
   are the chain of SITE: into this thread's chain cache (where there is
   one). */
HI_HIDDEN void hi_chain_cache_fill (const struct hi_frame *start, int n,
                                    uint32_t site);

#endif
