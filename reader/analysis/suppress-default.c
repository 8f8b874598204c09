/* suppress-default.c - the built-in suppressions: what the C library and
   libstdc++ allocate once for themselves and never free, which a leak
   table would otherwise list in every program.

   Unlike a user's leak: patterns (any frame), an entry here matches only
   the chain's allocating end: the innermost frame, past the C library's
   string-copy helpers and its own malloc/calloc frames (ld.so's inline
   wrappers, seen with debug information), must be one of these functions
   in the C library or the dynamic loader.  So a program's own allocation made in a library
   constructor or a dlopen()ed module's initialization, which also runs
   under _dl_init or dl_open_worker, is never hidden.  The list is what
   `python3 -c pass`, `apt-cache policy bash` and small C and C++
   programs leave at exit on glibc 2.36 / libstdc++ 12, plus the
   functions that fill the same caches; glibc frees all of it only in
   __libc_freeres, which valgrind calls and which no program does. */
#include "analysis/filter.h"

#include <string.h>

static const char *const one_time[] = {
  /* stdio: a FILE's buffer, allocated at its first read or write. */
  "_IO_file_doallocate",
  /* The dynamic loader's record of each loaded library (link map, its
     name, search paths, dependency lists, version tables). */
  "_dl_new_object", "_dl_map_object", "_dl_map_object_from_fd",
  "_dl_map_object_deps", "_dl_check_map_versions", "_dl_find_object_update",
  "_dl_load_cache_lookup", "_dl_init_paths", "_dl_important_hwcaps",
  "_dl_add_to_namespace_list", "add_to_global_resize", "decompose_rpath",
  "fillin_rpath", "_dl_find_object_update_1", "_dlfo_mappings_segment_allocate",
  /* Locale data (setlocale, newlocale) and its cache of names. */
  "_nl_intern_locale_data", "_nl_load_locale", "_nl_load_locale_from_archive",
  "_nl_find_locale", "_nl_make_l10nflist", "_nl_expand_alias",
  "read_alias_file", "extend_alias_table", "new_composite_name", "setlocale",
  /* Message catalogs (gettext) and the text domains bound to them. */
  "__dcigettext", "_nl_find_domain", "_nl_load_domain", "set_binding_values",
  "__textdomain", "textdomain",
  /* Character set conversion modules and their cache (iconv, mbstowcs). */
  "__gconv_lookup_cache", "__gconv_find_transform", "__gconv_load_cache",
  "__gconv_read_conf", "__gconv_find_shlib", "__wcsmbs_load_conv",
  /* The time zone and its names (tzset, localtime). */
  "__tzfile_read", "__tzstring", "__tzstring_len", "tzset_internal",
  NULL
};

/* Helpers whose caller owns what they return. */
static const char *const copiers[] = {
  "__strdup", "strdup", "__strndup", "strndup", NULL
};

/* The allocator's own names, as frames of the C library or the dynamic
   loader show them with debug information: ld.so's inline malloc and
   calloc that call through __rtld_malloc, its minimal allocator. */
static const char *const allocators[] = {
  "malloc", "calloc", "realloc", "__minimal_malloc", "__minimal_calloc",
  "__minimal_realloc", "__rtld_malloc", "__rtld_calloc", NULL
};

/* Whether NAME is F, or F with a suffix after a '.' (a clone or alias
   the symbol table calls f.localalias or f.part.0), or with the module
   the tables add when two modules have a function of that name
   ("strdup (libc.so.6)"). */
static int
is_func (const char *name, const char *f)
{
  size_t len = strlen (f);
  return strncmp (name, f, len) == 0
         && (name[len] == '\0' || name[len] == '.'
             || (name[len] == ' ' && name[len + 1] == '('));
}

static int
in_list (const char *name, const char *const *list)
{
  for (int i = 0; list[i]; i++)
    if (is_func (name, list[i]))
      return 1;
  return 0;
}

/* The C library or the dynamic loader, on the systems glibc runs on. */
static int
is_libc (const char *mod)
{
  return mod && (strncmp (mod, "libc.so", 7) == 0
                 || strncmp (mod, "ld-linux", 8) == 0
                 || strncmp (mod, "ld64.so", 7) == 0
                 || strncmp (mod, "ld.so", 5) == 0);
}

/* A name C reserves for the implementation (__x, _X): no program's own
   function, so it may be matched in any module (a static binary holds
   the C library itself). */
static int
is_reserved (const char *name)
{
  return name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

static const char *
module_of (const struct hi_analysis *a, const struct hi_frame *f)
{
  return f->module == HI_NONE ? NULL : a->strs.strs[f->module];
}

/* F's name without the " (module)" of names two modules share. */
static const char *
name_of (const struct hi_analysis *a, const struct hi_frame *f)
{
  return f->name != HI_NONE ? a->strs.strs[f->name] : a->funcs.strs[f->func];
}

/* What the rules ask of one frame, kept per frame: every chain ends in
   the same few allocating frames. */
enum
{
  KNOWN = 1,
  PASSED = 2,                /* a copier, or the C library's allocator */
  ONE_TIME = 4               /* a function of the one_time list */
};

/* The bits above of frame FRAME of A, from CACHE if not NULL (one byte
   per frame, 0 until asked). */
static uint8_t
frame_kind (const struct hi_analysis *a, uint32_t frame, uint8_t *cache)
{
  if (cache && cache[frame])
    return cache[frame];
  const struct hi_frame *f = &a->frames[frame];
  const char *name = name_of (a, f);
  const char *mod = module_of (a, f);
  uint8_t k = KNOWN;
  if (in_list (name, copiers) || (in_list (name, allocators) && is_libc (mod)))
    k |= PASSED;
  if (in_list (name, one_time) && (is_reserved (name) || is_libc (mod)))
    k |= ONE_TIME;
  if (cache)
    cache[frame] = k;
  return k;
}

int
hi_default_suppressed (const struct hi_analysis *a, uint64_t s,
                       uint8_t *cache)
{
  uint32_t from = a->chain_start[s], to = a->chain_start[s + 1];
  uint32_t i = to;
  /* The allocating frame: the innermost, past the string copiers and
     the C library's own allocator frames. */
  while (i > from)
    {
      if (a->chain_frames[i - 1] == HI_FRAME_CUT)
        break;
      if (!(frame_kind (a, a->chain_frames[i - 1], cache) & PASSED))
        break;
      i--;
    }
  if (i == from || a->chain_frames[i - 1] == HI_FRAME_CUT)
    return 0;
  if (frame_kind (a, a->chain_frames[i - 1], cache) & ONE_TIME)
    return 1;
  const struct hi_frame *f = hi_chain_frame (a, i - 1);
  const char *mod = module_of (a, f);
  /* libstdc++'s own static initialization, run by the dynamic loader:
     the emergency exception-handling pool (eh_alloc.cc's pool, freed
     only by __gnu_cxx::__freeres), with or without libstdc++'s symbols
     (its constructor is a local symbol: libstdc++.so.6+0x... without
     debug information). */
  if (!mod || strncmp (mod, "libstdc++.so", 12) != 0)
    return 0;
  for (i--; i > from; i--)
    {
      const struct hi_frame *g = hi_chain_frame (a, i - 1);
      const char *gm = a->chain_frames[i - 1] == HI_FRAME_CUT ? NULL
                       : module_of (a, g);
      if (gm && strcmp (gm, mod) == 0)
        continue;
      const char *caller = name_of (a, g);
      return is_libc (gm) && (strcmp (caller, "call_init") == 0
                              || strcmp (caller, "_dl_init") == 0);
    }
  return 0;
}
