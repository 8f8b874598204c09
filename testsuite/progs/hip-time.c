/* hip-time.c - the reader model's time data (format 4), for time.exp:
   what a snapshot, a core or a live process yields, as "key: value"
   lines.

   hip-time snapshot FILE | core FILE | pid PID

   The root's time fields, then per chain with anything to show (by the
   name of its innermost function the program gave it, else its site
   id):
     chain NAME: peak_bytes B peak_blocks N temporaries T
     life NAME: freed F live L buckets K:COUNT ...   (with lifetimes)
   and the timeline:
     points: N  detailed: D
     point I: TIME_NS CLOCK LIVE_BYTES LIVE_BLOCKS
     detail I: TIME_NS CLOCK LIVE_BYTES CHAINS TOP_BYTES */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"

/* NAME of the function that called the allocator in site S's chain
   (the innermost frame), or "site-S". */
static void
chain_name (struct hi_analysis *a, uint32_t s, char *out, size_t size)
{
  char path[8192];
  hi_site_path (a, s, path, sizeof path);
  /* The path is outermost first, " < "-separated or similar: take the
     last function name in it. */
  const char *p = path, *last = path;
  for (const char *q = path; *q; q++)
    if (q[0] == ' ' && (q[1] == '<' || q[1] == '>' || q[1] == '|')
        && q[2] == ' ')
      last = q + 3;
  (void) p;
  size_t n = strlen (last);
  if (n >= size)
    n = size - 1;
  memcpy (out, last, n);
  out[n] = '\0';
  for (char *c = out; *c; c++)
    if (*c == ' ' || *c == '\t')
      {
        *c = '\0';
        break;
      }
  if (!*out)
    snprintf (out, size, "site-%u", s);
}

