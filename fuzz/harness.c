/* harness.c - the body shared by the reader's fuzz targets: from an opened
   target to every output the reader can produce. */
#define _GNU_SOURCE
#include "harness.h"

#include "tables/tables.h"
#include "reach/reach.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int
hi_fuzz_file (const uint8_t *data, size_t size, char *path)
{
  int fd = memfd_create ("hi-fuzz", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  for (size_t at = 0; at < size;)
    {
      ssize_t n = write (fd, data + at, size - at);
      if (n <= 0)
        {
          close (fd);
          return -1;
        }
      at += (size_t) n;
    }
  snprintf (path, 64, "/proc/self/fd/%d", fd);
  return fd;
}

FILE *
hi_fuzz_sink (void)
{
  static FILE *f;
  if (!f)
    f = fopen ("/dev/null", "w");
  if (!f)
    abort ();
  return f;
}

static void
lookup (const struct hi_target *t, const struct hi_model *m,
        struct hi_analysis *a, uint64_t addr)
{
  struct hi_block_info i;
  struct hi_rmodel r;
  hi_block_classify (t, m, addr, &i);
  hi_rmodel_init (&r);
  if (hi_block_table (a, &i, &r) == HI_OK)
    {
      struct hi_emit_options eo = { 0, 1, HI_WEIGHT_INUSE_SPACE, NULL, 0 };
      hi_emit_text (&r, &eo, hi_fuzz_sink ());
      hi_emit_json (&r, &eo, hi_fuzz_sink ());
    }
  hi_rmodel_free (&r);
}

/* Blocks at the edges of each arena and region: headers of ours, the
   monitor's own blocks, and plain data. */
static void
blocks (const struct hi_target *t, const struct hi_model *m)
{
  static const struct hi_options opt = {
    .depth = 5, .offsets = 1, .verbosity = HI_NORMAL, .format = HI_TEXT,
    .threshold = -1, .lines = 1, .default_suppressions = 1
  };
  struct hi_symbolizer *sym = hi_symbolizer_new (m, NULL);
  struct hi_analysis a;
  if (!sym || hi_analysis_init (&a, m, sym, &opt) != HI_OK)
    {
      hi_symbolizer_free (sym);
      return;
    }
  for (uint32_t i = 0; i < m->root.n_arenas && i < HI_MAX_ARENAS; i++)
    {
      uint64_t at = m->root.arenas[i].addr;
      lookup (t, m, &a, at);
      lookup (t, m, &a, at + 40);
    }
  /* The addresses the heap errors and the quarantine name (format 5). */
  for (uint64_t i = 0; i < m->n_errors && i < 8; i++)
    {
      lookup (t, m, &a, m->errors[i].addr);
      lookup (t, m, &a, m->errors[i].block + m->errors[i].block_size + 2);
    }
  for (uint64_t i = 0; i < m->n_quarantine && i < 8; i++)
    lookup (t, m, &a, m->quarantine[i].user + 1);
  uint64_t base, size;
  for (size_t i = 0; i < 4 && t->ops->region
       && t->ops->region (t->ctx, i, &base, &size) == 0; i++)
    {
      lookup (t, m, &a, base + 16);
      lookup (t, m, &a, base + size / 2);
      lookup (t, m, &a, base + size - 1);
    }
  hi_analysis_free (&a);
  hi_symbolizer_free (sym);
}

void
hi_fuzz_target (struct hi_target *t)
{
  static const struct hi_options opts[] = {
    { .depth = 5, .verbosity = HI_NORMAL, .format = HI_TEXT,
      .threshold = -1, .lines = 1, .default_suppressions = 1 },
    { .depth = 1, .offsets = 1, .verbosity = HI_VERBOSE, .format = HI_JSON },
    { .depth = 10000, .verbosity = HI_TERSE, .format = HI_TEXT,
      .threshold = -1, .lines = 1, .default_suppressions = 1 },
    { .depth = 3, .offsets = 1, .verbosity = HI_VERBOSE, .format = HI_TEXT,
      .threshold = -1, .lines = 1, .default_suppressions = 1 },
    { .depth = 5, .format = HI_TEXT, .threshold = 0, .limit = 2,
      .exact_bytes = 1, .long_names = 1 },
  };
  struct hi_model *m = NULL;
  if (hi_model_load (t, &m) == HI_OK)
    {
      /* Damage is counted once per thing damaged: never "2 of 1 sites". */
      if (m->damage.sites > (m->n_sites ? m->n_sites - 1 : 0)
          || m->damage.nodes > (m->n_nodes > 2 ? m->n_nodes - 2 : 0)
          || m->damage.threads > m->n_threads)
        abort ();
      /* No module: the symbolizer must not open the files the input
         names (the fuzzer would read the machine's libraries). */
      m->n_modules = 0;
      for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        hi_report (m, NULL, "fuzz", "leaks,bins,direct,graph,stat,errors",
                   &opts[i], hi_fuzz_sink (), NULL);
      hi_report (m, NULL, "fuzz", "stat", &opts[0], hi_fuzz_sink (), NULL);
      blocks (t, m);
      /* The reachability scan reads the whole input as memory. */
      hi_reach_report (t, m, NULL, "fuzz", &opts[0], hi_fuzz_sink (), NULL,
                       NULL);
      hi_reach_report (t, m, NULL, "fuzz", &opts[1], hi_fuzz_sink (), NULL,
                       NULL);
      hi_model_free (m);
    }
  hi_target_finish (t);
  hi_target_close (t);
}
