/* time-text.c - durations, lifetime buckets and their quantiles as the
   time tables show them (timetab.h). */
#include "util/text.h"
#include "report/timetab.h"
#include "report/rmodel.h"

#include <inttypes.h>
#include <stdio.h>

void
hi_duration_text (uint64_t ns, char *out, size_t size)
{
  static const struct
  {
    uint64_t unit;
    const char *name;
  } units[] = { { 1000, "us" }, { 1000000, "ms" }, { 1000000000, "s" } };
  if (ns == 0)
    {
      snprintf (out, size, "0");
      return;
    }
  if (ns < 1000)
    {
      snprintf (out, size, "%" PRIu64 "ns", ns);
      return;
    }
  if (ns < UINT64_C (60000000000))
    for (int u = 2; u >= 0; u--)
      if (ns >= units[u].unit)
        {
          uint64_t whole = ns / units[u].unit, rest = ns % units[u].unit;
          /* Three figures, cut: 1.23, 12.3, 123. */
          if (whole >= 100)
            snprintf (out, size, "%" PRIu64 "%s", whole, units[u].name);
          else if (whole >= 10)
            snprintf (out, size, "%" PRIu64 ".%" PRIu64 "%s", whole,
                      rest * 10 / units[u].unit, units[u].name);
          else
            snprintf (out, size, "%" PRIu64 ".%02" PRIu64 "%s", whole,
                      rest * 100 / units[u].unit, units[u].name);
          return;
        }
  uint64_t s = ns / 1000000000;
  if (s < 3600)
    snprintf (out, size, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
  else
    snprintf (out, size, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
              s % 3600 / 60);
}

unsigned
hi_life_quantile (const uint64_t *life, unsigned permille)
{
  uint64_t n = 0;
  for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
    n = n + life[k] < n ? UINT64_MAX : n + life[k];
  if (n == 0)
    return HI_LIFE_BUCKETS;
  if (permille > 1000)
    permille = 1000;
  /* ceil (n * permille / 1000) without overflow. */
  uint64_t rank = n / 1000 * permille + (n % 1000 * permille + 999) / 1000;
  if (rank == 0)
    rank = 1;
  uint64_t seen = 0;
  for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
    {
      seen = seen + life[k] < seen ? UINT64_MAX : seen + life[k];
      if (seen >= rank)
        return k;
    }
  return HI_LIFE_BUCKETS - 1;
}

void
hi_life_bounds (unsigned k, uint64_t *lo, uint64_t *hi)
{
  if (k == 0)
    *lo = 0, *hi = 1;
  else if (k >= HI_LIFE_BUCKETS - 1)
    *lo = UINT64_C (1) << (HI_LIFE_BUCKETS - 2), *hi = 0;
  else
    *lo = UINT64_C (1) << (k - 1), *hi = UINT64_C (1) << k;
}

static void
bytes (uint64_t v, int exact, char *out, size_t size)
{
  if (exact)
    snprintf (out, size, "%" PRIu64, v);
  else
    hi_human_bytes (v, out, size);
}

void
hi_life_bucket_text (unsigned k, int exact, char *out, size_t size)
{
  char lo_text[24], hi_text[24];
  uint64_t lo, hi;
  if (k >= HI_LIFE_BUCKETS)
    {
      snprintf (out, size, "-");
      return;
    }
  hi_life_bounds (k, &lo, &hi);
  bytes (lo, exact, lo_text, sizeof lo_text);
  if (k == 0 || k == 1)
    snprintf (out, size, "%s", lo_text);
  else if (hi == 0)
    snprintf (out, size, ">=%s", lo_text);
  else
    {
      bytes (hi, exact, hi_text, sizeof hi_text);
      snprintf (out, size, "%s-%s", lo_text, hi_text);
    }
}
