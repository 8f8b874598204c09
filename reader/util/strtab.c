/* strtab.c - interned strings with dense ids. */
#define _GNU_SOURCE
#include "util/strtab.h"
#include "util/hash.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

void
hi_strtab_init (struct hi_strtab *t)
{
  memset (t, 0, sizeof *t);
  hi_hash_init (&t->index);
}

void
hi_strtab_free (struct hi_strtab *t)
{
  hi_free_strings (t->strs, t->n);
  hi_hash_free (&t->index);
  memset (t, 0, sizeof *t);
}

struct key
{
  const struct hi_strtab *t;
  const char *s;
};

static int
same (const void *ctx, uint32_t id)
{
  const struct key *k = ctx;
  return strcmp (k->t->strs[id], k->s) == 0;
}

uint32_t
hi_strtab_intern (struct hi_strtab *t, const char *s)
{
  uint64_t h = hi_hash_bytes (s, strlen (s));
  struct key k = { t, s };
  uint32_t id = hi_hash_find (&t->index, h, same, &k);
  if (id != UINT32_MAX)
    return id;
  if (hi_grow32 ((void **) &t->strs, &t->cap, (size_t) t->n + 1,
                 sizeof *t->strs) != 0)
    return UINT32_MAX;
  char *copy = strdup (s);
  if (!copy || hi_hash_insert (&t->index, h, t->n) != 0)
    {
      free (copy);
      return UINT32_MAX;
    }
  t->strs[t->n] = copy;
  return t->n++;
}
