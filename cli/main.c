/* main.c - heapinspect(1): options and dispatch. */
#include "config.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
  "usage: heapinspect [OPTIONS] FILE [EXECUTABLE]   snapshot (.hip) or core file\n"
  "       heapinspect [OPTIONS] -p PID               a running process\n"
  "       heapinspect [OPTIONS] --raw DUMP@ADDRESS [ELF]   a raw memory dump\n"
  "       heapinspect [OPTIONS] run [--] COMMAND [ARGS...]\n"
  "       heapinspect stat|modules SOURCE...\n"
  "       heapinspect block ADDRESS SOURCE...\n"
  "options: -t bins,leaks,direct,graph,stat   --depth N   --offsets\n"
  "         --terse | --verbose   --format=text|json   --no-stop\n"
  "See heapinspect(1).\n";

static int
usage (FILE *f, int status)
{
  fputs (usage_text, f);
  return status;
}

static int
bad_usage (const char *msg)
{
  fprintf (stderr, "heapinspect: %s\n", msg);
  return usage (stderr, 2);
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

int
main (int argc, char **argv)
{
  enum { OPT_DEPTH = 256, OPT_OFFSETS, OPT_TERSE, OPT_VERBOSE, OPT_FORMAT,
         OPT_NO_STOP, OPT_RAW, OPT_VERSION };
  static const struct option longopts[] = {
    { "depth", required_argument, NULL, OPT_DEPTH },
    { "offsets", no_argument, NULL, OPT_OFFSETS },
    { "terse", no_argument, NULL, OPT_TERSE },
    { "verbose", no_argument, NULL, OPT_VERBOSE },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "no-stop", no_argument, NULL, OPT_NO_STOP },
    { "raw", required_argument, NULL, OPT_RAW },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
  };
  struct hi_options opt = { 5, 0, HI_NORMAL, HI_TEXT };
  struct hi_source src;
  memset (&src, 0, sizeof src);
  const char *tables = "leaks,bins,direct,graph";
  int c;
  long n;
  /* Options may come anywhere, except after `run`: the command's own
     options are its own.  Parse only up to `run`. */
  int limit = argc;
  for (int i = 1; i < argc; i++)
    {
      static const char *const with_arg[] = { "-t", "-p", "--depth",
                                              "--format", "--raw", NULL };
      int is_arg = 0;
      for (int k = 0; with_arg[k]; k++)
        is_arg |= strcmp (argv[i - 1], with_arg[k]) == 0;
      if (strcmp (argv[i], "--") == 0)
        break;
      if (!is_arg && strcmp (argv[i], "run") == 0)
        {
          limit = i;
          break;
        }
    }
  while ((c = getopt_long (limit, argv, "t:p:h", longopts, NULL)) != -1)
    switch (c)
      {
      case 't':
        tables = optarg;
        break;
      case 'p':
        if (parse_number (optarg, &src.pid) != 0 || src.pid == 0)
          return bad_usage ("-p needs a process id");
        break;
      case OPT_DEPTH:
        if (parse_number (optarg, &n) != 0 || n < 1 || n > 10000)
          return bad_usage ("--depth needs a number from 1 to 10000");
        opt.depth = (int) n;
        break;
      case OPT_OFFSETS:
        opt.offsets = 1;
        break;
      case OPT_TERSE:
        opt.verbosity = HI_TERSE;
        break;
      case OPT_VERBOSE:
        opt.verbosity = HI_VERBOSE;
        break;
      case OPT_FORMAT:
        if (strcmp (optarg, "text") == 0)
          opt.format = HI_TEXT;
        else if (strcmp (optarg, "json") == 0)
          opt.format = HI_JSON;
        else
          return bad_usage ("--format is text or json");
        break;
      case OPT_NO_STOP:
        src.no_stop = 1;
        break;
      case OPT_RAW:
        {
          char *at = strrchr (optarg, '@');
          char *end;
          if (!at || at == optarg || src.raw == 64)
            return bad_usage ("--raw needs DUMP@ADDRESS (at most 64)");
          *at = '\0';
          src.raw_base[src.raw] = strtoull (at + 1, &end, 0);
          if (!at[1] || *end)
            return bad_usage ("--raw needs DUMP@ADDRESS");
          src.raw_path[src.raw++] = optarg;
          src.path = src.raw_path[0];
          break;
        }
      case 'h':
        return usage (stdout, 0);
      case OPT_VERSION:
        puts (PACKAGE_STRING);
        return 0;
      default:
        return usage (stderr, 2);
      }
  /* Operands: those getopt moved to the end of argv[0..limit), then the
     rest (`run` and its command). */
  argv += optind;
  argc -= optind;
  if (!hi_tables_valid (tables))
    return bad_usage ("-t takes a list of: leaks, bins, direct, graph, stat");

  const char *cmd = argc > 0 ? argv[0] : NULL;
  if (cmd && strcmp (cmd, "run") == 0)
    {
      argv++;
      if (*argv && strcmp (*argv, "--") == 0)
        argv++;
      if (!*argv)
        return bad_usage ("run needs a command");
      return hi_cmd_run (argv, tables, &opt);
    }
  int modules = 0, block = 0;
  uint64_t block_addr = 0;
  if (cmd && strcmp (cmd, "block") == 0)
    {
      char *end;
      if (argc < 2)
        return bad_usage ("block needs an address");
      block_addr = strtoull (argv[1], &end, 0);
      if (!argv[1][0] || *end)
        return bad_usage ("block needs an address (0x...)");
      block = 1;
      argv += 2;
      argc -= 2;
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
        return bad_usage (modules || cmd ? "which file?" : "no source given");
      if (argc > 2)
        return bad_usage ("too many operands");
      src.path = argv[0];
      src.exe = argc > 1 ? argv[1] : NULL;
      src.name = src.path;
    }
  if (modules)
    return hi_cmd_modules (&src);
  if (block)
    return hi_cmd_block (&src, block_addr, &opt);
  struct hi_model *m = hi_cli_load (&src, NULL);
  if (!m)
    return 1;
  int status = hi_cli_report (&src, m, tables, &opt);
  hi_model_free (m);
  return status;
}
