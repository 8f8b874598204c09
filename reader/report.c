/* report.c - the tables a user asked for, printed in order: the one
   entry point heapinspect(1) and the gdb plugin share. */
#define _GNU_SOURCE
#include "hi-reader.h"
#include "tables/tables.h"
#include "symbols/symbolize.h"

#include <stdlib.h>
#include <string.h>

static const struct
{
  const char *name;
  hi_status (*build) (struct hi_analysis *, struct hi_rmodel *);
  int names;                 /* it needs the chains' names */
} tables[] = {
#define HI_X_TABLE(id, name, build, names) { name, hi_table_##build, names },
  HI_TABLES (HI_X_TABLE)
#undef HI_X_TABLE
};
#define NTABLES (sizeof tables / sizeof tables[0])

/* Indexes into tables[] named by LIST, in its order; -1 if unknown. */
static int
parse_tables (const char *list, int *out)
{
  int n = 0;
  const char *p = list;
  while (*p)
    {
      size_t len = strcspn (p, ",");
      size_t i;
      for (i = 0; i < NTABLES; i++)
        if (strlen (tables[i].name) == len
            && strncmp (tables[i].name, p, len) == 0)
          break;
      if (i == NTABLES || n == 16)
        return -1;
      out[n++] = (int) i;
      p += len + (p[len] == ',');
    }
  return n;
}

int
hi_tables_valid (const char *list)
{
  int which[16];
  return parse_tables (list, which) > 0;
}

hi_status
hi_report (const struct hi_model *m, const char *exe, const char *name,
           const char *list, const struct hi_options *opt, FILE *out,
           unsigned *missing)
{
  int which[16];
  int n = parse_tables (list, which);
  if (n <= 0)
    return HI_E_USAGE;
  /* The default tables (no -t) of a process that made heap errors: the
     errors first, the way a sanitizer's report starts with what went
     wrong. */
  if (!opt->tables_given && strcmp (list, HI_OPT_TABLES_DEFAULT) == 0
      && m->errors_total && n < 16)
    {
      memmove (which + 1, which, (size_t) n * sizeof *which);
      parse_tables ("errors", which);
      n++;
    }
  /* The profile formats write the chains, whatever the tables; massif's
     the timeline, whatever the tables; an SVG of the timeline alone is
     the stacked timeline. */
  int samples = hi_format_samples (opt->format);
  int timeline = opt->format == HI_MASSIF
                 || (opt->format == HI_SVG && n == 1
                     && which[0] == HI_TABLE_TIMELINE);
  if (timeline)
    samples = 0;
  if (samples || timeline)
    n = 0;
  /* Only `stat` needs no names: no symbolizer, no chains for it. */
  int names = samples || timeline;
  for (int i = 0; i < n; i++)
    names |= tables[which[i]].names;
  struct hi_symbolizer *sym = NULL;
  struct hi_analysis a;
  memset (&a, 0, sizeof a);
  a.m = m;
  a.opt = *opt;
  hi_status s = HI_OK;
  if (names)
    {
      sym = hi_symbolizer_new (m, exe);
      s = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
      if (s != HI_OK)
        {
          hi_symbolizer_free (sym);
          return s;
        }
    }
  int json = opt->format == HI_JSON;
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = name;
  r.incomplete = m->damaged != 0;
  for (int i = 0; i < n && s == HI_OK; i++)
    s = tables[which[i]].build (&a, &r);
  if (samples && s == HI_OK)
    s = hi_samples_build (&a, &r);
  if (timeline && s == HI_OK)
    s = hi_timeline_build (&a, &r);
  unsigned nmissing = sym ? hi_symbolizer_missing (sym) : 0;
  /* `stat` alone in text: its key: value lines, for scripts. */
  if (!json && n == 1 && which[0] == HI_TABLE_STAT && r.n_tables == 1)
    r.tables[0].title = NULL;
  else if (s == HI_OK)
    s = hi_summary_build (m, names ? &a : NULL, nmissing, &r);
  r.summary.gdb = opt->gdb;
  if (s == HI_OK)
    s = hi_emit (&r, opt, timeline, out);
  if (missing)
    *missing = nmissing;
  hi_rmodel_free (&r);
  if (names)
    hi_analysis_free (&a);
  hi_symbolizer_free (sym);
  return s;
}
