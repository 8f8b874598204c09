/* arena.c - the arenas a root lists: their descriptors, and copies of
   their entries out of a target, never larger than the target holds. */
#include "hi-reader.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* No arena of a sane process is larger; a hostile count must not make
   us allocate without bound. */
#define ARENA_BYTES_MAX (UINT64_C(1) << 32)

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

/* Arena descriptor I of root R: the first HI_MAX_ARENAS in arenas, the
   rest (format 4) in more_arenas. */
const struct hi_arena_desc *
hi_model_arena_desc (const struct hi_root *r, uint32_t i)
{
  return i < HI_MAX_ARENAS ? &r->arenas[i] : &r->more_arenas[i - HI_MAX_ARENAS];
}

/* Copy the arena of KIND into a new array; *COUNT entries.  A missing
   arena yields an empty array.  Its entries are ENTRY_SIZE bytes (0: the
   kind's size). */
static hi_status
read_arena_sized (const struct hi_target *t, const struct hi_root *r,
                  uint32_t kind, uint32_t entry_size, void **out,
                  uint64_t *count)
{
  *out = NULL;
  *count = 0;
  if (entry_size == 0)
    entry_size = entry_sizes[kind];
  for (uint32_t i = 0; i < r->n_arenas; i++)
    {
      const struct hi_arena_desc *a = hi_model_arena_desc (r, i);
      if (a->kind != kind)
        continue;
      if (a->entry_size != entry_size || a->count > a->capacity
          || a->count > ARENA_BYTES_MAX / a->entry_size)
        return HI_E_CORRUPT;
      if (a->count == 0)
        return HI_OK;
      /* Read in chunks, growing the copy as the target delivers: a count
         the target cannot back costs what it really holds, not what the
         descriptor claims. */
      enum { CHUNK = 1 << 20 };
      uint64_t bytes = a->count * a->entry_size, cap = 0;
      char *p = NULL;
      for (uint64_t off = 0; off < bytes; off += CHUNK)
        {
          uint64_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
          if (off + n > cap)
            {
              uint64_t want = cap * 2 > off + n ? cap * 2 : off + n;
              cap = want < bytes ? want : bytes;
              char *q = realloc (p, (size_t) cap);
              if (!q)
                {
                  free (p);
                  return HI_E_NOMEM;
                }
              p = q;
            }
          if (t->ops->read_memory (t->ctx, a->addr + off, p + off, (size_t) n))
            {
              free (p);
              return HI_E_UNREADABLE;
            }
        }
      *out = p;
      *count = a->count;
      return HI_OK;
    }
  return HI_OK;
}

hi_status
hi_model_read_arena (const struct hi_target *t, const struct hi_root *r,
                     uint32_t kind, uint32_t entry_size, void **out,
                     uint64_t *count)
{
  return read_arena_sized (t, r, kind, entry_size, out, count);
}

uint32_t
hi_model_arena_entry_size (const struct hi_root *r, uint32_t kind)
{
  for (uint32_t i = 0; i < r->n_arenas; i++)
    if (hi_model_arena_desc (r, i)->kind == kind)
      return hi_model_arena_desc (r, i)->entry_size;
  return 0;
}
