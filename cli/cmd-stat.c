/* cmd-stat.c - `heapinspect stat FILE`: totals, one key: value per line. */
#include "cli.h"

#include <stdio.h>

int
hi_cmd_stat (int argc, char **argv)
{
  if (argc != 2)
    {
      fputs ("usage: heapinspect stat FILE.hip\n", stderr);
      return 2;
    }
  struct hi_model *m = hi_cli_load (argv[1]);
  if (!m)
    return 1;
  struct hi_stat s;
  hi_stat_compute (m, &s);
  hi_stat_print (&s, stdout);
  int incomplete = m->damaged != 0;
  hi_model_free (m);
  return incomplete || fflush (stdout) != 0 ? 1 : 0;
}
