/* cmd-report.c - the report of one source: its tables (the default
   command, stat, peak, timeline) or its chains as a flame graph. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

/* No word: ARGV starts at the source. */
int
hi_parse_report (int argc, char **argv, struct hi_settings *st)
{
  return hi_source_operands (argc, argv, NULL, st);
}

/* The report as an SVG flame graph; --format may only agree. */
int
hi_parse_flamegraph (int argc, char **argv, struct hi_settings *st)
{
  if (st->opt.format != HI_TEXT && st->opt.format != HI_SVG)
    return hi_usage_line ("flamegraph writes an SVG: --format does not go "
                          "with it");
  st->opt.format = HI_SVG;
  /* The flame graph, whatever -t says (an SVG of -t timeline alone
     would be the timeline). */
  st->tables = HI_OPT_TABLES_DEFAULT;
  return hi_source_operands (argc - 1, argv + 1, argv[0], st);
}

/* stat and the time tables have commands of their own, named as the
   table. */
int
hi_parse_table (int argc, char **argv, struct hi_settings *st)
{
  st->tables = argv[0];
  return hi_source_operands (argc - 1, argv + 1, argv[0], st);
}

/* The peak as collapsed stacks or a flame graph is the chains' bytes at
   the peak, unless --weight says otherwise. */
int
hi_parse_peak (int argc, char **argv, struct hi_settings *st)
{
  if (!st->weight_given)
    st->opt.weight = HI_WEIGHT_PEAK_SPACE;
  return hi_parse_table (argc, argv, st);
}

int
hi_cmd_report (const struct hi_settings *st, int *written)
{
  int no_data;
  struct hi_model *m = hi_cli_load_or_none (&st->src, NULL, &no_data);
  int status = 1;
  if (m)
    status = hi_cli_report (&st->src, m, st->tables, &st->opt, written);
  else if (no_data && (strcmp (st->tables, HI_OPT_TABLES_DEFAULT) == 0
                       || strcmp (st->tables, "stat") == 0))
    /* A program the monitor never ran in: glibc's heap still answers. */
    status = hi_cli_glibc (&st->src, &st->opt, HI_VIEW_STAT, 0, written);
  else if (no_data && strcmp (st->tables, "bins") == 0)
    status = hi_cli_glibc (&st->src, &st->opt, HI_VIEW_BINS, 0, written);
  else if (no_data)
    {
      fprintf (stderr, "heapinspect: %s: no heapinspect data: these tables "
               "need the monitor (run the program with "
               "LD_PRELOAD=.../libheapinspect.so); `heapinspect stat %s` "
               "shows glibc's heap\n", st->src.name, st->src.name);
    }
  hi_model_free (m);
  return status;
}

/* verify: glibc's heap, checked; monitor or not. */
int
hi_cmd_verify (const struct hi_settings *st, int *written)
{
  return hi_cli_glibc (&st->src, &st->opt, HI_VIEW_VERIFY, 0, written);
}
