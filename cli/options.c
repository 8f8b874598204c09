/* options.c - heapinspect(1)'s options: the getopt_long table and what
   each option sets. */
#define _GNU_SOURCE
#include "config.h"
#include "commands.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's values: the CLI's own long options, then the report
   options (HI_REPORT_OPTIONS) from OPT_REPORT on, handed to
   hi_option_set. */
enum { OPT_NO_STOP = 256, OPT_RAW, OPT_VERSION, OPT_FOLLOW,
       OPT_LEAK_CHECK, OPT_DURATION, OPT_KEEP, OPT_REPORT = 512 };
/* run --leak-check's exit status (valgrind's words). */
enum { OPT_ERROR_EXITCODE = 400, OPT_ERROR_KINDS };
static const struct option longopts[] = {
  { "no-stop", no_argument, NULL, OPT_NO_STOP },
  { "raw", required_argument, NULL, OPT_RAW },
  { "follow-children", no_argument, NULL, OPT_FOLLOW },
  { "leak-check", no_argument, NULL, OPT_LEAK_CHECK },
  { "duration", required_argument, NULL, OPT_DURATION },
  { "keep", no_argument, NULL, OPT_KEEP },
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

/* -t, -p, -o, or --NAME (in full or a prefix of one option only) of an
   option with a required value, without "=VALUE". */
int
hi_option_takes_next (const char *arg)
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

/* A value ARG an option refuses: one line, WHAT it takes and what it
   was given, as the report options say it; 2. */
static int
refused_value (const char *what, const char *arg)
{
  char msg[320];
  snprintf (msg, sizeof msg, "%s, not '%.200s'", what, arg);
  return hi_usage_line (msg);
}

/* --raw DUMP@ADDRESS (ARG, cut at its last '@'), one more dump of SRC.
   -1 to go on, else 2. */
static int
parse_raw (char *arg, struct hi_source *src)
{
  char *at = strrchr (arg, '@');
  char *end;
  if (!at || at == arg || src->raw == 64)
    return hi_bad_usage ("--raw needs DUMP@ADDRESS (at most 64)");
  *at = '\0';
  src->raw_base[src->raw] = strtoull (at + 1, &end, 0);
  if (!at[1] || *end)
    return hi_bad_usage ("--raw needs DUMP@ADDRESS");
  src->raw_path[src->raw++] = arg;
  src->path = src->raw_path[0];
  return -1;
}

/* A report option (HI_REPORT_OPTIONS), C its getopt_long value: -1 to go
   on, else 2 with one line saying what to give (no usage after it). */
static int
apply_report_option (int c, const char *arg, struct hi_settings *st)
{
  st->weight_given |= c == OPT_REPORT + HI_ROPT_WEIGHT;
  char err[256];
  if (hi_option_set (&st->opt, hi_option_name (c - OPT_REPORT), arg, err,
                     sizeof err) != 0)
    return hi_usage_line (err);
  return -1;
}

/* run --leak-check's options: -1 to go on, else 2. */
static int
apply_error_option (int c, const char *arg, struct hi_settings *st)
{
  st->error_options = 1;
  if (c == OPT_ERROR_KINDS)
    {
      if (parse_leak_kinds (arg, &st->run.error_kinds) != 0)
        return hi_usage_line ("--errors-for-leak-kinds takes definite, "
                              "indirect, possible, reachable "
                              "(comma-separated), all or none");
      return -1;
    }
  long n;
  if (parse_number (arg, &n) != 0 || n > 255)
    return hi_usage_line ("--error-exitcode takes a number from 0 to 255");
  st->run.error_exitcode = (int) n;
  return -1;
}

/* Apply option C (argument ARG); -1 to go on, else the exit status. */
static int
apply_option (int c, char *arg, struct hi_settings *st)
{
  if (c >= OPT_REPORT && c < OPT_REPORT + HI_N_REPORT_OPTIONS)
    return apply_report_option (c, arg, st);
  switch (c)
    {
    case 't':
      st->tables = arg;
      st->opt.tables_given = 1;
      return -1;
    case 'o':
      if (!*arg)
        return hi_bad_usage ("-o needs a file name");
      st->report = arg;
      return -1;
    case 'p':
      if (parse_number (arg, &st->src.pid) != 0 || st->src.pid <= 0)
        return refused_value ("-p takes a process id", arg);
      return -1;
    case OPT_NO_STOP:
      st->src.no_stop = 1;
      return -1;
    case OPT_FOLLOW:
      st->run.follow_children = 1;
      return -1;
    case OPT_DURATION:
      if (parse_number (arg, &st->run.duration) != 0 || st->run.duration <= 0)
        return refused_value ("--duration takes a number of seconds", arg);
      return -1;
    case OPT_KEEP:
      st->run.keep = 1;
      return -1;
    case OPT_LEAK_CHECK:
      st->leak_check = st->run.leak_check = 1;
      return -1;
    case OPT_ERROR_EXITCODE:
    case OPT_ERROR_KINDS:
      return apply_error_option (c, arg, st);
    case OPT_RAW:
      return parse_raw (arg, &st->src);
    case 'h':
      return hi_usage (stdout, 0);
    case OPT_VERSION:
      puts (PACKAGE_STRING);
      return 0;
    default:
      /* getopt_long said what was wrong in its line. */
      fputs ("Try 'heapinspect --help'.\n", stderr);
      return 2;
    }
}

int
hi_options_parse (int argc, char **argv, const char *optstring,
                  struct hi_settings *st)
{
  int c, r;
  while ((c = getopt_long (argc, argv, optstring, longopts, NULL)) != -1)
    if ((r = apply_option (c, optarg, st)) >= 0)
      return r;
  return -1;
}
