/* usage.c - heapinspect(1)'s usage text, and the checks of the options
   said as usage errors. */
#define _GNU_SOURCE
#include "commands.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* -t's list is written here, not made of the registry (HI_TABLES): it
   names bins before leaks, and wraps. */
static const char usage_head[] =
  "usage: heapinspect [OPTIONS] FILE [EXECUTABLE]   snapshot (.hip) or core file\n"
  "       heapinspect [OPTIONS] -p PID               a running process\n"
  "       heapinspect [OPTIONS] --raw DUMP@ADDRESS [ELF]   a raw memory dump\n"
  "       heapinspect [OPTIONS] run [RUN-OPTIONS] [--] COMMAND [ARGS...]\n"
  "       heapinspect [OPTIONS] attach -p PID [--duration=SECONDS] [--keep]\n"
  "       heapinspect detach -p PID   an attach's monitor (--keep) detached\n"
  "       heapinspect stat|modules SOURCE...\n"
  "       heapinspect block ADDRESS SOURCE...\n"
  "       heapinspect ref ADDRESS SOURCE...   what points into a block (core, -p, --raw)\n"
  "       heapinspect verify SOURCE...   glibc's heap checked (core, -p)\n"
  "       heapinspect --leak-check [OPTIONS] SOURCE...   lost blocks (core, -p, --raw)\n"
  "       heapinspect flamegraph [OPTIONS] -o FILE.svg SOURCE...\n"
  "       heapinspect peak|timeline [OPTIONS] SOURCE...\n"
  "       heapinspect diff [OPTIONS] OLD [EXE] NEW [EXE]   NEW may be -p PID\n"
  "       heapinspect serve [--listen ADDR:PORT] [-p PID]... [--all]   over HTTP\n"
  "                 [--token-file FILE] [--allow-unauthenticated] [--pidfile FILE]\n"
  "options: -t bins,leaks,direct,graph,stat,peak,temporary,lifetimes,timeline,\n"
  "            errors,types\n"
  "         -o FILE (replaced when complete)\n";

/* "|text|json|...": the names --format takes, from the registry. */
#define FORMAT_NAME(id, name, emit) "|" name
static const char format_names[] = HI_FORMATS (FORMAT_NAME);
#undef FORMAT_NAME

static const char usage_tail[] =
  "         --weight=inuse_space|inuse_objects|alloc_space|alloc_objects|\n"
  "                  peak_space|peak_objects\n"
  "         --no-stop   -h, --help   --version\n"
  "report:  --depth=N   --offsets   --terse | --verbose   --threshold=PERCENT\n"
  "         --limit=ROWS   --bytes   --long-names   --no-lines\n"
  "         --focus=REGEX   --ignore=REGEX   --module=NAME\n"
  "         --suppressions=FILE   --no-default-suppressions\n"
  "run:     the options above but -p, --raw, --no-stop; --follow-children\n"
  "         --leak-check [--error-exitcode=N]\n"
  "         [--errors-for-leak-kinds=definite,indirect,possible,reachable|all|none]\n"
  "See heapinspect(1).\n";

int
hi_usage (FILE *f, int status)
{
  fprintf (f, "%s         --format=%s\n%s", usage_head, format_names + 1,
           usage_tail);
  return status;
}

/* Not the whole usage, which would bury the line. */
int
hi_bad_usage (const char *msg)
{
  fprintf (stderr, "heapinspect: %s\nTry 'heapinspect --help'.\n", msg);
  return 2;
}

int
hi_usage_line (const char *msg)
{
  fprintf (stderr, "heapinspect: %s\n", msg);
  return 2;
}

int
hi_bad_tables (void)
{
  char msg[320];
  snprintf (msg, sizeof msg, "-t takes a list of: %s", hi_table_names ());
  return hi_bad_usage (msg);
}

int
hi_error_options_usage (void)
{
  return hi_usage_line ("--error-exitcode and --errors-for-leak-kinds go "
                        "with run --leak-check");
}

int
hi_leak_check_command_usage (void)
{
  return hi_usage_line ("--leak-check prints its own report: no command "
                        "goes with it");
}

int
hi_check_own_report (const struct hi_settings *st, const char *what)
{
  char msg[128];
  if (hi_own_report_check (&st->opt, what, msg, sizeof msg) == 0)
    return -1;
  return hi_usage_line (msg);
}

int
hi_check_filters (const struct hi_options *opt)
{
  hi_status s = hi_filters_check (opt, NULL);
  if (s == HI_OK)
    return -1;
  fprintf (stderr, "heapinspect: %s\n", hi_strerror (s));
  return s == HI_E_REGEX ? 2 : 1;
}

/* They are for a file or a pipe, not a terminal. */
int
hi_check_terminal (const struct hi_settings *st, int fd)
{
  if (st->report || !isatty (fd))
    return -1;
  if (st->opt.format == HI_PPROF)
    return hi_usage_line ("--format=pprof is gzip-compressed binary: not "
                          "written to a terminal; use -o FILE");
  if (st->opt.format == HI_SVG)
    return hi_usage_line ("an SVG is not written to a terminal; use -o "
                          "FILE.svg");
  return -1;
}
