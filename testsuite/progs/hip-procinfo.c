/* hip-procinfo.c - the reader model's record of the process, for
   procinfo.exp: which command line, pid and times a snapshot, a core or
   a live process yields, as "key: value" lines.

   hip-procinfo snapshot FILE | core FILE | pid PID */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hi-reader.h"
#include "model/model.h"

int
main (int argc, char **argv)
{
  static const char *const sources[] = {
    [HI_READ_NONE] = "none", [HI_READ_SNAPSHOT] = "snapshot",
    [HI_READ_LIVE] = "live", [HI_READ_CORE_FILE] = "core-file" };
  struct hi_target t;
  hi_status s;
  if (argc != 3)
    {
      fprintf (stderr, "usage: hip-procinfo snapshot|core|pid ARG\n");
      return 2;
    }
  if (strcmp (argv[1], "snapshot") == 0)
    s = hi_target_open_snapshot (argv[2], &t);
  else if (strcmp (argv[1], "core") == 0)
    s = hi_target_open_core (argv[2], NULL, &t);
  else
    s = hi_target_open_process (atoi (argv[2]), 1, &t);
  struct hi_model *m = NULL;
  if (s == HI_OK)
    {
      s = hi_model_load (&t, &m);
      hi_status f = hi_target_finish (&t);
      if (s == HI_OK)
        s = f;
      hi_target_close (&t);
    }
  if (s != HI_OK)
    {
      printf ("error: %s\n", hi_strerror (s));
      hi_model_free (m);
      return 1;
    }
  printf ("command: %s\n", m->command ? m->command : "(not recorded)");
  printf ("command_cut: %d\n", m->command_cut);
  printf ("pid: %" PRIu64 "\n", m->root.pid);
  printf ("version: %" PRIu32 "\n", m->root.version);
  printf ("start_realtime_ns: %" PRIu64 "\n", m->start_realtime_ns);
  printf ("read_source: %s\n", sources[m->read_source]);
  printf ("read_ns: %" PRIu64 "\n", m->read_ns);
  printf ("run_ns: %" PRIu64 "\n", m->run_ns);
  printf ("damaged: %" PRIu64 "\n", m->damaged);
  hi_model_free (m);
  return 0;
}
