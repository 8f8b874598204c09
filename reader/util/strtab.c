/* strtab.c - interned strings with dense ids. */
#define _GNU_SOURCE
#include "util/strtab.h"
#include "util/hash.h"

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
  for (uint32_t i = 0; i < t->n; i++)
    free (t->strs[i]);
  free (t->strs);
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
  if (t->n == t->cap)
    {
      uint32_t cap = t->cap ? t->cap * 2 : 64;
      char **strs = cap > t->cap ? realloc (t->strs, cap * sizeof *strs) : NULL;
      if (!strs)
        return UINT32_MAX;
      t->strs = strs;
      t->cap = cap;
    }
  char *copy = strdup (s);
  if (!copy || hi_hash_insert (&t->index, h, t->n) != 0)
    {
      free (copy);
      return UINT32_MAX;
    }
  t->strs[t->n] = copy;
  return t->n++;
}
