/* emit-pprof.c - PLACEHOLDER until the pprof emitter lands (this session). */
#include "analysis.h"

hi_status
hi_emit_pprof (const struct hi_rmodel *r, const struct hi_emit_options *o,
             FILE *f)
{
  (void) r;
  (void) o;
  (void) f;
  return HI_E_WRITE;
}
