/* commands.c - each heap command run on the inferior through the
   reader's public API, its report or one line saying why not written to
   the answer. */
#define _GNU_SOURCE
#include "plugin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* heap export: the report of M in R's format into R's file, whole or
   not at all (an existing file is left as it was when anything fails);
   one line on OUT says where it went, or why not. */
static hi_status
export (const struct hi_model *m, const struct hi_gdb_request *r, FILE *out)
{
  struct hi_outfile o;
  char shown[300];
  hi_escape (r->file, shown, sizeof shown);
  hi_status s = hi_outfile_open (&o, r->file);
  if (s == HI_OK)
    {
      s = hi_report (m, NULL, "inferior", r->tables, &r->opt, o.f, NULL);
      if (s == HI_OK)
        {
          struct stat st;
          int sized = fflush (o.f) == 0 && fstat (o.fd, &st) == 0
                      && S_ISREG (st.st_mode);
          s = hi_outfile_commit (&o);
          if (s == HI_OK && sized)
            fprintf (out, "heap: wrote %s (%lld bytes)\n", shown,
                     (long long) st.st_size);
          else if (s == HI_OK)
            fprintf (out, "heap: wrote %s\n", shown);
        }
      else
        hi_outfile_abort (&o);
    }
  if (s != HI_OK)
    fprintf (out, "heap: %s: %s\n", shown, hi_strerror (s));
  return s;
}

/* heap diff's OLD: the model of snapshot file PATH (named as the user
   named it, from gdb's working directory), or NULL with one line on OUT
   saying why not.  A note on OUT when it is incomplete. */
static struct hi_model *
load_snapshot (const char *path, FILE *out)
{
  char shown[300], why[600];
  struct hi_target t;
  struct hi_model *m = NULL;
  hi_escape (path, shown, sizeof shown);
  unsigned kind;
  hi_status s = hi_target_open_file (path, NULL, HI_FILE_SNAPSHOT, &t, &kind);
  if (s == HI_OK)
    {
      s = hi_model_load (&t, &m);
      /* The message before the close, which may fail on its own. */
      snprintf (why, sizeof why, "%s", hi_strerror (s));
      hi_target_close (&t);
    }
  else
    snprintf (why, sizeof why, "%s", hi_strerror (s));
  if (s == HI_E_NOT_SNAPSHOT)
    {
      /* A core is the likeliest mistake (heapinspect diff takes one):
         say that it is no snapshot either. */
      int elf = kind == HI_FILE_ELF;
      fprintf (out, "heap: %s: %s: heap diff compares a snapshot (.hip) "
               "with the inferior\n", shown,
               elf ? "an ELF file (a core or a program), not a heapinspect "
                     "snapshot" : hi_strerror (s));
      return NULL;
    }
  if (s != HI_OK)
    {
      fprintf (out, "heap: %s: %s\n", shown, why);
      hi_model_free (m);
      return NULL;
    }
  if (hi_model_damaged (m))
    {
      char damage[512];
      hi_model_damage_text (m, damage, sizeof damage);
      fprintf (out, "heap: %s: incomplete report: %s\n", shown, damage);
    }
  return m;
}

/* heap lost: say which threads' registers gdb could not give (running
   threads, in non-stop mode): their registers are no roots. */
static void
skipped_threads (const struct hi_gdb_request *r, FILE *out)
{
  char list[256] = "";
  size_t len = 0, skipped = 0;
  for (size_t i = 0; i < r->n_threads; i++)
    {
      int have = 0;
      for (size_t k = 0; k < r->n_regs && !have; k++)
        have = r->regs[k].tid == r->threads[i];
      if (have)
        continue;
      if (len < sizeof list)
        len += (size_t) snprintf (list + len, sizeof list - len, "%s%" PRIu64,
                                  skipped ? ", " : "", r->threads[i]);
      skipped++;
    }
  if (skipped)
    fprintf (out, "heap: the registers of thread%s %s%s (gdb's numbers) "
             "could not be read, running: the scan has no roots in them\n",
             skipped > 1 ? "s" : "", list, len >= sizeof list ? "..." : "");
}

/* heap lost: the --leak-check report of the inferior L (model M). */
static hi_status
lost (struct hi_gdb_mapped *l, const struct hi_model *m,
      const struct hi_gdb_request *r, FILE *out)
{
  if (getenv ("HEAPINSPECT_GDB_DEBUG"))
    {
      uint64_t rt, mono;
      fprintf (out, "heap: debug: %zu threads' registers; memory map: %s\n",
               r->n_regs, l->have_side
               ? hi_target_process_time (&l->side, &rt, &mono) == 0
                 ? "the process" : "the core file"
               : l->n_map ? "gdb's" : "none");
    }
  skipped_threads (r, out);
  struct hi_target lt;
  hi_gdb_mapped_lost (l, r->regs, r->n_regs, &lt);
  unsigned missing = 0;
  hi_status s = hi_reach_report (&lt, m, NULL, "inferior", &r->opt, out,
                                 NULL, &missing);
  if (s == HI_E_NO_MEMORY)
    fprintf (out, "heap: lost needs the inferior's memory map, and it is "
             "not known here: %s\n", l->have_side
             ? "it cannot be read"
             : "gdb gave none (info proc mappings), and neither a core file "
               "gdb reads nor a process on this machine holds this "
               "inferior");
  else if (s != HI_OK)
    fprintf (out, "heap: %s\n", hi_strerror (s));
  return s;
}

