/* emit-folded.c - collapsed stacks, as Brendan Gregg's stackcollapse
   scripts write them for flamegraph.pl, inferno and speedscope: one line
   per call chain, its functions root first, joined by ';', then a space
   and the chain's weight. */

#include <inttypes.h>
#include <string.h>
#include "report/rmodel.h"

/* NAME as one frame of a line: control characters as \xHH (hi_escape),
   and ';', which separates frames, as ':'. */
static void
put_name (const char *name, FILE *f)
{
  char buf[2048];
  hi_escape (name, buf, sizeof buf);
  for (char *p = buf; *p; p++)
    if (*p == ';')
      *p = ':';
  fputs (buf, f);
}

hi_status
hi_emit_folded (const struct hi_rmodel *r, const struct hi_emit_options *o,
                FILE *f)
{
  for (size_t i = 0; i < r->n_samples; i++)
    {
      const struct hi_rsample *s = &r->samples[i];
      uint64_t w = hi_sample_weight (s, o->weight);
      if (w == 0)
        continue;
      int any = 0;
      /* Locations innermost first: walk them backwards, root first. */
      for (uint64_t k = s->n; k-- > 0;)
        {
          const struct hi_rlocation *loc
            = &r->locations[r->sample_locs[s->first + k]];
          for (uint64_t j = 0; j < loc->n; j++)
            {
              if (any++)
                fputc (';', f);
              put_name (r->frames[loc->first + j].group, f);
            }
        }
      if (!any)
        fputs ("[unknown]", f);
      fprintf (f, " %" PRIu64 "\n", w);
    }
  return ferror (f) ? HI_E_WRITE : HI_OK;
}
