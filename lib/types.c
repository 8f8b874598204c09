/* types.c - the client API's types: naming the type of a block after its
   allocation (typed.h), and the per-type, per-chain counters a reader
   joins into its tables (format.h, "The client API"). */
#define _GNU_SOURCE
#include "client.h"

#include "heapinspect/typed.h"

#include <string.h>

#define PUBLIC __attribute__ ((visibility ("default"), noinline))
#define HDR ((uint64_t) sizeof (struct hi_block_header))

/* The index: open addressing over record ids (0 = empty), records being
   types (by key) and pairs (by type, site, bin).  Twice the records'
   capacity, so it never fills; lock-free lookups, insertions under a
   lock.  In the monitor's own memory (readers never need it). */
#define SLOTS (HI_CAP_TYPE_RECS * 2u)
#define slots (*(uint32_t (*)[SLOTS]) hi_state.types.index)

static struct hi_type_rec *
recs (void)
{
  return hi_state.types.recs;
}

static inline uint32_t
type_hash (uint64_t key)
{
  return hi_mix (key, 1);
}

static inline uint32_t
pair_hash (uint32_t type, uint32_t site, uint32_t bin)
{
  return hi_mix ((uint64_t) type << 32 | site, (uint64_t) bin << 1 | 0x10000);
}

static int
is_type (const struct hi_type_rec *r, uint64_t key)
{
  return r->kind == HI_TREC_TYPE && r->key == key;
}

static int
is_pair (const struct hi_type_rec *r, uint32_t type, uint32_t site,
         uint32_t bin)
{
  return r->kind == HI_TREC_PAIR && r->type == type && r->site == site
         && r->bin == bin;
}

/* A new record, filled by FILL's caller before it is published: its id,
   or 0 when the arena is full.  Under hi_state.types.lock. */
static uint32_t
new_record (void)
{
  struct hi_arena_desc *a = hi_arena_at (HI_A_TYPES);
  uint64_t id = a->count;
  if (id >= HI_CAP_TYPE_RECS || hi_arena_commit (HI_A_TYPES, id + 1) != 0)
    return 0;
  return (uint32_t) id;
}

/* Publish record ID in slot H: the record first, then the arena's count
   (readers of the process), then the slot (lookups here). */
static void
publish (uint32_t id, uint32_t h)
{
  HI_STORE_REL (hi_arena_at (HI_A_TYPES)->count, (uint64_t) id + 1);
  HI_STORE_REL (slots[h], id);
}

/* The type record of KEY, made if new (FLAGS, NAME, ELEM for it); 0 if
   there is no room for it. */
static uint32_t
type_of (uint64_t key, uint32_t flags, const char *name, uint64_t elem)
{
  uint32_t h = type_hash (key) % SLOTS;
  for (int locked = 0;; locked = 1)
    {
      for (;;)
        {
          uint32_t id = HI_LOAD_ACQ (slots[h]);
          if (id == 0)
            break;
          if (is_type (&recs ()[id], key))
            {
              if (locked)
                hi_lock_release (&hi_state.types.lock);
              return id;
            }
          h = (h + 1) % SLOTS;
        }
      if (locked)
        break;
      hi_lock_acquire (&hi_state.types.lock);
    }
  /* Type ids must fit the header's field. */
  uint32_t id = hi_arena_at (HI_A_TYPES)->count <= HI_TYPES_MAX
                ? new_record () : 0;
  if (id)
    {
      struct hi_type_rec *r = &recs ()[id];
      r->key = key;
      r->elem_size = elem;
      r->flags = flags;
      if (name)
        {
          size_t n = 0;
          while (name[n] && n < HI_TYPE_NAME_MAX - 1)
            {
              r->name[n] = name[n];
              n++;
            }
          r->name[n] = '\0';
          if (name[n])
            r->flags |= HI_TYPE_NAME_CUT;
        }
      HI_STORE_REL (r->kind, (uint32_t) HI_TREC_TYPE);
      publish (id, h);
    }
  hi_lock_release (&hi_state.types.lock);
  return id;
}

