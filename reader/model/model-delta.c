/* model-delta.c - what changed between two reads of one live process:
   the model of the later read, its sites' counters less the earlier
   read's.  For a profile over a time window (`heapinspect serve`'s
   ?seconds=S, as Go's net/http/pprof serves a delta profile). */
#include "model/model.h"

#include <string.h>

/* *A -= B, or 0 where B is larger (a counter never goes back; a read
   torn by --no-stop may make it look so). */
static void
sub (uint64_t *a, uint64_t b)
{
  *a = *a >= b ? *a - b : 0;
}

hi_status
hi_model_subtract (struct hi_model *later, const struct hi_model *earlier)
{
  /* The monitor's sites only grow, each keeping its index: an earlier
     read of the same process has as many or fewer, each with the same
     call pair. */
  if (earlier->n_sites > later->n_sites
      || earlier->root.header_salt != later->root.header_salt)
    return HI_E_USAGE;
  for (uint64_t s = 0; s < earlier->n_sites; s++)
    if (earlier->sites[s].node != later->sites[s].node
        && earlier->sites[s].depth != 0)
      return HI_E_USAGE;
  for (uint64_t s = 0; s < earlier->n_sites; s++)
    {
      struct hi_site *l = &later->sites[s];
      const struct hi_site *e = &earlier->sites[s];
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        {
          sub (&l->allocs[c], e->allocs[c]);
          sub (&l->frees[c], e->frees[c]);
          sub (&l->bytes[c], e->bytes[c]);
          sub (&l->bytes_freed[c], e->bytes_freed[c]);
        }
    }
  /* Each chain's figures at the peak are no difference of anything. */
  later->has_time = 0;
  /* The profile's duration is the window, not the process's life (Go's
     delta: DurationNanos the window, TimeNanos the second read's): the
     run times' difference (the monotonic clock's, both reads'), else
     the reads' wall clocks'; 0 where neither is known. */
  if (later->run_ns && earlier->run_ns && later->run_ns >= earlier->run_ns)
    later->run_ns -= earlier->run_ns;
  else if (later->read_ns && earlier->read_ns
           && later->read_ns >= earlier->read_ns)
    later->run_ns = later->read_ns - earlier->read_ns;
  else
    later->run_ns = 0;
  return HI_OK;
}