int
main (int argc, char **argv)
{
  struct hi_target t;
  hi_status s;
  if (argc != 3 && argc != 4)
    {
      fprintf (stderr, "usage: hip-time snapshot|core|pid ARG [EXE]\n");
      return 2;
    }
  if (strcmp (argv[1], "snapshot") == 0)
    s = hi_target_open_snapshot (argv[2], &t);
  else if (strcmp (argv[1], "core") == 0)
    s = hi_target_open_core (argv[2], argc == 4 ? argv[3] : NULL, &t);
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
  const struct hi_root *r = &m->root;
  printf ("version: %" PRIu32 "\n", r->version);
  printf ("has_time: %d\n", m->has_time);
  printf ("lifetimes: %d\n", m->lifetimes);
  printf ("damaged: %" PRIu64 "\n", m->damaged);
  printf ("live_bytes: %" PRIu64 "\n", r->totals.live_bytes);
  printf ("live_blocks: %" PRIu64 "\n", r->totals.live_blocks);
  printf ("peak_bytes: %" PRIu64 "\n", r->totals.peak_bytes);
  printf ("peak_blocks: %" PRIu64 "\n", r->totals.peak_blocks);
  printf ("alloc_clock: %" PRIu64 "\n", r->alloc_clock);
  printf ("peak_gen: %" PRIu64 "\n", r->peak_gen);
  printf ("peak_clock: %" PRIu64 "\n", r->peak_clock);
  printf ("time_flags: %" PRIu32 "\n", r->time_flags);
  printf ("birth_size: %" PRIu32 "\n", r->birth_size);
  printf ("peak_is_live: %d\n", m->peak_is_live);
  printf ("run_ns: %" PRIu64 "\n", m->run_ns);
  if (!m->has_time)
    {
      hi_model_free (m);
      return 0;
    }

  struct hi_symbolizer *sym = hi_symbolizer_new (m, NULL);
  struct hi_options opt;
  memset (&opt, 0, sizeof opt);
  opt.depth = 1;
  struct hi_analysis a;
  if (!sym || hi_analysis_init (&a, m, sym, &opt) != HI_OK)
    {
      printf ("error: cannot symbolize\n");
      return 1;
    }
  /* Chains summed by name: a function that allocates from several
     lines has several chains. */
  struct named
  {
    char name[256];
    struct hi_chain_time t;
  } *byname = calloc (m->n_sites + 1, sizeof *byname);
  uint64_t n_named = 0;
  uint64_t sum_bytes = 0, sum_blocks = 0, sum_temp = 0;
  for (uint64_t i = 0; byname && i < m->n_sites; i++)
    {
      const struct hi_chain_time *c = &m->chain_time[i];
      sum_bytes += c->peak_bytes;
      sum_blocks += c->peak_blocks;
      sum_temp += c->temporaries;
      uint64_t allocs = 0;
      for (int k = 0; k < HI_NSIZE_CLASSES; k++)
        allocs += m->sites[i].allocs[k];
      if (!allocs && !c->peak_bytes && !c->temporaries)
        continue;
      char name[256];
      chain_name (&a, (uint32_t) i, name, sizeof name);
      uint64_t j = 0;
      while (j < n_named && strcmp (byname[j].name, name) != 0)
        j++;
      if (j == n_named)
        memcpy (byname[n_named++].name, name, sizeof name);
      struct hi_chain_time *o = &byname[j].t;
      o->peak_bytes += c->peak_bytes;
      o->peak_blocks += c->peak_blocks;
      o->temporaries += c->temporaries;
      for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
        o->life[k] += c->life[k];
      o->freed += c->freed;
      o->freed_ns += c->freed_ns;
      o->live += c->live;
      o->live_clock_sum += c->live_clock_sum;
    }
  for (uint64_t j = 0; j < n_named; j++)
    {
      const struct hi_chain_time *c = &byname[j].t;
      const char *name = byname[j].name;
      printf ("chain %s: peak_bytes %" PRIu64 " peak_blocks %" PRIu64
              " temporaries %" PRIu64 "\n", name, c->peak_bytes,
              c->peak_blocks, c->temporaries);
      if (m->lifetimes)
        {
          printf ("life %s: freed %" PRIu64 " live %" PRIu64 " buckets",
                  name, c->freed, c->live);
          for (unsigned k = 0; k < HI_LIFE_BUCKETS; k++)
            if (c->life[k])
              printf (" %u:%" PRIu64, k, c->life[k]);
          printf ("\n");
          printf ("life_sums %s: freed_ns %" PRIu64 " live_clock_sum %"
                  PRIu64 "\n", name, c->freed_ns, c->live_clock_sum);
        }
    }
  free (byname);
  printf ("chains_peak_bytes: %" PRIu64 "\n", sum_bytes);
  printf ("chains_peak_blocks: %" PRIu64 "\n", sum_blocks);
  printf ("chains_temporaries: %" PRIu64 "\n", sum_temp);
  printf ("points: %" PRIu64 "\n", m->n_points);
  printf ("detailed: %" PRIu64 "\n", m->n_detailed);
  printf ("peak_time_ns: %" PRIu64 "\n", m->peak_time_ns);
  for (uint64_t i = 0; i < m->n_points; i++)
    {
      const struct hi_tpoint *p = &m->points[i];
      printf ("point %" PRIu64 ": %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
              PRIu64 "\n", i, p->time_ns, p->clock, p->live_bytes,
              p->live_blocks);
    }
  for (uint64_t i = 0; i < m->n_detailed; i++)
    {
      const struct hi_tdetail *d = &m->detailed[i];
      uint64_t top = 0;
      for (uint32_t k = 0; k < d->n_chains; k++)
        top += d->chains[k].live_bytes;
      printf ("detail %" PRIu64 ": %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
              PRIu32 " %" PRIu64 "\n", i, d->at.time_ns, d->at.clock,
              d->at.live_bytes, d->n_chains, top);
    }
  hi_analysis_free (&a);
  hi_symbolizer_free (sym);
  hi_model_free (m);
  return 0;
}
