/* loader-slot.c - where a process's dynamic loader keeps its pointer to
   _dl_open: GLRO(dl_open), a member of ld.so's _rtld_global_ro through
   which both dlopen and glibc's internal __libc_dlopen (NSS modules,
   iconv's converters) reach the loader.  An attached monitor points it
   at a wrapper, so that what glibc loads by itself is redirected too.
   _dl_open is a local symbol: found in ld.so's separate debug file
   (Debian's libc6-dbg); the slot is the one word of _rtld_global_ro
   that holds its address. */
#include "target/target.h"

#include <string.h>

/* struct rtld_global_ro is 896 bytes in glibc 2.36; read more, in case
   another version's is larger, but take one match only. */
#define RTLD_GLOBAL_RO_SCAN 2048

int
hi_loader_open_slot (const struct hi_target *t, uint64_t wrapper,
                     uint64_t *slot, const char **why)
{
  struct hi_map_entry e;
  int found = 0;
  for (size_t i = 0; !found && t->ops->mapping
                     && t->ops->mapping (t->ctx, i, &e) == 0; i++)
    {
      const char *base = strrchr (e.path, '/');
      found = base && strncmp (base + 1, "ld-linux", 8) == 0
              && e.file_offset == 0;
    }
  if (!found)
    {
      *why = "the process maps no ld-linux (a static program?)";
      return -1;
    }
  uint64_t open_fn, ro, value;
  if (hi_find_debug_symbol (e.path, e.start, "_dl_open", &open_fn, &value)
      != 0
      || hi_find_debug_symbol (e.path, e.start, "_rtld_global_ro", &ro,
                               &value) != 0)
    {
      *why = "the loader's debug symbols are not installed (Debian: "
             "apt-get install libc6-dbg)";
      return -1;
    }
  uint64_t words[RTLD_GLOBAL_RO_SCAN / 8];
  if (t->ops->read_memory (t->ctx, ro, words, sizeof words) != 0)
    {
      *why = "the loader's _rtld_global_ro cannot be read";
      return -1;
    }
  int matches = 0, wrapped = 0;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (words[i] == open_fn || (wrapper && words[i] == wrapper))
      {
        *slot = ro + 8 * i;
        wrapped = words[i] == wrapper;
        matches++;
      }
  if (matches != 1)
    {
      *why = "the loader's pointer to _dl_open is not found once in "
             "_rtld_global_ro";
      return -1;
    }
  *why = NULL;
  return wrapped;
}
