/* reach.c - the reachability scan's entry points (issue 15). */
#include "reach.h"

#include <stdlib.h>

static const char *const class_names[HI_REACH_NCLASSES] = {
  "definitely lost", "indirectly lost", "possibly lost", "still reachable"
};
static const char *const class_keys[HI_REACH_NCLASSES] = {
  "definite", "indirect", "possible", "reachable"
};

const char *
hi_reach_class_name (int cls)
{
  return cls >= 0 && cls < HI_REACH_NCLASSES ? class_names[cls] : NULL;
}

const char *
hi_reach_class_key (int cls)
{
  return cls >= 0 && cls < HI_REACH_NCLASSES ? class_keys[cls] : NULL;
}

hi_status
hi_reach_scan (const struct hi_target *t, const struct hi_model *m,
               unsigned flags, struct hi_reach **out)
{
  (void) m, (void) flags;
  *out = NULL;
  if (!t->ops->mapping)
    return HI_E_NO_MEMORY;
  return HI_E_NO_MEMORY;   /* not yet */
}

void
hi_reach_free (struct hi_reach *r)
{
  if (!r)
    return;
  free (r->blocks);
  free (r->sites);
  free (r);
}

void
hi_reach_skipped_text (const struct hi_reach *r, char *buf, size_t size)
{
  (void) r;
  if (size)
    buf[0] = 0;
}

hi_status
hi_reach_report (const struct hi_target *t, const struct hi_model *m,
                 const char *exe, const char *name,
                 const struct hi_options *opt, FILE *out,
                 struct hi_reach_totals *totals, unsigned *missing)
{
  (void) exe, (void) name, (void) opt, (void) out, (void) missing;
  struct hi_reach *r;
  hi_status s = hi_reach_scan (t, m, 0, &r);
  if (s != HI_OK)
    return s;
  if (totals)
    *totals = r->totals;
  hi_reach_free (r);
  return HI_OK;
}
