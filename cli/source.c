/* source.c - what the user named (snapshot, core, process, raw dump):
   its operands, opening it as a target, loading the model, and printing
   the tables. */
#define _GNU_SOURCE
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* No source after WORDS (the command's words as typed): say what is
   missing and the forms that work; 2. */
static int
no_source (const char *words)
{
  char msg[512];
  snprintf (msg, sizeof msg, "no source given: heapinspect %s%sFILE "
            "[EXECUTABLE] (a snapshot or core file), or -p PID (a process), "
            "or --raw DUMP@ADDRESS (a memory dump)", words, *words ? " " : "");
  return hi_usage_line (msg);
}

int
hi_source_operands (int argc, char **argv, const char *words,
                    struct hi_settings *st)
{
  int named = words != NULL;
  struct hi_source *src = &st->src;
  if (src->pid)
    {
      if (argc > 1)
        return hi_bad_usage ("-p takes at most the executable");
      static char name[32];
      snprintf (name, sizeof name, "process %ld", src->pid);
      src->name = name;
      src->exe = argc > 0 ? argv[0] : NULL;
    }
  else if (src->raw)
    {
      if (argc > 1)
        return hi_bad_usage ("--raw takes at most one ELF file");
      src->exe = argc > 0 ? argv[0] : NULL;
      src->name = src->path;
    }
  else
    {
      if (argc < 1)
        return no_source (named ? words : "");
      if (argc > 2)
        return hi_bad_usage ("too many operands");
      src->path = argv[0];
      src->exe = argc > 1 ? argv[1] : NULL;
      src->name = src->path;
    }
  return named && st->leak_check ? hi_leak_check_command_usage () : -1;
}

void
hi_cli_error (const char *source, const char *message)
{
  fprintf (stderr, "heapinspect: %s: %s\n", source, message);
}

static struct hi_model *load (const struct hi_source *src,
                              struct hi_target *keep, int finish,
                              int *no_data);

/* SRC's file is an ELF file but no core (S, said as WHY): if what was
   given as its executable opens as a core or a snapshot, the two were
   given the other way round; say so, with the order that works.  Given
   alone, say how to run it or read its core.  1 if said. */
static int
swapped (const struct hi_source *src, hi_status s, const char *why)
{
  if (s != HI_E_NOT_CORE || src->pid || src->raw)
    return 0;
  if (!src->exe)
    {
      /* A program alone: the two things it may have meant. */
      fprintf (stderr, "heapinspect: %s: %s: to run it, heapinspect run "
               "-- %s; for its core, heapinspect CORE %s\n", src->path, why,
               src->path, src->path);
      return 1;
    }
  struct hi_target t;
  if (hi_target_open_file (src->exe, NULL, HI_FILE_SNAPSHOT | HI_FILE_ELF,
                           &t, NULL) != HI_OK)
    return 0;
  hi_target_close (&t);
  fprintf (stderr, "heapinspect: %s: %s: the core or snapshot comes "
           "first, then the executable: heapinspect %s %s\n", src->path,
           why, src->exe, src->path);
  return 1;
}

struct hi_model *
hi_cli_load (const struct hi_source *src, struct hi_target *keep)
{
  return load (src, keep, 1, NULL);
}

struct hi_model *
hi_cli_load_open (const struct hi_source *src, struct hi_target *keep)
{
  return load (src, keep, 0, NULL);
}

struct hi_model *
hi_cli_load_or_none (const struct hi_source *src, struct hi_target *keep,
                     int *no_data)
{
  *no_data = 0;
  return load (src, keep, 1, no_data);
}

struct hi_model *
hi_cli_load_open_or_none (const struct hi_source *src, struct hi_target *keep,
                          int *no_data)
{
  *no_data = 0;
  return load (src, keep, 0, no_data);
}

static hi_status
open_target (const struct hi_source *src, struct hi_target *t)
{
  if (src->pid)
    return hi_target_open_process ((int) src->pid, !src->no_stop, t);
  if (src->raw)
    return hi_target_open_raw (src->raw_path, src->raw_base,
                               (size_t) src->raw, src->exe, t);
  return hi_target_open_file (src->path, src->exe,
                              HI_FILE_SNAPSHOT | HI_FILE_ELF, t, NULL);
}

int
hi_cli_glibc (const struct hi_source *src, const struct hi_options *opt,
              enum hi_glibc_view view, uint64_t block, int *written)
{
  struct hi_target t;
  *written = 0;
  hi_status s = open_target (src, &t);
  if (s != HI_OK)
    {
      hi_cli_error (src->name, hi_strerror (s));
      return 1;
    }
  const char *why = NULL;
  uint64_t problems = 0;
  int said = 0;
  struct hi_reach_totals totals;
  s = view == HI_VIEW_LEAKS
      ? hi_glibc_leak_report (&t, src->name, opt, stdout, &why, &totals)
      : view == HI_VIEW_BLOCK
      ? hi_glibc_block_report (&t, src->name, block, opt, stdout, &why,
                               &said)
      : view == HI_VIEW_REF
      ? hi_ref_report (&t, NULL, src->exe, src->name, block, opt, stdout,
                       &why)
      : view == HI_VIEW_VERIFY
      ? hi_glibc_verify_report (&t, src->name, opt, stdout, &why, &problems)
      : view == HI_VIEW_BINS
      ? hi_glibc_bins_report (&t, src->name, opt, stdout, &why)
      : hi_glibc_report (&t, src->name, opt, stdout, &why);
  hi_status after = hi_target_finish (&t);
  hi_target_close (&t);
  if (s == HI_E_NO_GLIBC)
    {
      fprintf (stderr, "heapinspect: %s: %sglibc's heap cannot be read: "
               "%s\n", src->name, view == HI_VIEW_VERIFY ? ""
               : "no heapinspect data, and ", why);
      return 1;
    }
  if (s == HI_E_USAGE)
    {
      hi_cli_error (src->name, "no heapinspect data: glibc's heap is "
                    "shown as text or JSON only");
      return 2;
    }
  if (s == HI_E_NO_MEMORY)
    {
      hi_cli_error (src->name, "no heapinspect data, and no memory map to "
                    "scan glibc's heap (a raw dump without one)");
      return 1;
    }
  /* ref's line is written; block's says where the address is instead. */
  if (s == HI_E_NOT_BLOCK && (view == HI_VIEW_REF || said))
    {
      *written = 1;
      return 1;
    }
  if (s == HI_E_NOT_BLOCK)
    {
      /* An answer, as the monitor's "not ours" is. */
      printf ("0x%llx: in no heap of glibc's (no heapinspect data: glibc's "
              "heap was read)\n", (unsigned long long) block);
      *written = 1;
      return 1;
    }
  if (s != HI_OK)
    {
      hi_cli_error (src->name, hi_strerror (s));
      return 1;
    }
  if (after != HI_OK)
    hi_cli_error (src->name, hi_strerror (after));
  *written = 1;
  return after != HI_OK || problems != 0;
}

static struct hi_model *
load (const struct hi_source *src, struct hi_target *keep, int finish,
      int *no_data)
{
  struct hi_target t;
  struct hi_model *m = NULL;
  hi_status s = open_target (src, &t);
  if (s == HI_OK)
    {
      s = hi_model_load (&t, &m);
      /* Attached: glibc's chunks the monitor did not make, counted
         while a process is still stopped. */
      if (s == HI_OK)
        s = hi_model_count_foreign (&t, m);
      if (s == HI_OK && src->at_attach)
        hi_model_set_foreign_at_attach (m, src->at_attach_blocks,
                                        src->at_attach_bytes);
      uint64_t missing = hi_target_missing (&t);
      if (s == HI_OK && missing)
        fprintf (stderr, "heapinspect: %s: the file is truncated: %llu bytes "
                 "missing (the heapinspect data in it was read whole)\n",
                 src->name, (unsigned long long) missing);
      hi_status after = finish || s != HI_OK ? hi_target_finish (&t)
                                             : HI_OK;
      if (s == HI_OK && after != HI_OK)
        fprintf (stderr, "heapinspect: %s: %s\n", src->name,
                 hi_strerror (after));
      if (s == HI_OK && keep)
        *keep = t;
      else
        hi_target_close (&t);
    }
  if (s == HI_E_NO_DATA && no_data && !src->raw)
    {
      *no_data = 1;             /* the caller says what it does instead */
      return NULL;
    }
  if (s != HI_OK)
    {
      char why[512];
      snprintf (why, sizeof why, "%s", hi_strerror (s));
      if (!swapped (src, s, why))
        hi_cli_error (src->name, why);
      return NULL;
    }
  if (hi_model_damaged (m))
    {
      char what[256];
      hi_model_damage_text (m, what, sizeof what);
      fprintf (stderr, "heapinspect: %s: incomplete report: %s\n",
               src->name, what);
    }
  return m;
}


/* One warning line per module whose code is shown as module+offset. */
static void
say_module_problem (void *ctx, const char *path, enum hi_module_problem p,
                    int err)
{
  char safe[1024];
  hi_escape (path, safe, sizeof safe);
  const char *why = p == HI_MOD_BUILD_ID
                    ? "its build-id differs from the run's (another program, or rebuilt since?)"
                    : p == HI_MOD_PATH_CUT ? "its path was too long to record"
                    : p == HI_MOD_NOT_PROGRAM
                    ? "not an executable or shared library (ELF)"
                    : err == EINVAL ? "not a regular file" : strerror (err);
  fprintf (stderr, "heapinspect: %s: %s: %s; its code is shown as "
           "module+offset\n", (const char *) ctx, safe, why);
}

void
hi_cli_module_problems (const struct hi_source *src,
                        const struct hi_model *m)
{
  hi_modules_check (m, src->exe, say_module_problem, (void *) src->name);
}

int
hi_cli_report (const struct hi_source *src, struct hi_model *m,
               const char *tables, const struct hi_options *opt,
               int *written)
{
  unsigned missing = 0;
  *written = 0;
  hi_status s = hi_report (m, src->exe, src->name, tables, opt, stdout,
                           &missing);
  if (s != HI_OK)
    {
      /* A failed write is said once, naming the output, by whoever
         ends the output (hi_out_commit). */
      if (!(s == HI_E_WRITE && ferror (stdout)))
        hi_cli_error (src->name, hi_strerror (s));
      return 1;
    }
  *written = 1;
  if (missing && opt->format != HI_JSON)
    hi_modules_check (m, src->exe, say_module_problem, (void *) src->name);
  return hi_model_damaged (m) ? 1 : 0;
}
