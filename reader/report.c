/* report.c - the tables a user asked for, printed in order: the one
   entry point heapinspect(1) and the gdb plugin share. */
#define _GNU_SOURCE
#include "analysis.h"

#include <string.h>

static const struct
{
  const char *name;
  hi_status (*print) (struct hi_analysis *, FILE *);
} tables[] = {
  { "leaks", hi_table_leaks }, { "bins", hi_table_bins },
  { "direct", hi_table_direct }, { "graph", hi_table_graph },
  { "stat", hi_table_stat },
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
  /* Only `stat` needs no names: no symbolizer, no chains for it. */
  int names = 0;
  for (int i = 0; i < n; i++)
    names |= which[i] != (int) NTABLES - 1;
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
  if (json)
    {
      fputs ("{\"source\": ", out);
      hi_json_string (out, name);
      fprintf (out, ", \"incomplete\": %s", m->damaged ? "true" : "false");
    }
  for (int i = 0; i < n && s == HI_OK; i++)
    {
      if (json)
        fputs (",\n", out);
      else if (n == 1 && which[0] == (int) NTABLES - 1)
        {
          /* `stat` alone: bare key: value lines, for scripts. */
          struct hi_stat st;
          hi_stat_compute (m, &st);
          hi_stat_print (&st, out);
          break;
        }
      else if (i > 0)
        fputc ('\n', out);
      s = tables[which[i]].print (&a, out);
    }
  if (json && s == HI_OK)
    fputs ("\n}\n", out);
  if (missing)
    *missing = sym ? hi_symbolizer_missing (sym) : 0;
  if (names)
    hi_analysis_free (&a);
  hi_symbolizer_free (sym);
  return s;
}
