/* emit.c - a report in the format the options name: the one dispatch
   from the format registry (HI_FORMATS) to the emitters. */
#include "hi-reader.h"
#include "report/rmodel.h"

typedef hi_status (*emitter) (const struct hi_rmodel *,
                              const struct hi_emit_options *, FILE *);

static const emitter emitters[] = {
#define HI_X_EMITTER(id, name, emit) [HI_##id] = hi_emit_##emit,
  HI_FORMATS (HI_X_EMITTER)
#undef HI_X_EMITTER
};

static struct hi_emit_options
emit_options (const struct hi_options *opt)
{
  return (struct hi_emit_options) { opt->exact_bytes, opt->lines,
                                    opt->weight, stderr, opt->gdb };
}

hi_status
hi_emit (const struct hi_rmodel *r, const struct hi_options *opt,
         int timeline, FILE *out)
{
  struct hi_emit_options eo = emit_options (opt);
  if (timeline && opt->format == HI_SVG)
    return hi_emit_svg_timeline (r, &eo, out);
  if ((unsigned) opt->format >= HI_NFORMATS)
    return HI_E_USAGE;
  return emitters[opt->format] (r, &eo, out);
}

void
hi_emit_text_or_json (const struct hi_rmodel *r, const struct hi_options *opt,
                      FILE *out)
{
  struct hi_emit_options eo = emit_options (opt);
  if (opt->format == HI_JSON)
    hi_emit_json (r, &eo, out);
  else
    hi_emit_text (r, &eo, out);
}
