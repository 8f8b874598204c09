/* commands-glibc.c - the heap commands answered from glibc's own heap,
   through the reader's public API as heapinspect(1) answers them: every
   command when the inferior has no monitor, and heap verify always.
   glibc's heap needs the memory map and the libraries' symbols, which
   the core file gdb reads or the live process gives (target-gdb.c), and
   the threads' registers (their tcaches), which heap-run.gdb passed. */
#define _GNU_SOURCE
#include "plugin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Which commands glibc's heap answers: stat (heap stat, the summary),
   bins (chunks by size), block, ref, lost and verify.  The others need
   the monitor's chains. */
static int
glibc_answers (const struct hi_gdb_request *r)
{
  return r->lost || r->have_addr || r->verify || r->ref
         || strcmp (r->tables, "stat") == 0
         || strcmp (r->tables, "bins") == 0;
}

/* R on T, glibc's heap, to OUT; *PROBLEMS: heap verify's; *SAID: heap
   block's "not a block" said where the address is. */
static hi_status
glibc_report (const struct hi_target *t, const struct hi_gdb_request *r,
              FILE *out, const char **why, uint64_t *problems, int *said)
{
  if (r->lost)
    return hi_glibc_leak_report (t, "inferior", &r->opt, out, why, NULL);
  if (r->ref)
    return hi_ref_report (t, NULL, NULL, "inferior", r->addr, &r->opt, out,
                          why);
  if (r->have_addr)
    return hi_glibc_block_report (t, "inferior", r->addr, &r->opt, out, why,
                                  said);
  if (r->verify)
    return hi_glibc_verify_report (t, "inferior", &r->opt, out, why,
                                   problems);
  if (strcmp (r->tables, "bins") == 0)
    return hi_glibc_bins_report (t, "inferior", &r->opt, out, why);
  return hi_glibc_report (t, "inferior", &r->opt, out, why);
}

int
hi_gdb_run_glibc (struct hi_gdb_inferior *g, const struct hi_gdb_request *r,
                  FILE *out)
{
  if (r->error[0])
    {
      fprintf (out, "%s\n", r->error);
      return -1;
    }
  if (!glibc_answers (r))
    {
      fprintf (out, "heap: no heapinspect data in this inferior: heap %s "
               "needs the monitor (run the program with "
               "LD_PRELOAD=.../libheapinspect.so); heap stat, bins, block, "
               "ref, lost and verify read glibc's heap\n", r->name);
      return -1;
    }
  size_t maps_len;
  char *maps = hi_gdb_channel_maps (&maps_len);
  struct hi_target direct, t;
  hi_gdb_target (g, &direct);
  struct hi_gdb_mapped l;
  hi_gdb_mapped_open_stacks (&l, &direct, r->regs, r->n_regs, maps);
  hi_gdb_mapped_lost (&l, r->regs, r->n_regs, &t);
  if (getenv ("HEAPINSPECT_GDB_DEBUG"))
    fprintf (out, "heap: debug: glibc's heap; %zu threads' registers; "
             "memory map: %s\n", r->n_regs, l.have_side ? "the core file or "
             "the process" : l.n_map ? "gdb's" : "none");
  const char *why = NULL;
  uint64_t problems = 0;
  int said = 0;
  hi_status s = glibc_report (&t, r, out, &why, &problems, &said);
  /* A damaged heap fails heap verify, as it does heapinspect verify. */
  int failed = (s != HI_OK && s != HI_E_NOT_BLOCK) || problems != 0;
  const char *monitor = g->root ? "" : "no heapinspect data, and ";
  if (s == HI_E_NO_GLIBC && !l.have_side)
    fprintf (out, "heap: %sglibc's heap cannot be read: %s (gdb's inferior "
             "is neither a core file gdb reads nor a process on this "
             "machine, whose libraries' symbols it needs)\n", monitor,
             why ? why : "its libraries' symbols are not known");
  else if (s == HI_E_NO_GLIBC)
    fprintf (out, "heap: %sglibc's heap cannot be read: %s\n", monitor,
             why ? why : "unknown reason");
  else if (s == HI_E_NO_MEMORY)
    fprintf (out, "heap: %sno memory map to scan glibc's heap: gdb gave "
             "none (info proc mappings)\n", monitor);
  else if (s == HI_E_NOT_BLOCK && (r->ref || said))
    ;                           /* heap ref said it, or where it is */
  else if (s == HI_E_NOT_BLOCK)
    fprintf (out, "0x%" PRIx64 ": in no heap of glibc's (%sglibc's heap was "
             "read)\n", r->addr, g->root ? "" : "no heapinspect data: ");
  else if (s == HI_E_USAGE)
    fprintf (out, "heap: %sglibc's heap is shown as text or JSON only\n",
             monitor);
  else if (s != HI_OK)
    fprintf (out, "heap: %s\n", hi_strerror (s));
  hi_gdb_mapped_close (&l);
  free (maps);
  return failed ? -1 : 0;
}
