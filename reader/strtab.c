/* strtab.c - interned strings with dense ids. */
#define _GNU_SOURCE
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
hash (const char *s)
{
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 16777619u;
  return h;
}

void
hi_strtab_init (struct hi_strtab *t)
{
  memset (t, 0, sizeof *t);
}

void
hi_strtab_free (struct hi_strtab *t)
{
  for (uint32_t i = 0; i < t->n; i++)
    free (t->strs[i]);
  free (t->strs);
  free (t->slots);
  memset (t, 0, sizeof *t);
}

static int
grow (struct hi_strtab *t)
{
  uint32_t cap = t->cap ? t->cap * 2 : 64;
  char **strs = realloc (t->strs, cap * sizeof *strs);
  if (!strs)
    return -1;
  t->strs = strs;
  uint32_t nslots = cap * 2;
  uint32_t *slots = calloc (nslots, sizeof *slots);
  if (!slots)
    return -1;
  free (t->slots);
  t->slots = slots;
  t->mask = nslots - 1;
  t->cap = cap;
  for (uint32_t i = 0; i < t->n; i++)
    {
      uint32_t h = hash (t->strs[i]) & t->mask;
      while (t->slots[h])
        h = (h + 1) & t->mask;
      t->slots[h] = i + 1;
    }
  return 0;
}

uint32_t
hi_strtab_intern (struct hi_strtab *t, const char *s)
{
  if (t->n == t->cap && grow (t) != 0)
    return UINT32_MAX;
  uint32_t h = hash (s) & t->mask;
  for (; t->slots[h]; h = (h + 1) & t->mask)
    if (strcmp (t->strs[t->slots[h] - 1], s) == 0)
      return t->slots[h] - 1;
  char *copy = strdup (s);
  if (!copy)
    return UINT32_MAX;
  t->strs[t->n] = copy;
  t->slots[h] = ++t->n;
  return t->n - 1;
}