/* heap ref: what holds the block at R's address, in the inferior L
   (model M), as heapinspect ref prints it. */
static hi_status
ref (struct hi_gdb_mapped *l, const struct hi_model *m,
     const struct hi_gdb_request *r, FILE *out)
{
  skipped_threads (r, out);
  struct hi_target lt;
  const char *why = NULL;
  hi_gdb_mapped_lost (l, r->regs, r->n_regs, &lt);
  hi_status s = hi_ref_report (&lt, m, NULL, "inferior", r->addr, &r->opt,
                               out, &why);
  if (s == HI_E_NO_MEMORY)
    fprintf (out, "heap: ref needs the inferior's memory map, and it is "
             "not known here: gdb gave none (info proc mappings)\n");
  else if (s != HI_OK && s != HI_E_NOT_BLOCK)
    fprintf (out, "heap: %s\n", hi_strerror (s));
  return s;
}

/* Request R on the inferior L (model M; OLD: heap diff's snapshot),
   printed to OUT.  0, or -1 if it failed. */
static int
answer (struct hi_gdb_mapped *l, const struct hi_model *m,
        const struct hi_model *old, const struct hi_gdb_request *r,
        FILE *out)
{
  hi_status s = HI_OK;
  if (r->lost)
    return lost (l, m, r, out) == HI_OK ? 0 : -1;
  if (r->ref)
    {
      s = ref (l, m, r, out);
      return s == HI_OK || s == HI_E_NOT_BLOCK ? 0 : -1;
    }
  if (r->have_addr)
    {
      /* With a memory map, stacks and unmapped addresses are named as
         heapinspect block names them on the same core. */
      struct hi_target bt;
      hi_gdb_mapped_block (l, &bt);
      s = hi_block_report (&bt, m, NULL, r->addr, &r->opt, out);
    }
  else if (r->export)
    s = export (m, r, out);
  else if (r->diff)
    s = hi_diff_report (old, NULL, r->file, m, NULL, "inferior", &r->opt,
                        out);
  else
    s = hi_report (m, NULL, "inferior", r->tables, &r->opt, out, NULL);
  /* The request refused the formats diff cannot write; should it refuse
     more, not "unknown table". */
  if (s == HI_E_USAGE && r->diff)
    fprintf (out, "heap: diff cannot write this format\n");
  else if (s != HI_OK && s != HI_E_NOT_BLOCK && !r->export)
    fprintf (out, "heap: %s\n", hi_strerror (s));
  return s == HI_OK || s == HI_E_NOT_BLOCK ? 0 : -1;
}

int
hi_gdb_run (struct hi_gdb_inferior *g, const struct hi_gdb_request *r,
            FILE *out)
{
  if (r->error[0])
    {
      fprintf (out, "%s\n", r->error);
      return -1;
    }
  /* heap diff's snapshot first: a wrong file is said before the inferior
     is read. */
  struct hi_model *old = NULL;
  if (r->diff && !(old = load_snapshot (r->file, out)))
    return -1;
  size_t maps_len;
  char *maps = hi_gdb_channel_maps (&maps_len);
  struct hi_target direct, t;
  hi_gdb_target (g, &direct);
  struct hi_gdb_cache *cache = hi_gdb_cache_open (&direct, g->root, &t);
  /* The core file or the process, for the time (as heapinspect(1) gives
     it) and heap lost's and heap block's memory map. */
  struct hi_gdb_mapped l;
  hi_gdb_mapped_open (&l, &t, g->root, maps);
  struct hi_model *m = NULL;
  hi_status s = hi_model_load_clocked (&t, hi_gdb_mapped_clock (&l), &m);
  int failed = s != HI_OK;
  if (s == HI_E_NOT_READY)
    fprintf (out, "heap: the heapinspect monitor is loaded in this inferior "
             "but has recorded nothing yet: no allocation so far\n");
  else if (s != HI_OK)
    fprintf (out, "heap: the heapinspect data at 0x%" PRIx64 " cannot be "
             "used: %s\n", g->root, hi_strerror (s));
  else
    {
      if (hi_model_damaged (m))
        {
          char damage[512];
          hi_model_damage_text (m, damage, sizeof damage);
          fprintf (out, "heap: incomplete report: %s\n", damage);
        }
      /* Attached: glibc's chunks the monitor did not make, with the
         threads' registers where the request has them (the threads'
         tcaches), else the memory map heap block reads. */
      struct hi_target bt;
      if (r->n_regs)
        hi_gdb_mapped_lost (&l, r->regs, r->n_regs, &bt);
      else
        hi_gdb_mapped_block (&l, &bt);
      if (hi_model_count_foreign (&bt, m) != HI_OK)
        fprintf (out, "heap: %s\n", hi_strerror (HI_E_NOMEM));
      failed = answer (&l, m, old, r, out) != 0;
    }
  hi_gdb_mapped_close (&l);
  free (maps);
  hi_model_free (m);
  hi_model_free (old);
  hi_gdb_cache_close (cache, out);
  return failed ? -1 : 0;
}
