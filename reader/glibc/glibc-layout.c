/* glibc-layout.c - malloc's structures, version by version.  Only
   layouts checked against the version's own debug information (gdb's
   `ptype/o struct malloc_state`, `malloc_par`, `_heap_info` with its
   -dbg package) are here: a heap read with a guessed layout would be
   read wrong without a word.  Debian 12's 2.36 is checked, and tested
   against its mallinfo2() and malloc_info() (glibc-heap.exp). */
#include "glibc/glibc.h"

#include <string.h>

static const struct hi_glibc_layout layouts[] = {
  {
    .version = "2.36",
    /* malloc_state: mutex, flags, have_fastchunks, fastbinsY[10], top,
       last_remainder, bins[254], binmap[4], next, next_free,
       attached_threads, system_mem, max_system_mem. */
    .state_fastbins = 16, .state_top = 96, .state_bins = 112,
    .state_next = 2160, .state_system_mem = 2184,
    .state_max_system_mem = 2192, .state_size = 2200,
    .nfastbins = 10, .nbins = 128,
    /* malloc_par: ... thp_pagesize, hp_pagesize, hp_flags, n_mmaps,
       ..., mmapped_mem, max_mmapped_mem, sbrk_base, ... */
    .par_n_mmaps = 60, .par_mmapped_mem = 80, .par_sbrk_base = 96,
    /* heap_info: ar_ptr, prev, size, mprotect_size, pagesize, pad. */
    .heap_info_size = 48, .heap_prev = 8, .heap_size = 16,
    .heap_mprotect_size = 24,
    .heap_max = UINT64_C(64) << 20,     /* 2 * DEFAULT_MMAP_THRESHOLD_MAX */
    .safe_linking = 1,
  },
};

const struct hi_glibc_layout *
hi_glibc_layout (const char *version)
{
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    if (strcmp (layouts[i].version, version) == 0)
      return &layouts[i];
  return NULL;
}

const char *
hi_glibc_versions (void)
{
  return "2.36";
}