/* The pair record of (TYPE, SITE, BIN), made if new; 0 if no room. */
static uint32_t
pair_of (uint32_t type, uint32_t site, uint32_t bin)
{
  uint32_t h = pair_hash (type, site, bin) % SLOTS;
  for (int locked = 0;; locked = 1)
    {
      for (;;)
        {
          uint32_t id = HI_LOAD_ACQ (slots[h]);
          if (id == 0)
            break;
          if (is_pair (&recs ()[id], type, site, bin))
            {
              if (locked)
                hi_lock_release (&hi_state.types.lock);
              return id;
            }
          h = (h + 1) % SLOTS;
        }
      if (locked)
        break;
      hi_lock_acquire (&hi_state.types.lock);
    }
  uint32_t id = new_record ();
  if (id)
    {
      struct hi_type_rec *r = &recs ()[id];
      r->type = type;
      r->site = site;
      r->bin = bin;
      HI_STORE_REL (r->kind, (uint32_t) HI_TREC_PAIR);
      publish (id, h);
    }
  hi_lock_release (&hi_state.types.lock);
  return id;
}

/* The record that counts blocks of TYPE from SITE of SIZE: their pair,
   or the type itself when no pair can be made. */
static struct hi_type_rec *
counter_of (uint32_t type, uint32_t site, uint64_t size)
{
  uint32_t p = pair_of (type, site, hi_bin_of (size));
  return &recs ()[p ? p : type];
}

/* The live block whose header is at H, if it is one of ours: its size
   flags in *SF. */
static int
header_ok (uint64_t h, uint64_t *sf)
{
  const struct hi_block_header *hdr = (const void *) (uintptr_t) h;
  uint64_t f = hdr->size_flags;
  if (hdr->check != hi_block_check (heapinspect_root.header_salt, h,
                                    hdr->site, f))
    return 0;
  if (hdr->site == HI_SITE_INTERNAL
      || hdr->site >= heapinspect_root.arenas[HI_A_SITES].count)
    return 0;
  *sf = f;
  return 1;
}

/* The header of the block starting at user pointer P, or 0.  P may be
   anything (a placement new's buffer): the bytes before it are read only
   when they are on P's page or the previous page is readable. */
static uint64_t
block_at (uint64_t p, uint64_t *sf)
{
  if ((p & 15) != 0 || p < 4096 + HDR)
    return 0;
  uint64_t h = p - HDR;
  uint64_t page = hi_prim_page_size ();
  if ((h & ~(page - 1)) != (p & ~(page - 1)) && !hi_prim_readable (h, HDR))
    return 0;
  return header_ok (h, sf) ? h : 0;
}

/* Give the block at P (or, for an array with a cookie of COOKIE bytes
   holding its element count, at P - COOKIE) type KEY.  */
static void
set_type (const void *ptr, uint64_t key, uint32_t flags, const char *name,
          uint64_t elem, uint64_t cookie)
{
  if (!ptr || hi_tls.busy || !hi_ensure_init () || !hi_state.types.recs)
    return;
  struct hi_types *ts = &hi_state.types;
  if (HI_UNLIKELY (!atomic_load_explicit (&ts->index, memory_order_acquire)))
    {
      hi_lock_acquire (&ts->lock);
      if (!ts->index)
        atomic_store_explicit (&ts->index,
                               hi_prim_alloc_nodump (SLOTS * sizeof (uint32_t)),
                               memory_order_release);
      hi_lock_release (&ts->lock);
      if (!ts->index)
        return;
    }
  hi_tls.busy++;
  uint64_t p = (uint64_t) (uintptr_t) ptr, sf = 0;
  uint64_t h = block_at (p, &sf);
  if (!h && cookie && elem && p > cookie)
    {
      /* new T[n] of a T with a destructor: n in the cookie before P. */
      uint64_t h2 = block_at (p - cookie, &sf);
      if (h2)
        {
          uint64_t n = ((const uint64_t *) (uintptr_t) p)[-1];
          uint64_t size = sf & HI_BLOCK_SIZE_MASK;
          if (n <= size / elem && n * elem + cookie == size)
            h = h2;
        }
    }
  if (!h)
    {
      HI_ADD (heapinspect_root.client[HI_CLIENT_TYPES_MISSED], 1);
      hi_tls.busy--;
      return;
    }
  struct hi_block_header *hdr = (void *) (uintptr_t) h;
  uint64_t size = sf & HI_BLOCK_SIZE_MASK;
  uint32_t old = (uint32_t) ((sf & HI_BLOCK_TYPE_MASK) >> HI_BLOCK_TYPE_SHIFT);
  uint32_t type = type_of (key, flags, name, elem);
  if (!type)
    HI_ADD (heapinspect_root.client[HI_CLIENT_TYPES_DROPPED], 1);
  if (type != old)
    {
      if (old)
        {
          struct hi_type_rec *c = counter_of (old, hdr->site, size);
          HI_ADD (c->allocs, (uint64_t) -1);
          HI_ADD (c->bytes, -size);
        }
      if (type)
        {
          struct hi_type_rec *c = counter_of (type, hdr->site, size);
          HI_ADD (c->allocs, 1);
          HI_ADD (c->bytes, size);
        }
      uint64_t nf = (sf & ~HI_BLOCK_TYPE_MASK)
                    | ((uint64_t) type << HI_BLOCK_TYPE_SHIFT);
      hdr->size_flags = nf;
      hdr->check = hi_block_check (heapinspect_root.header_salt, h,
                                   hdr->site, nf);
    }
  hi_tls.busy--;
}

