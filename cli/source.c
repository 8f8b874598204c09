/* source.c - opening what the user named (snapshot, core, process, raw
   dump) as a target, loading the model, and printing the tables. */
#define _GNU_SOURCE
#include "cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
hi_cli_error (const char *source, const char *message)
{
  fprintf (stderr, "heapinspect: %s: %s\n", source, message);
}

/* What kind of file PATH is, from its first bytes. */
static hi_status
open_file (const struct hi_source *src, struct hi_target *t)
{
  unsigned char head[8] = { 0 };
  int fd = open (src->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return HI_E_IO;
  ssize_t n = read (fd, head, sizeof head);
  close (fd);
  uint64_t magic;
  memcpy (&magic, head, sizeof magic);
  if (n == (ssize_t) sizeof head && magic == HI_SNAP_MAGIC)
    return hi_target_open_snapshot (src->path, t);
  if (n >= 4 && memcmp (head, "\177ELF", 4) == 0)
    return hi_target_open_core (src->path, src->exe, t);
  return HI_E_NOT_SNAPSHOT;
}

struct hi_model *
hi_cli_load (const struct hi_source *src)
{
  struct hi_target t;
  struct hi_model *m = NULL;
  hi_status s;
  if (src->pid)
    s = hi_target_open_process ((int) src->pid, !src->no_stop, &t);
  else if (src->raw)
    s = hi_target_open_raw (src->raw_path, src->raw_base, (size_t) src->raw,
                            src->exe, &t);
  else
    s = open_file (src, &t);
  if (s == HI_OK)
    {
      s = hi_model_load (&t, &m);
      hi_status after = hi_target_finish (&t);
      if (s == HI_OK && after != HI_OK)
        fprintf (stderr, "heapinspect: %s: %s\n", src->name,
                 hi_strerror (after));
      hi_target_close (&t);
    }
  if (s != HI_OK)
    {
      hi_cli_error (src->name, hi_strerror (s));
      return NULL;
    }
  if (m->damaged)
    fprintf (stderr, "heapinspect: %s: incomplete report: %llu damaged "
             "entries were left out\n", src->name,
             (unsigned long long) m->damaged);
  return m;
}

static const struct
{
  const char *name;
  void (*print) (struct hi_analysis *, FILE *);
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
hi_cli_tables_valid (const char *list)
{
  int which[16];
  return parse_tables (list, which) > 0;
}

int
hi_cli_report (const struct hi_source *src, struct hi_model *m,
               const char *list, const struct hi_options *opt)
{
  int which[16];
  int n = parse_tables (list, which);
  if (n <= 0)
    {
      fprintf (stderr, "heapinspect: -t takes a list of: leaks, bins, "
               "direct, graph, stat\n");
      return 2;
    }
  struct hi_symbolizer *sym = hi_symbolizer_new (m, src->exe);
  struct hi_analysis a;
  hi_status s = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
  if (s != HI_OK)
    {
      hi_cli_error (src->name, hi_strerror (s));
      hi_symbolizer_free (sym);
      return 1;
    }
  int json = opt->format == HI_JSON;
  if (json)
    {
      fputs ("{\"source\": ", stdout);
      hi_json_string (stdout, src->name);
      fprintf (stdout, ", \"incomplete\": %s", m->damaged ? "true" : "false");
    }
  for (int i = 0; i < n; i++)
    {
      if (json)
        fputs (",\n", stdout);
      else if (n == 1 && which[0] == (int) NTABLES - 1)
        {
          /* `stat` alone: bare key: value lines, for scripts. */
          struct hi_stat st;
          hi_stat_compute (m, &st);
          hi_stat_print (&st, stdout);
          break;
        }
      else if (i > 0)
        fputc ('\n', stdout);
      tables[which[i]].print (&a, stdout);
    }
  if (json)
    fputs ("\n}\n", stdout);
  if (hi_symbolizer_missing (sym) && !json)
    fprintf (stderr, "heapinspect: %s: %u modules could not be read or have "
             "changed since the run; their code is shown as module+offset\n",
             src->name, hi_symbolizer_missing (sym));
  hi_analysis_free (&a);
  hi_symbolizer_free (sym);
  return fflush (stdout) != 0 || m->damaged ? 1 : 0;
}
