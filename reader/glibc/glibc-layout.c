/* glibc-layout.c - malloc's structures, version by version (x86-64),
   as data: one entry per group of versions whose layouts are the same.
   From glibc's own sources (malloc/malloc.c and malloc/arena.c at each
   release's tag), 2.31 to 2.40:
   - malloc_state is the same in all: mutex, flags, have_fastchunks
     (int), fastbinsY[10], top, last_remainder, bins[254], binmap[4],
     next, next_free, attached_threads, system_mem, max_system_mem;
   - malloc_par gains thp_pagesize, hp_pagesize and hp_flags after
     arena_max in 2.35 (under HAVE_TUNABLES until 2.38, which every
     distribution's build has): n_mmaps, mmapped_mem and sbrk_base move
     by 20, 24 and 24 bytes;
   - heap_info gains pagesize in 2.35 (its size 32 -> 48), and
     HEAP_MAX_SIZE becomes 4 * mp_.hp_pagesize when huge pages are
     asked for (glibc.malloc.hugetlb);
   - fastbin and tcache links are PROTECT_PTR'd since 2.32;
   - tcache_perthread_struct's counts are uint16_t (since 2.30), 64
     bins; tcache_entry's key (a pointer to the tcache until 2.33, a
     random word since 2.34) is not read; MALLOC_ALIGNMENT is 16.
   Only 2.36 (Debian 12) is tested: its offsets against its debug
   information (gdb's ptype/o, glibc-layout.exp) and its figures
   against its mallinfo2() and malloc_info() (glibc-heap.exp).  The
   others are believed from the sources.  A version not here is
   refused: a heap read with a guessed layout would be read wrong
   without a word. */
#include "glibc/glibc.h"

#include <stdlib.h>
#include <string.h>

/* malloc_state and tcache_perthread_struct (uint16_t counts[64],
   tcache_entry *entries[64]): the same from 2.31 to 2.40. */
#define STATE_2_31                                              \
  .state_fastbins = 16, .state_top = 96, .state_bins = 112,     \
  .state_next = 2160, .state_system_mem = 2184,                 \
  .state_max_system_mem = 2192, .state_size = 2200,             \
  .nfastbins = 10, .nbins = 128,                                \
  .tcache_counts = 0, .tcache_entries = 128, .tcache_bins = 64, \
  .heap_max = UINT64_C(64) << 20     /* 2 * DEFAULT_MMAP_THRESHOLD_MAX */

static const struct hi_glibc_layout layouts[] = {
  {
    /* malloc_par: trim_threshold, top_pad, mmap_threshold, arena_test,
       arena_max, n_mmaps, n_mmaps_max, max_n_mmaps, no_dyn_threshold,
       mmapped_mem, max_mmapped_mem, sbrk_base, ...; heap_info: ar_ptr,
       prev, size, mprotect_size.  Links plain. */
    .first = 31, .last = 31, STATE_2_31,
    .par_n_mmaps = 40, .par_mmapped_mem = 56, .par_sbrk_base = 72,
    .par_hp_pagesize = 0,
    .heap_info_size = 32, .heap_prev = 8, .heap_size = 16,
    .heap_mprotect_size = 24,
    .safe_linking = 0,
  },
  {
    /* 2.31's, with safe-linking. */
    .first = 32, .last = 34, STATE_2_31,
    .par_n_mmaps = 40, .par_mmapped_mem = 56, .par_sbrk_base = 72,
    .par_hp_pagesize = 0,
    .heap_info_size = 32, .heap_prev = 8, .heap_size = 16,
    .heap_mprotect_size = 24,
    .safe_linking = 1,
  },
  {
    /* malloc_par: ..., arena_max, thp_pagesize, hp_pagesize, hp_flags,
       n_mmaps, ...; heap_info: ..., mprotect_size, pagesize, pad. */
    .first = 35, .last = 40, STATE_2_31,
    .par_n_mmaps = 60, .par_mmapped_mem = 80, .par_sbrk_base = 96,
    .par_hp_pagesize = 48,
    .heap_info_size = 48, .heap_prev = 8, .heap_size = 16,
    .heap_mprotect_size = 24,
    .safe_linking = 1,
    .tested = 36,
  },
};

const struct hi_glibc_layout *
hi_glibc_layout (const char *version)
{
  /* "2.NN" exactly: a development snapshot ("2.36.9000") is not its
     release. */
  if (strncmp (version, "2.", 2) != 0 || strlen (version) != 4
      || version[2] < '0' || version[2] > '9'
      || version[3] < '0' || version[3] > '9')
    return NULL;
  unsigned minor = (unsigned) ((version[2] - '0') * 10 + version[3] - '0');
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    if (minor >= layouts[i].first && minor <= layouts[i].last)
      return &layouts[i];
  return NULL;
}

int
hi_glibc_layout_tested (const struct hi_glibc_layout *l, const char *version)
{
  return l->tested && (unsigned) atoi (version + 2) == l->tested;
}

const char *
hi_glibc_versions (void)
{
  return "2.31 to 2.40";
}
