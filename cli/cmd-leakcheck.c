/* cmd-leakcheck.c - `heapinspect --leak-check SOURCE`: which live blocks
   are lost, as valgrind memcheck's leak check says it. */
#define _GNU_SOURCE
#include "commands.h"

#include <stdio.h>

/* No word: ARGV starts at the source. */
int
hi_parse_leak_check (int argc, char **argv, struct hi_settings *st)
{
  int r = hi_source_operands (argc, argv, NULL, st);
  return r >= 0 ? r : hi_check_own_report (st, "--leak-check");
}

/* The reachability scan's report of a core, a live process or a raw
   dump; a snapshot file has no memory to scan (said, status 1). */
int
hi_cmd_leak_check (const struct hi_settings *st, int *written)
{
  const struct hi_source *src = &st->src;
  const struct hi_options *opt = &st->opt;
  struct hi_target t;
  *written = 0;
  int no_data;
  struct hi_model *m = hi_cli_load_open_or_none (src, &t, &no_data);
  if (!m && no_data)
    /* A program the monitor never ran in: glibc's in-use chunks. */
    return hi_cli_glibc (src, opt, HI_VIEW_LEAKS, 0, written);
  if (!m)
    return 1;
  unsigned missing = 0;
  /* A live process is scanned while it is still stopped. */
  hi_status s = hi_reach_report (&t, m, src->exe, src->name, opt, stdout,
                                 NULL, &missing);
  hi_status after = hi_target_finish (&t);
  int status = 0;
  if (s == HI_OK)
    {
      *written = 1;
      if (after != HI_OK)
        hi_cli_error (src->name, hi_strerror (after));
      if (missing && opt->format != HI_JSON)
        hi_cli_module_problems (src, m);
      status = hi_model_damaged (m) ? 1 : 0;
    }
  else
    {
      if (!(s == HI_E_WRITE && ferror (stdout)))
        hi_cli_error (src->name, hi_strerror (s));
      status = 1;
    }
  hi_target_close (&t);
  hi_model_free (m);
  return status;
}
