/* emit-pprof-text.c - gperftools' heap profile text ("heap profile: ...
   @ heapprofile"), as its pprof and Go's pprof (profile/
   legacy_profile.go) read it: a header of totals, one line per call
   chain with its return addresses, then MAPPED_LIBRARIES: in the form
   of /proc/PID/maps.  The readers symbolize the addresses themselves,
   from the files the maps lines name. */

#include <inttypes.h>
#include <stdio.h>
#include "report/rmodel.h"
#include "util/num.h"

/* pprof reads every figure as an int64. */
static uint64_t
clamp (uint64_t v)
{
  return v > INT64_MAX ? INT64_MAX : v;
}

/* One "OBJECTS: BYTES" pair as gperftools writes it.  pprof rejects a
   whole file with a line of 0 objects and some bytes; only a damaged
   input can give that (bytes freed short of bytes allocated while every
   block was freed), and the bytes are the figure worth keeping, so such
   a pair says 1 object. */
static void
put_pair (uint64_t objects, uint64_t bytes, FILE *f)
{
  objects = clamp (objects);
  bytes = clamp (bytes);
  if (objects == 0 && bytes != 0)
    objects = 1;
  fprintf (f, "%6" PRIu64 ": %8" PRIu64, objects, bytes);
}

hi_status
hi_emit_pprof_text (const struct hi_rmodel *r, const struct hi_emit_options *o,
                    FILE *f)
{
  (void) o;                  /* every figure is written: no --weight */
  uint64_t in_obj = 0, in_bytes = 0, al_obj = 0, al_bytes = 0;
  for (size_t i = 0; i < r->n_samples; i++)
    {
      const struct hi_rsample *s = &r->samples[i];
      in_obj = hi_add_sat (in_obj, s->inuse_objects);
      in_bytes = hi_add_sat (in_bytes, s->inuse_space);
      al_obj = hi_add_sat (al_obj, s->alloc_objects);
      al_bytes = hi_add_sat (al_bytes, s->alloc_space);
    }
  /* pprof keeps the alloc_* sample types only if the header's alloc
     figures differ from the in-use ones AS TEXT (a program that freed
     nothing has them equal, and would lose alloc_objects and
     alloc_space).  A leading zero keeps the number and makes the text
     differ; every reader parses "05" as 5. */
  int pad = clamp (al_obj) == clamp (in_obj)
            && clamp (al_bytes) == clamp (in_bytes) && al_obj != 0;
  char objects[32];
  snprintf (objects, sizeof objects, "%s%" PRIu64, pad ? "0" : "",
            clamp (al_obj));
  fputs ("heap profile: ", f);
  put_pair (in_obj, in_bytes, f);
  fprintf (f, " [%6s: %8" PRIu64 "] @ heapprofile\n", objects,
           clamp (al_bytes));
  for (size_t i = 0; i < r->n_samples; i++)
    {
      const struct hi_rsample *s = &r->samples[i];
      put_pair (s->inuse_objects, s->inuse_space, f);
      fputs (" [", f);
      put_pair (s->alloc_objects, s->alloc_space, f);
      fputs ("] @", f);
      /* Return addresses, innermost first: the readers subtract 1 to
         land on the call.  The "<deeper>" location (callers cut at the
         depth cap) has no address and is left out: the chain simply
         ends there, as a truncated gperftools stack does. */
      for (uint64_t k = 0; k < s->n; k++)
        {
          const struct hi_rlocation *loc
            = &r->locations[r->sample_locs[s->first + k]];
          if (loc->return_address)
            fprintf (f, " 0x%016" PRIx64, loc->return_address);
        }
      fputc ('\n', f);
    }
  /* The recorded modules, each one executable line of /proc/PID/maps
     (pprof keeps only those), the file offset at START.  Paths from the
     input have their control characters escaped so a line stays one
     line; a path with a space is cut there by the readers, as
     gperftools' own output is. */
  fputs ("\nMAPPED_LIBRARIES:\n", f);
  for (size_t i = 0; i < r->n_mappings; i++)
    {
      const struct hi_rmapping *mp = &r->mappings[i];
      char path[8192];
      hi_escape (mp->path, path, sizeof path);
      fprintf (f, "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64
               " 00:00 0          %s\n", mp->start, mp->limit, mp->offset,
               path);
    }
  return ferror (f) ? HI_E_WRITE : HI_OK;
}