void
hi_types_freed (uint64_t size_flags, uint32_t site)
{
  uint32_t type = (uint32_t) ((size_flags & HI_BLOCK_TYPE_MASK)
                              >> HI_BLOCK_TYPE_SHIFT);
  uint64_t count = HI_LOAD_ACQ (hi_arena_at (HI_A_TYPES)->count);
  if (!type || type >= count || !hi_state.types.recs
      || !atomic_load_explicit (&hi_state.types.index, memory_order_acquire))
    return;
  uint64_t size = size_flags & HI_BLOCK_SIZE_MASK;
  hi_tls.busy++;
  struct hi_type_rec *c = counter_of (type, site, size);
  hi_tls.busy--;
  HI_ADD (c->frees, 1);
  HI_ADD (c->bytes_freed, size);
}

void
hi_types_moved (void *to, uint64_t size_flags, uint32_t site)
{
  hi_types_freed (size_flags, site);
  uint64_t sf;
  uint64_t h = to ? block_at ((uint64_t) (uintptr_t) to, &sf) : 0;
  uint32_t type = (uint32_t) ((size_flags & HI_BLOCK_TYPE_MASK)
                              >> HI_BLOCK_TYPE_SHIFT);
  if (!h || !type || (sf & HI_BLOCK_TYPE_MASK))
    return;
  struct hi_block_header *hdr = (void *) (uintptr_t) h;
  uint64_t size = sf & HI_BLOCK_SIZE_MASK;
  hi_tls.busy++;
  struct hi_type_rec *c = counter_of (type, hdr->site, size);
  hi_tls.busy--;
  HI_ADD (c->allocs, 1);
  HI_ADD (c->bytes, size);
  uint64_t nf = sf | (size_flags & HI_BLOCK_TYPE_MASK);
  hdr->size_flags = nf;
  hdr->check = hi_block_check (heapinspect_root.header_salt, h, hdr->site, nf);
}

PUBLIC void
heapinspect_type_tag (const void *ptr, const void *tag, size_t elem_size,
                      size_t cookie)
{
  set_type (ptr, (uint64_t) (uintptr_t) tag, HI_TYPE_TAG, NULL, elem_size,
            cookie);
}

PUBLIC void
heapinspect_type_name (const void *ptr, const char *name, size_t elem_size)
{
  if (name)
    set_type (ptr, (uint64_t) (uintptr_t) name, HI_TYPE_NAMED, name,
              elem_size, 0);
}

void
hi_types_fork (int phase)
{
  if (phase == 0)
    hi_lock_acquire (&hi_state.types.lock);
  else if (phase == 1)
    hi_lock_release (&hi_state.types.lock);
  else
    hi_state.types.lock.word = 0;
}
