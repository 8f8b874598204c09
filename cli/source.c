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
hi_cli_load (const struct hi_source *src, struct hi_target *keep)
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
      if (s == HI_OK && keep)
        *keep = t;
      else
        hi_target_close (&t);
    }
  if (s != HI_OK)
    {
      hi_cli_error (src->name, hi_strerror (s));
      return NULL;
    }
  if (m->damaged)
    {
      char what[256];
      hi_model_damage_text (m, what, sizeof what);
      fprintf (stderr, "heapinspect: %s: incomplete report: %s\n",
               src->name, what);
    }
  return m;
}


int
hi_cli_report (const struct hi_source *src, struct hi_model *m,
               const char *tables, const struct hi_options *opt)
{
  unsigned missing = 0;
  hi_status s = hi_report (m, src->exe, src->name, tables, opt, stdout,
                           &missing);
  if (s != HI_OK)
    {
      hi_cli_error (src->name, hi_strerror (s));
      return 1;
    }
  if (missing && opt->format != HI_JSON)
    fprintf (stderr, "heapinspect: %s: %u modules could not be read or have "
             "changed since the run; their code is shown as module+offset\n",
             src->name, missing);
  return fflush (stdout) != 0 || m->damaged ? 1 : 0;
}

int
hi_cmd_block (const struct hi_source *src, uint64_t addr,
              const struct hi_options *opt)
{
  struct hi_target t;
  struct hi_model *m = hi_cli_load (src, &t);
  if (!m)
    return 1;
  struct hi_symbolizer *sym = hi_symbolizer_new (m, src->exe);
  struct hi_analysis a;
  hi_status s = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
  int status = 1;
  if (s == HI_OK)
    {
      struct hi_block b;
      int found = hi_block_find (&t, m, addr, &b) == HI_OK;
      hi_block_print (&a, addr, found ? &b : NULL, stdout);
      status = found ? 0 : 1;
      hi_analysis_free (&a);
    }
  else
    hi_cli_error (src->name, hi_strerror (s));
  hi_symbolizer_free (sym);
  hi_target_close (&t);
  hi_model_free (m);
  return status;
}
