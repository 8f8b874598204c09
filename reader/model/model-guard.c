/* model-guard.c - the heap errors and the quarantine of format 5 (see
   format.h, "Heap errors and guards"): the error records and the
   quarantine's ring copied out and checked, so that `block` and the
   errors table can trust what they print.  What cannot be used is
   counted in damage.guards; the rest of the model never depends on it. */
#define _GNU_SOURCE
#include "model/model.h"
#include "hi-reader.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* A hostile descriptor must not make us read without bound: the monitor
   records at most HI_ERRORS_MAX errors and keeps HI_QUARANTINE_SLOTS
   entries; a little more is tolerated, never read. */
#define ERRORS_READ_MAX (HI_ERRORS_MAX * 16u)
#define RING_READ_MAX HI_QUARANTINE_SLOTS

static void
guard_damage (struct hi_model *m)
{
  m->damage.guards++;
  m->damaged++;
}

/* The descriptor of the arena of KIND in M's root, or NULL. */
static const struct hi_arena_desc *
find_arena (const struct hi_model *m, uint32_t kind)
{
  for (uint32_t i = 0; i < m->root.n_arenas; i++)
    if (hi_model_arena_desc (&m->root, i)->kind == kind)
      return hi_model_arena_desc (&m->root, i);
  return NULL;
}

/* Site S of a record: in range, or HI_SITE_UNKNOWN (damage).  The
   monitor's own blocks (HI_SITE_INTERNAL) are allowed where INTERNAL. */
static uint32_t
check_site (struct hi_model *m, uint32_t s, int internal, int *bad)
{
  if (s < m->n_sites || (internal && s == HI_SITE_INTERNAL))
    return s;
  *bad = 1;
  return HI_SITE_UNKNOWN;
}

static hi_status
load_errors (const struct hi_target *t, struct hi_model *m)
{
  const struct hi_arena_desc *a = find_arena (m, HI_ARENA_ERRORS);
  uint64_t total = m->root.errors_total;
  if (!a || a->count == 0)
    {
      m->errors_total = total;
      return HI_OK;
    }
  uint64_t n = a->count;
  if (a->entry_size != sizeof (struct hi_error))
    {
      guard_damage (m);
      m->errors_total = total;
      return HI_OK;
    }
  if (n > a->capacity || n > ERRORS_READ_MAX)
    {
      /* A count beyond the arena: what the arena can hold is read. */
      guard_damage (m);
      n = a->capacity < ERRORS_READ_MAX ? a->capacity : ERRORS_READ_MAX;
    }
  n = hi_budget_grant (m, HI_ARENA_ERRORS, n, sizeof (struct hi_error));
  struct hi_error *e = n ? calloc (n, sizeof *e) : NULL;
  if (n && !e)
    return HI_E_NOMEM;
  /* A torn arena: the entries before the missing bytes. */
  uint64_t got = 0;
  while (got < n && t->ops->read_memory (t->ctx, a->addr + got * sizeof *e,
                                         &e[got], sizeof *e) == 0)
    got++;
  hi_budget_spend (m, got * sizeof *e);
  if (got < n)
    guard_damage (m);
  uint64_t kept = 0;
  for (uint64_t i = 0; i < got; i++)
    {
      struct hi_error x = e[i];
      int bad = 0;
      if (x.kind == 0 || x.kind >= HI_NERROR_KINDS)
        {
          guard_damage (m);
          continue;
        }
      if (x.when == 0 || x.when > HI_WHEN_SNAPSHOT)
        x.when = 0, bad = 1;
      if (x.where_kind > HI_WHERE_UNMAPPED)
        x.where_kind = HI_WHERE_UNKNOWN, bad = 1;
      x.alloc_site = check_site (m, x.alloc_site, 1, &bad);
      x.free_site = check_site (m, x.free_site, 0, &bad);
      x.call_site = check_site (m, x.call_site, 0, &bad);
      x.other_site = check_site (m, x.other_site, 1, &bad);
      if (x.block_size > HI_BLOCK_SIZE_MASK || x.other_size > HI_BLOCK_SIZE_MASK)
        {
          x.block_size &= HI_BLOCK_SIZE_MASK;
          x.other_size &= HI_BLOCK_SIZE_MASK;
          bad = 1;
        }
      if (bad)
        guard_damage (m);
      e[kept++] = x;
    }
  m->errors = e;
  m->n_errors = kept;
  if (total < kept)
    {
      guard_damage (m);
      total = kept;
    }
  m->errors_total = total;
  return HI_OK;
}

static int
by_user (const void *x, const void *y, void *ctx)
{
  const struct hi_freed *q = ctx;
  uint64_t i = *(const uint64_t *) x, j = *(const uint64_t *) y;
  const struct hi_freed *a = &q[i], *b = &q[j];
  int c = hi_cmp_u64 (a->user, b->user);
  return c ? c : hi_cmp_u64 (i, j);
}

