/* chain-cache.c - filling the chain cache (chain-cache.h) from the memo
   of the unwind that missed, and the caches' life: one per thread, made
   at its first chain, handed on to the next thread when it exits. */
#define _GNU_SOURCE
#include "chain-cache.h"

#include <string.h>

#ifdef HI_FAST_UNWIND

__thread struct hi_cc *hi_cc_mine_data HI_TLS_MODEL;

/* The exiting thread's cache goes to the free list
   (hi_state.chain_caches); the thread keeps none for whatever it
   allocates after. */
static void
cc_push (struct hi_cc *c)
{
  struct hi_cc *_Atomic *list = &hi_state.chain_caches.free;
  struct hi_cc *h = atomic_load (list);
  do
    c->next_free = h;
  while (!atomic_compare_exchange_weak (list, &h, c));
}

static void
cc_release (void *arg)
{
  hi_cc_mine = CC_NONE;
  cc_push (arg);
}

/* This thread's cache, made or taken from the free list at its first
   chain; NULL if it has none. */
static struct hi_cc *
cc_get (void)
{
  struct hi_cc *c = hi_cc_mine;
  if (HI_LIKELY (c != NULL))
    return c == CC_NONE ? NULL : c;
  c = atomic_exchange (&hi_state.chain_caches.free, NULL);
  if (c)
    {
      for (struct hi_cc *r = c->next_free, *next; r; r = next)
        {
          next = r->next_free;
          cc_push (r);
        }
      memset (c->sets, 0, sizeof c->sets);   /* every entry empty */
    }
  else
    c = hi_prim_alloc_nodump (sizeof *c);
  if (!c || hi_prim_at_thread_exit (cc_release, c) != 0)
    {
      /* Without an exit hook it could not be given back: none. */
      if (c)
        cc_release (c);
      hi_cc_mine = CC_NONE;
      return NULL;
    }
  hi_cc_mine = c;
  return c;
}

/* Record K of cache C's ring: the value at A, of the entry starting at
   SP, is V.  1 if A is too far from SP for it. */
static inline int
cc_put (struct hi_cc *c, uint32_t k, uint64_t sp, uint64_t a, uint64_t v)
{
  uint64_t off = a - sp;
  c->rec[k].off = (uint32_t) off;
  c->rec[k].val = v;
  return off > UINT32_MAX;
}

void
hi_chain_cache_fill (const struct hi_frame *start, int n, uint32_t site)
{
  const struct hi_unwind_memo *m = hi_unwind_memo ();
  uint32_t gen = atomic_load_explicit (&hi_state.unwind.generation,
                                      memory_order_relaxed);
  if (m->gen != gen || !gen || m->m != n || n < 1 || n > HI_MEMO_CAP
      || m->ip[0] != start->ip || m->sp[0] != start->sp)
    return;
  /* Records: the return address of every frame after the first; the
     0 that ended the chain (not when a rule or a bound ended it, nor
     when the depth did, which read a return address it did not need);
     rbp where a rule used it: the slot a frame saved it in (once per
     slot), or the starting frame's (bp0). */
  int zero = !m->broke && m->ip[n] == 0;
  int nret = n - 1 + zero, nbp = 0;
  uint64_t from = 0, last = 0;       /* where rbp came from; last noted */
  for (int k = 0; k < n; k++)
    {
      if ((m->flags[k] & HI_MEMO_USES_BP) && from && from != last)
        {
          nbp++;
          last = from;
        }
      if (m->flags[k] & HI_MEMO_SAVES_BP)
        from = m->bp_at[k];
    }
  if (nret + nbp > CC_REC_MAX)
    return;
  struct hi_cc *c = cc_get ();
  if (!c)
    return;
  uint32_t set = cc_set_of (start->ip, start->sp);
  struct cc_entry *e = c->sets[set];
  /* A clock: the hand passes over entries hit since it last came by. */
  int way = c->hand[set];
  for (int k = 0; k < CC_WAYS && e[way].used; k++)
    {
      e[way].used = 0;
      way = (way + 1) % CC_WAYS;
    }
  c->hand[set] = (uint8_t) ((way + 1) % CC_WAYS);
  e += way;
  /* The chain it replaces leaves its place in the ring to this one if
     it fits and is not written over: a set whose chains take turns
     does not move the ring on, and so does not empty other entries. */
  int reuse = e->cap >= nret + nbp && c->head - e->start <= CC_POOL;
  e->gen = 0;
  e->used = 0;
  if (!reuse)
    {
      /* Contiguous: what does not fit before the ring's end starts it. */
      if ((c->head & (CC_POOL - 1)) + (uint64_t) (nret + nbp) > CC_POOL)
        c->head = (c->head | (CC_POOL - 1)) + 1;
      e->start = c->head;
      e->cap = (uint8_t) (nret + nbp);
      c->head += (uint64_t) (nret + nbp);
    }
  uint32_t r = (uint32_t) e->start & (CC_POOL - 1);
  /* Every address read is above sp[0], in the stack: within 4 GiB, or
     the entry stays empty. */
  uint64_t sp = m->sp[0];
  int far = 0, bp0 = 0;
  for (int k = 1; k < n; k++)
    far |= cc_put (c, r++, sp, m->sp[k] - 8, m->ip[k]);
  if (zero)
    far |= cc_put (c, r++, sp, m->sp[n] - 8, 0);
  from = 0;
  last = 0;
  for (int k = 0; k < n; k++)
    {
      if (m->flags[k] & HI_MEMO_USES_BP)
        {
          if (!from)
            {
              /* Still the starting frame's rbp (no frame restored one). */
              far |= ~m->bp[k] != start->bp;
              bp0 = 1;
            }
          else if (from != last)
            {
              far |= cc_put (c, r++, sp, from, ~m->bp[k]);
              last = from;
            }
        }
      if (m->flags[k] & HI_MEMO_SAVES_BP)
        from = m->bp_at[k];
    }
  if (far)
    return;
  e->ip = start->ip;
  e->sp = start->sp;
  e->bp = start->bp;
  e->bp0 = (uint8_t) bp0;
  e->n = (uint16_t) n;
  e->nret = (uint8_t) nret;
  e->nrec = (uint8_t) (nret + nbp);
  e->site = site;
  e->gen = gen;
}

#else  /* no fast unwinder here: no chain cache */

void
hi_chain_cache_fill (const struct hi_frame *start, int n, uint32_t site)
{
  (void) start;
  (void) n;
  (void) site;
}

#endif
