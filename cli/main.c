/* main.c - heapinspect(1): argument dispatch to subcommands. */
#include "config.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

void
hi_cli_error (const char *source, const char *message)
{
  fprintf (stderr, "heapinspect: %s: %s\n", source, message);
}

struct hi_model *
hi_cli_load (const char *source)
{
  struct hi_target t;
  struct hi_model *m = NULL;
  hi_status s = hi_target_open_snapshot (source, &t);
  if (s == HI_OK)
    {
      s = hi_model_load (&t, &m);
      hi_target_close (&t);
    }
  if (s != HI_OK)
    {
      hi_cli_error (source, hi_strerror (s));
      return NULL;
    }
  if (m->damaged)
    fprintf (stderr, "heapinspect: %s: incomplete report: %llu damaged "
             "entries were left out\n", source,
             (unsigned long long) m->damaged);
  return m;
}

static int
usage (FILE *f, int status)
{
  fputs ("usage: heapinspect stat FILE.hip\n"
         "       heapinspect modules FILE.hip\n"
         "       heapinspect --help | --version\n"
         "Print what the heapinspect monitor recorded in a snapshot file.\n"
         "See heapinspect(1) and libheapinspect(7).\n", f);
  return status;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    return usage (stderr, 2);
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    return usage (stdout, 0);
  if (strcmp (argv[1], "--version") == 0)
    {
      puts (PACKAGE_STRING);
      return 0;
    }
  if (strcmp (argv[1], "stat") == 0)
    return hi_cmd_stat (argc - 1, argv + 1);
  if (strcmp (argv[1], "modules") == 0)
    return hi_cmd_modules (argc - 1, argv + 1);
  fprintf (stderr, "heapinspect: unknown command '%s'\n", argv[1]);
  return usage (stderr, 2);
}