/* The ring: positions [head, tail) modulo HI_QUARANTINE_SLOTS; the
   arena's count is the slots ever written (its capacity the part the
   monitor committed so far).  A position whose slot was never written,
   or more held than was ever written, is damage. */
static hi_status
load_quarantine (const struct hi_target *t, struct hi_model *m)
{
  const struct hi_arena_desc *a = find_arena (m, HI_ARENA_QUARANTINE);
  uint64_t head = m->root.quarantine_head, tail = m->root.quarantine_tail;
  if (head == tail)
    return HI_OK;
  if (!a || a->entry_size != sizeof (struct hi_freed)
      || a->count > a->capacity || tail < head)
    {
      /* No ring to read, or positions that went back: a torn root. */
      guard_damage (m);
      return HI_OK;
    }
  uint64_t written = a->count < RING_READ_MAX ? a->count : RING_READ_MAX;
  uint64_t n = tail - head;
  if (n > written)
    {
      /* More held than was ever written: the newest positions. */
      guard_damage (m);
      n = written;
      head = tail - n;
    }
  /* What the budget has room for: the newest positions. */
  struct hi_freed *q;
  uint64_t room = hi_budget_grant (m, HI_ARENA_QUARANTINE, n, sizeof *q);
  head += n - room;
  n = room;
  hi_budget_spend (m, n * sizeof *q);
  q = n ? calloc (n, sizeof *q) : NULL;
  if (n && !q)
    return HI_E_NOMEM;
  /* At most two runs of slots; a slot never written is damage. */
  uint64_t got = 0;
  int torn = 0, unwritten = 0;
  while (got < n)
    {
      uint64_t slot = (head + got) % HI_QUARANTINE_SLOTS;
      uint64_t run = HI_QUARANTINE_SLOTS - slot < n - got
                     ? HI_QUARANTINE_SLOTS - slot : n - got;
      uint64_t ok = slot >= written ? 0 : written - slot < run
                    ? written - slot : run;
      unwritten |= ok < run;
      if (ok && t->ops->read_memory (t->ctx, a->addr + slot * sizeof *q,
                                     q + got, (size_t) (ok * sizeof *q)) != 0)
        {
          torn = 1;
          memset (q + got, 0, (size_t) (ok * sizeof *q));
        }
      got += run;
    }
  if (torn)
    guard_damage (m);
  if (unwritten)
    guard_damage (m);
  uint64_t kept = 0;
  for (uint64_t i = 0; i < n; i++)
    {
      struct hi_freed x = q[i];
      int bad = 0;
      if (x.user == 0)
        continue;             /* left the ring, or lost with a torn read */
      if (x.user < 16 || (x.user & 15) != 0 || x.size > HI_BLOCK_SIZE_MASK)
        {
          guard_damage (m);
          continue;
        }
      x.alloc_site = check_site (m, x.alloc_site, 1, &bad);
      x.free_site = check_site (m, x.free_site, 0, &bad);
      if (bad)
        guard_damage (m);
      q[kept++] = x;
    }
  m->quarantine = q;
  m->n_quarantine = kept;
  m->quarantine_by_user = kept ? malloc (kept * sizeof (uint64_t)) : NULL;
  if (kept && !m->quarantine_by_user)
    return HI_E_NOMEM;
  for (uint64_t i = 0; i < kept; i++)
    m->quarantine_by_user[i] = i;
  if (kept)
    qsort_r (m->quarantine_by_user, kept, sizeof (uint64_t), by_user, q);
  return HI_OK;
}

hi_status
hi_model_guard_load (const struct hi_target *t, struct hi_model *m)
{
  if (m->root.version < 5)
    return HI_OK;
  m->guard_flags = m->root.guard_flags;
  m->redzone = m->root.redzone;
  m->quarantine_limit = m->root.quarantine_limit;
  m->quarantine_bytes = m->root.quarantine_bytes;
  /* A redzone is a few guard bytes; a huge one is a torn root. */
  if (m->redzone > 4096)
    {
      m->redzone = 0;
      guard_damage (m);
    }
  hi_status s = load_errors (t, m);
  return s == HI_OK ? load_quarantine (t, m) : s;
}

const struct hi_freed *
hi_model_quarantined (const struct hi_model *m, uint64_t user)
{
  /* The last index whose entry's user is <= USER. */
  uint64_t lo = 0, hi = m->n_quarantine;
  while (lo < hi)
    {
      uint64_t mid = lo + (hi - lo) / 2;
      if (m->quarantine[m->quarantine_by_user[mid]].user <= user)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;
  const struct hi_freed *f = &m->quarantine[m->quarantine_by_user[lo - 1]];
  return f->user == user ? f : NULL;
}
