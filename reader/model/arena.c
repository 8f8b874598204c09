/* arena.c - the arenas a root lists: their descriptors, and copies of
   their entries out of a target, never larger than the target holds nor
   than the model's budget allows (budget.c). */
#include "hi-reader.h"
#include "model/model.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t entry_sizes[HI_NARENA_KINDS] = {
  [HI_ARENA_NODES] = sizeof (struct hi_node),
  [HI_ARENA_SITES] = sizeof (struct hi_site),
  [HI_ARENA_THREADS] = sizeof (struct hi_thread),
  [HI_ARENA_MODULES] = sizeof (struct hi_module),
  [HI_ARENA_HASH] = sizeof (uint32_t),
  [HI_ARENA_PROCESS] = sizeof (struct hi_process),
  [HI_ARENA_SITE_TIME] = sizeof (struct hi_site_time),
  [HI_ARENA_THREAD_TIME] = sizeof (struct hi_thread_time),
  [HI_ARENA_TIMELINE] = sizeof (struct hi_timeline),
  [HI_ARENA_ERRORS] = sizeof (struct hi_error),
  [HI_ARENA_QUARANTINE] = sizeof (struct hi_freed),
  [HI_ARENA_TYPES] = sizeof (struct hi_type_rec),
  [HI_ARENA_POOLS] = sizeof (struct hi_pool),
};

/* What each arena holds, as the damage note names it. */
static const char *const arena_names[HI_NARENA_KINDS] = {
  [HI_ARENA_NODES] = "call pair",
  [HI_ARENA_SITES] = "site",
  [HI_ARENA_THREADS] = "thread",
  [HI_ARENA_MODULES] = "module",
  [HI_ARENA_HASH] = "hash",
  [HI_ARENA_PROCESS] = "process",
  [HI_ARENA_SITE_TIME] = "site time",
  [HI_ARENA_THREAD_TIME] = "thread time",
  [HI_ARENA_TIMELINE] = "timeline",
  [HI_ARENA_ERRORS] = "heap error",
  [HI_ARENA_QUARANTINE] = "quarantine",
  [HI_ARENA_TYPES] = "type",
  [HI_ARENA_POOLS] = "pool",
};

const char *
hi_model_arena_name (uint32_t kind)
{
  return kind < HI_NARENA_KINDS && arena_names[kind] ? arena_names[kind]
                                                     : "unknown";
}

/* Arena descriptor I of root R: the first HI_MAX_ARENAS in arenas, the
   rest (format 4) in more_arenas. */
const struct hi_arena_desc *
hi_model_arena_desc (const struct hi_root *r, uint32_t i)
{
  return i < HI_MAX_ARENAS ? &r->arenas[i] : &r->more_arenas[i - HI_MAX_ARENAS];
}

/* Read into BUF the longest run of the N entries of SIZE bytes at
   ADDR that T holds (a target reads all of a range or nothing, so a
   binary search on the run's length finds it); how many. */
static uint64_t
backed_prefix (const struct hi_target *t, uint64_t addr, char *buf,
               uint64_t n, uint32_t size)
{
  uint64_t lo = 0, hi = n;
  while (lo < hi)
    {
      uint64_t mid = hi - (hi - lo) / 2;
      if (t->ops->read_memory (t->ctx, addr, buf, (size_t) (mid * size)) == 0)
        lo = mid;
      else
        hi = mid - 1;
    }
  /* A failed read may have filled part of BUF: read the run again. */
  if (lo && t->ops->read_memory (t->ctx, addr, buf, (size_t) (lo * size)))
    return 0;
  return lo;
}

hi_status
hi_model_read_arena (const struct hi_target *t, struct hi_model *m,
                     uint32_t kind, uint32_t entry_size, void **out,
                     uint64_t *count)
{
  const struct hi_root *r = &m->root;
  *out = NULL;
  *count = 0;
  if (entry_size == 0)
    entry_size = entry_sizes[kind];
  for (uint32_t i = 0; i < r->n_arenas; i++)
    {
      const struct hi_arena_desc *a = hi_model_arena_desc (r, i);
      if (a->kind != kind)
        continue;
      if (a->entry_size != entry_size || a->count > a->capacity)
        return HI_E_CORRUPT;
      if (a->count == 0)
        return HI_OK;
      /* The entries the budget grants, none past the top of memory. */
      uint64_t n = hi_budget_grant (m, kind, a->count, entry_size);
      if (n > (UINT64_MAX - a->addr) / entry_size)
        n = (UINT64_MAX - a->addr) / entry_size;
      /* Read in chunks, growing the copy as the target delivers: a count
         the target cannot back costs what it really holds, not what the
         descriptor claims; the entries before the first it lacks are
         kept. */
      enum { CHUNK = 1 << 20 };
      uint64_t per = CHUNK / entry_size ? CHUNK / entry_size : 1, got = 0;
      size_t cap = 0;
      char *p = NULL;
      while (got < n)
        {
          uint64_t k = n - got < per ? n - got : per;
          if (hi_grow_max ((void **) &p, &cap,
                           (size_t) ((got + k) * entry_size), 1,
                           (size_t) (n * entry_size)) != 0)
            {
              free (p);
              return HI_E_NOMEM;
            }
          uint64_t at = a->addr + got * entry_size;
          char *to = p + got * entry_size;
          if (t->ops->read_memory (t->ctx, at, to, (size_t) (k * entry_size)))
            {
              got += backed_prefix (t, at, to, k, entry_size);
              break;
            }
          got += k;
        }
      if (got == 0 && n > 0)
        {
          free (p);
          return HI_E_UNREADABLE;
        }
      if (got < a->count)
        hi_budget_cut (m, kind);
      hi_budget_spend (m, got * entry_size);
      *out = p;
      *count = got;
      return HI_OK;
    }
  return HI_OK;
}

uint32_t
hi_model_arena_entry_size (const struct hi_root *r, uint32_t kind)
{
  for (uint32_t i = 0; i < r->n_arenas; i++)
    if (hi_model_arena_desc (r, i)->kind == kind)
      return hi_model_arena_desc (r, i)->entry_size;
  return 0;
}
