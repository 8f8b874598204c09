/* main.c - heapinspect(1): options and dispatch. */
#define _GNU_SOURCE
#include "config.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
  "usage: heapinspect [OPTIONS] FILE [EXECUTABLE]   snapshot (.hip) or core file\n"
  "       heapinspect [OPTIONS] -p PID               a running process\n"
  "       heapinspect [OPTIONS] --raw DUMP@ADDRESS [ELF]   a raw memory dump\n"
  "       heapinspect [OPTIONS] run [RUN-OPTIONS] [--] COMMAND [ARGS...]\n"
  "       heapinspect stat|modules SOURCE...\n"
  "       heapinspect block ADDRESS SOURCE...\n"
  "       heapinspect --leak-check [OPTIONS] SOURCE...   lost blocks (core, -p, --raw)\n"
  "       heapinspect flamegraph [OPTIONS] -o FILE.svg SOURCE...\n"
  "       heapinspect peak|timeline [OPTIONS] SOURCE...\n"
  "       heapinspect diff [OPTIONS] OLD [EXE] NEW [EXE]   NEW may be -p PID\n"
  "options: -t bins,leaks,direct,graph,stat,peak,temporary,lifetimes,timeline,\n"
  "            errors,types\n"
  "         -o FILE (replaced when complete)\n"
  "         --format=text|json|pprof|pprof-text|folded|svg|massif\n"
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

static int
usage (FILE *f, int status)
{
  fputs (usage_text, f);
  return status;
}

/* A usage error: its one line, then where the usage is (not the whole
   usage, which would bury the line). */
static int
bad_usage (const char *msg)
{
  fprintf (stderr, "heapinspect: %s\nTry 'heapinspect --help'.\n", msg);
  return 2;
}

/* -t named a table that is none. */
static int
bad_tables (void)
{
  char msg[320];
  snprintf (msg, sizeof msg, "-t takes a list of: %s", hi_table_names ());
  return bad_usage (msg);
}

/* A usage error said in one line, without the usage after it. */
static int
usage_line (const char *msg)
{
  fprintf (stderr, "heapinspect: %s\n", msg);
  return 2;
}

static int
parse_number (const char *s, long *out)
{
  char *end;
  long v = strtol (s, &end, 0);
  if (!*s || *end || v < 0)
    return -1;
  *out = v;
  return 0;
}

/* getopt_long's values: the CLI's own long options, then the report
   options (options.h) from OPT_REPORT on, handed to hi_option_set. */
enum { OPT_NO_STOP = 256, OPT_RAW, OPT_VERSION, OPT_FOLLOW,
       OPT_LEAK_CHECK, OPT_REPORT = 512 };
