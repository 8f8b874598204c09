/* weight.c - the figures a profile format is weighed by (--weight): their
   titles, and what a profile with none of its figure says instead of
   nothing (folded's line on stderr, the flame graph's text): which other
   weights hold something. */
#include "report/rmodel.h"

#include <stdio.h>
#include <string.h>

const char *
hi_weight_title (enum hi_weight w)
{
  switch (w)
    {
    case HI_WEIGHT_INUSE_OBJECTS:
      return "blocks in use";
    case HI_WEIGHT_ALLOC_SPACE:
      return "bytes allocated";
    case HI_WEIGHT_ALLOC_OBJECTS:
      return "allocations";
    case HI_WEIGHT_PEAK_SPACE:
      return "bytes at the peak";
    case HI_WEIGHT_PEAK_OBJECTS:
      return "blocks at the peak";
    case HI_WEIGHT_INUSE_SPACE:
    default:
      return "bytes in use";
    }
}

/* 1 if a sample of R has some of weight W. */
static int
has_weight (const struct hi_rmodel *r, enum hi_weight w)
{
  for (size_t i = 0; i < r->n_samples; i++)
    if (hi_sample_weight (&r->samples[i], w))
      return 1;
  return 0;
}

void
hi_weight_empty_hint (const struct hi_rmodel *r, enum hi_weight w, char *s,
                      size_t size)
{
  /* The other weights of the same unit, in use, allocated, at the peak. */
  static const enum hi_weight space[] = {
    HI_WEIGHT_INUSE_SPACE, HI_WEIGHT_ALLOC_SPACE, HI_WEIGHT_PEAK_SPACE };
  static const enum hi_weight objects[] = {
    HI_WEIGHT_INUSE_OBJECTS, HI_WEIGHT_ALLOC_OBJECTS, HI_WEIGHT_PEAK_OBJECTS };
  const enum hi_weight *others = strcmp (hi_weight_unit (w), "bytes") == 0
                                 ? space : objects;
  const char *names[3];
  size_t n = 0;
  for (size_t i = 0; i < 3; i++)
    if (others[i] != w && has_weight (r, others[i]))
      names[n++] = hi_weight_name (others[i]);
  if (n == 0)
    snprintf (s, size, "no %s in this profile, and no allocation either "
              "(or --focus, --ignore and --module kept none)",
              hi_weight_title (w));
  else if (n == 1)
    snprintf (s, size, "no %s in this profile; try --weight=%s",
              hi_weight_title (w), names[0]);
  else
    snprintf (s, size, "no %s in this profile; try --weight=%s or "
              "--weight=%s", hi_weight_title (w), names[0], names[1]);
}
