/* commands-glibc.c - the heap commands answered from glibc's own heap,
   through the reader's public API as heapinspect(1) answers them: every
   command when the inferior has no monitor, and heap verify always.
   glibc's heap needs the memory map and the libraries' symbols, which
   the core file gdb reads or the live process gives (target-gdb.c), and
   the threads' registers (their tcaches), which heap-run.gdb passed. */
#define _GNU_SOURCE
#include "plugin.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Which commands glibc's heap answers: stat (heap stat, the summary),
   bins (chunks by size), block, ref, lost and verify.  The others need
   the monitor's chains. */
static int
glibc_answers (const struct hi_gdb_request *r)
{
  return r->lost || r->have_addr || r->verify || r->ref || r->attach
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

/* libheapinspect-attach.so (the monitor a running program can dlopen)
   into BUF: beside this plugin's directory's parent in the build tree
   (gdbplugin/.libs -> lib/.libs), or in the directory above it installed
   (PKGLIBDIR = LIBDIR/heapinspect).  0, or -1. */
static int
attach_library (char *buf, size_t size)
{
  Dl_info info;
  char dir[PATH_MAX];
  if (!dladdr ((void *) attach_library, &info) || !info.dli_fname
      || !realpath (info.dli_fname, dir))
    return -1;
  char *slash = strrchr (dir, '/');
  if (!slash)
    return -1;
  *slash = '\0';
  static const char *const where[] = {
    "/../../lib/.libs/libheapinspect-attach.so",
    "/../libheapinspect-attach.so",
  };
  for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
    {
      char path[PATH_MAX + 64];
      snprintf (path, sizeof path, "%s%s", dir, where[i]);
      if (access (path, R_OK) == 0 && realpath (path, buf)
          && strlen (buf) < size)
        return 0;
    }
  return -1;
}

/* heap attach on T, an inferior with no monitor: the gdb commands that
   load the monitor into it (a page mmap'd for the strings: gdb would
   copy a string argument into memory got from the inferior's malloc),
   when no thread holds a glibc arena lock (dlopen mallocs). */
static int
attach (const struct hi_target *t, FILE *out)
{
  char lib[PATH_MAX];
  if (attach_library (lib, sizeof lib) != 0)
    {
      fprintf (out, "heap: libheapinspect-attach.so is not installed beside "
               "the plugin\n");
      return -1;
    }
  int locked = hi_glibc_locked (t);
  if (locked == 1)
    {
      fprintf (out, "heap: a thread of the inferior is inside malloc (it "
               "holds an arena's lock): step or continue a little, then "
               "heap attach again\n");
      return -1;
    }
  /* What glibc loads by itself is redirected through the loader's
     pointer to _dl_open (heapinspect attach does the same). */
  uint64_t slot = 0;
  const char *no_slot = NULL;
  char loader[512];
  uint64_t wrapper = 0;
  if (!t->ops->lookup_symbol
      || t->ops->lookup_symbol (t->ctx, "heapinspect_loader_open",
                                &wrapper) != 0)
    wrapper = 0;
  int have = hi_loader_open_slot (t, wrapper, &slot, &no_slot);
  if (have == 1)
    loader[0] = '\0';
  else if (have == 0)
    snprintf (loader, sizeof loader,
              "    set {char [17]} ((char *) $_heap_page + 6144) = "
              "\"%016" PRIx64 "\"\n"
              "    if ((int (*) (const char *)) heapinspect_attach_loader) "
              "((char *) $_heap_page + 6144) != 0\n"
              "      echo heap: libraries glibc loads by itself (NSS modules) "
              "are not redirected: \n\n"
              "      output ((const char *(*) (void)) "
              "heapinspect_attach_error) ()\n"
              "      echo \\n\n"
              "    end\n", slot);
  else
    snprintf (loader, sizeof loader,
              "    echo heap: %s: libraries glibc loads by itself (NSS "
              "modules) are not redirected, and one that frees a block of "
              "the monitor's ends the program\\n\n", no_slot);
  char *script = NULL;
  size_t len = 0;
  FILE *s = open_memstream (&script, &len);
  if (!s)
    return -1;
  fprintf (s,
           "set $_heap_page = ((void *(*) (void *, unsigned long, int, int, "
           "int, long)) mmap) (0, 8192, 3, 0x22, -1, 0)\n"
           "set {char [%zu]} $_heap_page = \"%s\"\n"
           "set {char [12]} ((char *) $_heap_page + 4096) = \"output=none\"\n"
           "set $_heap_handle = ((void *(*) (const char *, int)) dlopen) "
           "((char *) $_heap_page, 2)\n"
           "if $_heap_handle == 0\n"
           "  echo heap: the inferior could not load %s\\n\n"
           "else\n"
           "  if ((int (*) (const char *)) heapinspect_attach) "
           "((char *) $_heap_page + 4096) == 0\n"
           "    echo heap: attached: the monitor records the inferior's "
           "allocations from now on\\n\n"
           "%s"
           "  else\n"
           "    echo heap: the monitor could not start: \n"
           "    output ((const char *(*) (void)) heapinspect_attach_error) ()\n"
           "    echo \\n\n"
           "  end\n"
           "end\n"
           "call (void) ((int (*) (void *, unsigned long)) munmap) "
           "($_heap_page, 8192)\n",
           strlen (lib) + 1, lib, lib, loader);
  fclose (s);
  free (hi_gdb_answer_script);
  hi_gdb_answer_script = script;
  fprintf (out, "heap: loading %s into the inferior\n", lib);
  return 0;
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
  uint64_t rt, mono;
  if (r->attach && l.have_side
      && hi_target_process_time (&l.side, &rt, &mono) != 0)
    {
      fprintf (out, "heap: attach needs a live inferior, not a core file\n");
      hi_gdb_mapped_close (&l);
      free (maps);
      return -1;
    }
  if (r->attach)
    {
      int failed = attach (&t, out);
      hi_gdb_mapped_close (&l);
      free (maps);
      return failed;
    }
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