/* run --leak-check's exit status (valgrind's words). */
enum { OPT_ERROR_EXITCODE = 400, OPT_ERROR_KINDS };
static const struct option longopts[] = {
  { "no-stop", no_argument, NULL, OPT_NO_STOP },
  { "raw", required_argument, NULL, OPT_RAW },
  { "follow-children", no_argument, NULL, OPT_FOLLOW },
  { "leak-check", no_argument, NULL, OPT_LEAK_CHECK },
  { "error-exitcode", required_argument, NULL, OPT_ERROR_EXITCODE },
  { "errors-for-leak-kinds", required_argument, NULL, OPT_ERROR_KINDS },
  { "help", no_argument, NULL, 'h' },
  { "version", no_argument, NULL, OPT_VERSION },
#define REPORT_OPTION(id, name, value) \
  { name, value ? required_argument : no_argument, NULL, \
    OPT_REPORT + HI_ROPT_##id },
  HI_REPORT_OPTIONS (REPORT_OPTION)
#undef REPORT_OPTION
  { NULL, 0, NULL, 0 },
};

/* 1 if ARG is an option whose value is the next argument, as getopt_long
   reads it: -t, -p, -o, or --NAME (in full or a prefix of one option
   only) of an option with a required value, without "=VALUE". */
static int
value_follows (const char *arg)
{
  if (strcmp (arg, "-t") == 0 || strcmp (arg, "-p") == 0
      || strcmp (arg, "-o") == 0)
    return 1;
  if (strncmp (arg, "--", 2) != 0 || !arg[2] || strchr (arg, '='))
    return 0;
  size_t len = strlen (arg + 2);
  int found = -1;
  for (int i = 0; longopts[i].name; i++)
    if (strncmp (longopts[i].name, arg + 2, len) == 0)
      {
        if (longopts[i].name[len] == '\0')
          return longopts[i].has_arg == required_argument;
        found = found == -1 ? i : -2;
      }
  return found >= 0 && longopts[found].has_arg == required_argument;
}

/* Everything the options decide. */
struct settings
{
  struct hi_options opt;
  struct hi_source src;
  struct hi_run run;
  const char *tables;
  const char *report;        /* -o FILE */
  int weight_given;          /* --weight was given */
  int leak_check;            /* --leak-check */
  int error_options;         /* --error-exitcode or --errors-for-leak-kinds */
};

/* valgrind's --errors-for-leak-kinds=SET (and --show-leak-kinds'): a
   comma-separated list of definite, indirect, possible, reachable, or
   all, or none; into *KINDS as 1 << enum hi_reach_class.  0, or -1. */
static int
parse_leak_kinds (const char *arg, unsigned *kinds)
{
  if (strcmp (arg, "all") == 0 || strcmp (arg, "none") == 0)
    {
      *kinds = arg[0] == 'a' ? (1u << HI_REACH_NCLASSES) - 1 : 0;
      return 0;
    }
  unsigned k = 0;
  for (const char *p = arg; ; )
    {
      size_t len = strcspn (p, ",");
      int found = -1;
      for (int c = 0; c < HI_REACH_NCLASSES; c++)
        if (strlen (hi_reach_class_key (c)) == len
            && strncmp (p, hi_reach_class_key (c), len) == 0)
          found = c;
      if (found < 0)
        return -1;
      k |= 1u << found;
      if (!p[len])
        break;
      p += len + 1;
    }
  *kinds = k;
  return 0;
}

/* Apply option C (argument ARG); -1 to go on, else the exit status. */
static int
apply_option (int c, char *arg, struct settings *st)
{
  if (c >= OPT_REPORT && c < OPT_REPORT + HI_N_REPORT_OPTIONS)
    {
      st->weight_given |= c == OPT_REPORT + HI_ROPT_WEIGHT;
      char err[256];
      if (hi_option_set (&st->opt, hi_option_name (c - OPT_REPORT), arg, err,
                         sizeof err) != 0)
        {
          /* One line, saying what to give: no usage after it. */
          fprintf (stderr, "heapinspect: %s\n", err);
          return 2;
        }
      return -1;
    }
  switch (c)
    {
    case 't':
      st->tables = arg;
      st->opt.tables_given = 1;
      return -1;
    case 'o':
      if (!*arg)
        return bad_usage ("-o needs a file name");
      st->report = arg;
      return -1;
    case 'p':
      if (parse_number (arg, &st->src.pid) != 0 || st->src.pid == 0)
        return bad_usage ("-p needs a process id");
      return -1;
    case OPT_NO_STOP:
      st->src.no_stop = 1;
      return -1;
    case OPT_FOLLOW:
      st->run.follow_children = 1;
      return -1;
    case OPT_LEAK_CHECK:
      st->leak_check = st->run.leak_check = 1;
      return -1;
    case OPT_ERROR_EXITCODE:
      {
        long n;
        if (parse_number (arg, &n) != 0 || n > 255)
          return usage_line ("--error-exitcode takes a number from 0 to "
                             "255");
        st->run.error_exitcode = (int) n;
        st->error_options = 1;
        return -1;
      }
    case OPT_ERROR_KINDS:
      if (parse_leak_kinds (arg, &st->run.error_kinds) != 0)
        return usage_line ("--errors-for-leak-kinds takes definite, "
                           "indirect, possible, reachable (comma-separated), "
                           "all or none");
      st->error_options = 1;
      return -1;
    case OPT_RAW:
      {
        char *at = strrchr (arg, '@');
        char *end;
        if (!at || at == arg || st->src.raw == 64)
          return bad_usage ("--raw needs DUMP@ADDRESS (at most 64)");
        *at = '\0';
        st->src.raw_base[st->src.raw] = strtoull (at + 1, &end, 0);
        if (!at[1] || *end)
          return bad_usage ("--raw needs DUMP@ADDRESS");
        st->src.raw_path[st->src.raw++] = arg;
        st->src.path = st->src.raw_path[0];
        return -1;
      }
    case 'h':
      return usage (stdout, 0);
    case OPT_VERSION:
      puts (PACKAGE_STRING);
      return 0;
    default:
      /* getopt_long said what was wrong in its line. */
      fputs ("Try 'heapinspect --help'.\n", stderr);
      return 2;
    }
}

/* The filters and the suppressions file of OPT, checked before anything
   is read or run: -1 to go on, else the exit status (2 for a regular
   expression that does not compile, a bad value; 1 for a suppressions
   file that cannot be used). */
static int
check_filters (const struct hi_options *opt)
{
  hi_status s = hi_filters_check (opt, NULL);
  if (s == HI_OK)
    return -1;
  fprintf (stderr, "heapinspect: %s\n", hi_strerror (s));
  return s == HI_E_REGEX ? 2 : 1;
}

/* pprof's gzip and an SVG are for a file or a pipe, not a terminal:
   refused there unless -o names a file.  -1 to go on, else the exit
   status. */
static int
check_terminal (const struct settings *st)
{
  if (st->report || !isatty (STDOUT_FILENO))
    return -1;
  if (st->opt.format == HI_PPROF)
    return usage_line ("--format=pprof is gzip-compressed binary: not "
                       "written to a terminal; use -o FILE");
  if (st->opt.format == HI_SVG)
    return usage_line ("an SVG is not written to a terminal; use -o "
                       "FILE.svg");
  return -1;
}

/* A command's end with stdout going to OUT: the report replaces -o
   FILE only if WRITTEN whole; else the temporary goes and FILE stays.
   The exit status: STATUS, or 1 if it was 0 and the output failed. */
static int
finish_output (struct hi_out *out, int status, int written)
{
  if (!written)
    {
      hi_out_abort (out);
      return status;
    }
  if (hi_out_commit (out) != 0)
    return status ? status : 1;
  return status;
}

/* `run [RUN-OPTIONS] [--] COMMAND ARGS...`: ARGV starts at "run".
   Options after `run` are heapinspect's up to the command's name or
   `--`; the command's own options are left alone. */
static int
main_run (int argc, char **argv, struct settings *st)
{
  int c, r;
  /* 0, not 1: glibc's getopt starts afresh, in the "+" mode. */
  optind = 0;
  argv[0] = (char *) "heapinspect";
  while ((c = getopt_long (argc, argv, "+t:p:o:h", longopts, NULL)) != -1)
    if ((r = apply_option (c, optarg, st)) >= 0)
      return r;
  if (st->src.pid || st->src.raw || st->src.no_stop)
    return bad_usage ("run reads the program it starts: -p, --raw and "
                      "--no-stop do not go with it");
  if (st->error_options && !st->run.leak_check)
    return usage_line ("--error-exitcode and --errors-for-leak-kinds go "
                       "with run --leak-check");
  if (st->run.leak_check && strcmp (st->tables, HI_OPT_TABLES_DEFAULT) != 0)
    return usage_line ("--leak-check prints its own tables: -t does not go "
                       "with it");
  if (st->run.leak_check && st->opt.format != HI_TEXT
      && st->opt.format != HI_JSON)
    return usage_line ("--leak-check writes text or JSON: --format=text or "
                       "--format=json");
  if (!hi_tables_valid (st->tables))
    return bad_tables ();
  argv += optind;
  if (!*argv)
    return bad_usage ("run needs a command");
  if ((r = check_filters (&st->opt)) >= 0 || (r = check_terminal (st)) >= 0)
    return r;
  /* -o FILE is checked before the program runs, and written after. */
  struct hi_out out;
  if (hi_out_open (&out, st->report) != 0)
    return 1;
  if (hi_out_redirect (&out) != 0)
    {
      hi_out_abort (&out);
      return 1;
    }
  int written;
  r = hi_cmd_run (argv, st->tables, &st->opt, &st->run, &written);
  return finish_output (&out, r, written);
}

/* `diff OLD [EXE] NEW [EXE]`: ARGV is what follows the word diff. */
static int
main_diff (int argc, char **argv, struct settings *st)
{
  if (strcmp (st->tables, HI_OPT_TABLES_DEFAULT) != 0)
    return usage_line ("diff prints its own tables: -t does not go with it");
  if (st->opt.format != HI_TEXT && st->opt.format != HI_JSON)
    return usage_line ("diff writes text or JSON: --format=text or "
                       "--format=json");
  struct hi_source src[2];
  const char *err;
  if (hi_diff_parse (argc, argv, &st->src, src, &err) != 0)
    return usage_line (err);
  struct hi_out out;
  if (hi_out_open (&out, st->report) != 0)
    return 1;
  if (hi_out_redirect (&out) != 0)
    {
      hi_out_abort (&out);
      return 1;
    }
  int written = 0;
  int status = hi_cmd_diff (src, &st->opt, &written);
  return finish_output (&out, status, written);
}

int
main (int argc, char **argv)
{
  struct settings st = { .opt = HI_OPTIONS_DEFAULT,
                         .tables = HI_OPT_TABLES_DEFAULT,
                         .run.error_kinds = HI_RUN_ERROR_KINDS_DEFAULT };
  int c, r;
  /* Options may come anywhere before `run`; those after it are read
     by main_run.  Parse only up to `run`. */
  int limit = argc;
  for (int i = 1; i < argc; i++)
    {
      int is_arg = value_follows (argv[i - 1]);
      if (strcmp (argv[i], "--") == 0)
        break;
      if (!is_arg && strcmp (argv[i], "run") == 0)
        {
          limit = i;
          break;
        }
    }
  while ((c = getopt_long (limit, argv, "t:p:o:h", longopts, NULL)) != -1)
    if ((r = apply_option (c, optarg, &st)) >= 0)
      return r;
  if (limit < argc)
    {
      if (optind < limit)
        return bad_usage ("run comes before the command; operands before "
                          "it are not allowed");
      return main_run (argc - limit, argv + limit, &st);
    }
  if (st.run.follow_children)
    return bad_usage ("--follow-children goes with run");
  if (st.error_options)
    return usage_line ("--error-exitcode and --errors-for-leak-kinds go "
                       "with run --leak-check");
  struct hi_source src = st.src;
  struct hi_options opt = st.opt;
  const char *tables = st.tables;
  argv += optind;
  argc -= optind;
  if (!hi_tables_valid (tables))
    return bad_tables ();
  if ((r = check_filters (&opt)) >= 0)
    return r;

  const char *cmd = argc > 0 ? argv[0] : NULL;
  if (cmd && strcmp (cmd, "diff") == 0)
    {
      if (st.leak_check)
        return usage_line ("--leak-check prints its own report: no command "
                           "goes with it");
      return main_diff (argc - 1, argv + 1, &st);
    }
  int modules = 0, block = 0;
  if (cmd && strcmp (cmd, "flamegraph") == 0)
    {
      /* The report as an SVG flame graph; --format may only agree. */
      if (opt.format != HI_TEXT && opt.format != HI_SVG)
        return usage_line ("flamegraph writes an SVG: --format does not go "
                           "with it");
      opt.format = st.opt.format = HI_SVG;
      /* The flame graph, whatever -t says (an SVG of -t timeline alone
         would be the timeline). */
      tables = HI_OPT_TABLES_DEFAULT;
      argv++;
      argc--;
    }
  uint64_t block_addr = 0;
  if (cmd && strcmp (cmd, "block") == 0)
    {
      char *end;
      if (argc < 2)
        return bad_usage ("block needs an address");
      block_addr = strtoull (argv[1], &end, 0);
      if (!argv[1][0] || *end)
        return bad_usage ("block needs an address: a number, decimal or "
                          "0x hexadecimal");
      block = 1;
      argv += 2;
      argc -= 2;
    }
  else if (cmd && (strcmp (cmd, "peak") == 0
                   || strcmp (cmd, "timeline") == 0))
    {
      /* The time tables have commands of their own, as stat has.  The
         peak as collapsed stacks or a flame graph is the chains' bytes
         at the peak, unless --weight says otherwise. */
      tables = cmd;
      if (cmd[0] == 'p' && !st.weight_given)
        opt.weight = st.opt.weight = HI_WEIGHT_PEAK_SPACE;
      argv++;
      argc--;
    }
  else if (cmd && (strcmp (cmd, "stat") == 0 || strcmp (cmd, "modules") == 0))
    {
      modules = cmd[0] == 'm';
      tables = "stat";
      argv++;
      argc--;
    }
  /* Operands: FILE [EXECUTABLE], or [ELF] after --raw, or none with -p. */
  if (src.pid)
    {
      if (argc > 1)
        return bad_usage ("-p takes at most the executable");
      static char name[32];
      snprintf (name, sizeof name, "process %ld", src.pid);
      src.name = name;
      src.exe = argc > 0 ? argv[0] : NULL;
    }
  else if (src.raw)
    {
      if (argc > 1)
        return bad_usage ("--raw takes at most one ELF file");
      src.exe = argc > 0 ? argv[0] : NULL;
      src.name = src.path;
    }
  else
    {
      if (argc < 1)
        return cmd ? usage_line ("which file?")
                   : bad_usage ("no source given");
      if (argc > 2)
        return bad_usage ("too many operands");
      src.path = argv[0];
      src.exe = argc > 1 ? argv[1] : NULL;
      src.name = src.path;
    }
  if (st.leak_check && (cmd && (modules || block || strcmp (cmd, "peak") == 0
                               || strcmp (cmd, "timeline") == 0
                               || strcmp (cmd, "flamegraph") == 0
                               || strcmp (cmd, "stat") == 0)))
    return usage_line ("--leak-check prints its own report: no command goes "
                       "with it");
  if (st.leak_check && strcmp (tables, HI_OPT_TABLES_DEFAULT) != 0)
    return usage_line ("--leak-check prints its own tables: -t does not go "
                       "with it");
  if (st.leak_check && opt.format != HI_TEXT && opt.format != HI_JSON)
    return usage_line ("--leak-check writes text or JSON: --format=text or "
                       "--format=json");
  /* Binary and large formats are refused on a terminal; `modules` and
     `block` print text whatever --format says. */
  if (!modules && !block && (r = check_terminal (&st)) >= 0)
    return r;
  /* -o: the report goes to a temporary beside FILE, made before anything
     is read so that a bad name fails at once. */
  struct hi_out out;
  if (hi_out_open (&out, st.report) != 0)
    return 1;
  if (hi_out_redirect (&out) != 0)
    {
      hi_out_abort (&out);
      return 1;
    }
  int written = 0, status;
  if (st.leak_check)
    status = hi_cmd_leak_check (&src, &opt, &written);
  else if (modules)
    status = hi_cmd_modules (&src, &written);
  else if (block)
    status = hi_cmd_block (&src, block_addr, &opt, &written);
  else
    {
      struct hi_model *m = hi_cli_load (&src, NULL);
      status = 1;
      if (m)
        status = hi_cli_report (&src, m, tables, &opt, &written);
      hi_model_free (m);
    }
  return finish_output (&out, status, written);
}
