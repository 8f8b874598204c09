/* strtab.h - interned strings: each distinct string gets a dense id. */
#ifndef HI_STRTAB_H
#define HI_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct hi_strtab
{
  char **strs;          /* id -> string (owned) */
  uint32_t n, cap;
  struct hi_hash index;
};

void hi_strtab_init (struct hi_strtab *t);
void hi_strtab_free (struct hi_strtab *t);
/* The id of S, interning a copy if new; UINT32_MAX if out of memory. */
uint32_t hi_strtab_intern (struct hi_strtab *t, const char *s);

#endif
