/* serve-metrics-tool.c - the /metrics page of `heapinspect serve`
   (cli/serve-metrics.c) without the server: the processes PID... as
   serve-procs.c would give them (comm and exe from /proc), the reply's
   body on standard output.  -t first: its status and Content-Type line
   before it.  -r N first: N scrapes, each one's wall seconds on a line of
   standard error, the last one's body on standard output.  For heapinspect.serve/metrics.exp and bench/serve. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/serve-pages.h"

static void
fill (pid_t pid, struct serve_proc *p)
{
  char path[64];
  memset (p, 0, sizeof *p);
  p->pid = pid;
  snprintf (path, sizeof path, "/proc/%ld/comm", (long) pid);
  FILE *f = fopen (path, "r");
  if (f)
    {
      size_t n = fread (p->comm, 1, sizeof p->comm - 1, f);
      p->comm[n] = '\0';
      if (n > 0 && p->comm[n - 1] == '\n')
        p->comm[n - 1] = '\0';
      fclose (f);
    }
  snprintf (path, sizeof path, "/proc/%ld/exe", (long) pid);
  ssize_t n = readlink (path, p->exe, sizeof p->exe - 1);
  p->exe[n > 0 ? n : 0] = '\0';
}

int
main (int argc, char **argv)
{
  int rounds = 1;
  if (argc > 2 && strcmp (argv[1], "-r") == 0)
    {
      rounds = atoi (argv[2]);
      argc -= 2;
      argv += 2;
    }
  int head = argc > 1 && strcmp (argv[1], "-t") == 0;
  size_t n = (size_t) (argc - 1 - head);
  struct serve_proc *procs = calloc (n ? n : 1, sizeof *procs);
  if (!procs)
    return 1;
  for (size_t i = 0; i < n; i++)
    fill ((pid_t) atol (argv[1 + head + i]), &procs[i]);
  struct serve_reply r = { 0, NULL, NULL, NULL, 0 };
  for (int k = 0; k < rounds; k++)
    {
      struct timespec a, b;
      free (r.body);
      clock_gettime (CLOCK_MONOTONIC, &a);
      serve_page_metrics (procs, n, &r);
      clock_gettime (CLOCK_MONOTONIC, &b);
      if (rounds > 1)
        fprintf (stderr, "%.6f\n", (double) (b.tv_sec - a.tv_sec)
                 + (double) (b.tv_nsec - a.tv_nsec) / 1e9);
    }
  if (head)
    printf ("%d %s\n", r.status, r.content_type);
  fwrite (r.body, 1, r.len, stdout);
  free (r.body);
  free (procs);
  return r.status == 200 ? 0 : 1;
}
