/* glibc-layouts.c - for glibc-layout.exp: the offsets the reader's
   table (reader/glibc/glibc-layout.c) holds for glibc VERSION, one
   "struct.field offset" line each under the names of glibc's sources
   (as gdb's ptype/o prints them), "struct sizeof N" for a size and
   "struct.field[] N" for an array's length; "tested" or "believed".
   Exit 1, with a line on stderr, for a version the table refuses. */
#include "glibc/glibc.h"

#include <stdio.h>

int
main (int argc, char **argv)
{
  const struct hi_glibc_layout *l = argc == 2 ? hi_glibc_layout (argv[1])
                                              : NULL;
  if (!l)
    {
      fprintf (stderr, "glibc-layouts: no layout for %s (known: %s)\n",
               argc == 2 ? argv[1] : "(none)", hi_glibc_versions ());
      return 1;
    }
  printf ("malloc_state.fastbinsY %u\n", l->state_fastbins);
  printf ("malloc_state.fastbinsY[] %u\n", l->nfastbins);
  printf ("malloc_state.top %u\n", l->state_top);
  printf ("malloc_state.bins %u\n", l->state_bins);
  printf ("malloc_state.bins[] %u\n", l->nbins * 2 - 2);
  printf ("malloc_state.next %u\n", l->state_next);
  printf ("malloc_state.system_mem %u\n", l->state_system_mem);
  printf ("malloc_state.max_system_mem %u\n", l->state_max_system_mem);
  printf ("malloc_state sizeof %u\n", l->state_size);
  printf ("malloc_par.n_mmaps %u\n", l->par_n_mmaps);
  printf ("malloc_par.mmapped_mem %u\n", l->par_mmapped_mem);
  printf ("malloc_par.sbrk_base %u\n", l->par_sbrk_base);
  if (l->par_hp_pagesize)
    printf ("malloc_par.hp_pagesize %u\n", l->par_hp_pagesize);
  printf ("_heap_info.prev %u\n", l->heap_prev);
  printf ("_heap_info.size %u\n", l->heap_size);
  printf ("_heap_info.mprotect_size %u\n", l->heap_mprotect_size);
  printf ("_heap_info sizeof %u\n", l->heap_info_size);
  printf ("tcache_perthread_struct.counts %u\n", l->tcache_counts);
  printf ("tcache_perthread_struct.counts[] %u\n", l->tcache_bins);
  printf ("tcache_perthread_struct.entries %u\n", l->tcache_entries);
  printf ("%s\n", hi_glibc_layout_tested (l, argv[1]) ? "tested"
                                                      : "believed");
  return 0;
}
