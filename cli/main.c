/* main.c - heapinspect(1): the table of commands, and dispatch. */
#define _GNU_SOURCE
#include "commands.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The commands named by a word.  `run`'s word ends heapinspect's
   options (the command's own follow it); the others' is the first
   operand after the options. */
static const struct hi_command commands[] = {
  { "run", hi_parse_run, hi_cmd_run,
    HI_CMD_ENDS_OPTIONS | HI_CMD_REPORT_STDERR },
  { "serve", hi_parse_serve, hi_cmd_serve,
    HI_CMD_ENDS_OPTIONS | HI_CMD_TEXT | HI_CMD_REPORT_STDERR },
  { "diff", hi_parse_diff, hi_cmd_diff, 0 },
  { "attach", hi_parse_attach, hi_cmd_attach, HI_CMD_REPORT_STDERR },
  { "detach", hi_parse_detach, hi_cmd_detach,
    HI_CMD_TEXT | HI_CMD_REPORT_STDERR },
  { "flamegraph", hi_parse_flamegraph, hi_cmd_report, 0 },
  { "block", hi_parse_block, hi_cmd_block, HI_CMD_TEXT },
  { "ref", hi_parse_ref, hi_cmd_ref, HI_CMD_TEXT },
  { "peak", hi_parse_peak, hi_cmd_report, 0 },
  { "timeline", hi_parse_table, hi_cmd_report, 0 },
  { "stat", hi_parse_table, hi_cmd_report, 0 },
  { "verify", hi_parse_table, hi_cmd_verify, 0 },
  { "modules", hi_parse_modules, hi_cmd_modules, HI_CMD_TEXT },
};

/* Without a word: the report of one source, or its leak check. */
static const struct hi_command report = { NULL, hi_parse_report,
                                          hi_cmd_report, 0 };
static const struct hi_command leak_check = { NULL, hi_parse_leak_check,
                                              hi_cmd_leak_check, 0 };

/* The command WORD names, among those whose word ends the options or
   not (ENDS); NULL if none. */
static const struct hi_command *
find_command (const char *word, unsigned ends)
{
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if ((commands[i].flags & HI_CMD_ENDS_OPTIONS) == ends
        && strcmp (word, commands[i].name) == 0)
      return &commands[i];
  return NULL;
}

/* Where the options end: the index in ARGV of the first word that ends
   them (`run`) and is not an option's value, before any `--`; ARGC if
   none. */
static int
options_end (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        break;
      if (!hi_option_takes_next (argv[i - 1])
          && find_command (argv[i], HI_CMD_ENDS_OPTIONS))
        return i;
    }
  return argc;
}

/* The options of every command but run, before its operands are read:
   -1 to go on, else the exit status. */
static int
check_options (const struct hi_settings *st, const struct hi_command *cmd)
{
  if (st->run.follow_children)
    return hi_bad_usage ("--follow-children goes with run");
  if ((st->run.duration || st->run.keep)
      && (!cmd || !cmd->name || strcmp (cmd->name, "attach") != 0))
    return hi_bad_usage ("--duration and --keep go with attach");
  if (st->error_options)
    return hi_error_options_usage ();
  if (!hi_tables_valid (st->tables))
    return hi_bad_tables ();
  return hi_check_filters (&st->opt);
}

/* Run CMD with its output on stdout: the report goes to -o FILE's
   temporary, made before anything is read so that a bad name fails at
   once, and replaces FILE only if written whole; else FILE stays.
   Without -o, to standard output, or standard error for a command
   whose standard output is its program's.  The exit status: the
   command's, or 1 if that was 0 and the output failed. */
static int
run_with_output (const struct hi_command *cmd, const struct hi_settings *st)
{
  struct hi_out out;
  if (hi_out_open (&out, st->report,
                   (cmd->flags & HI_CMD_REPORT_STDERR) != 0) != 0)
    return 1;
  if (hi_out_redirect (&out) != 0)
    {
      hi_out_abort (&out);
      return 1;
    }
  int written = 0;
  int status = cmd->run (st, &written);
  if (!written)
    {
      hi_out_abort (&out);
      return status;
    }
  if (hi_out_commit (&out) != 0)
    return status ? status : 1;
  return status;
}

int
main (int argc, char **argv)
{
  struct hi_settings st = HI_SETTINGS_DEFAULT;
  int limit = options_end (argc, argv);
  int r = hi_options_parse (limit, argv, "t:p:o:h", &st);
  if (r >= 0)
    return r;
  const struct hi_command *cmd;
  if (limit < argc)
    {
      if (optind < limit)
        return hi_bad_usage ("run comes before the command; operands "
                             "before it are not allowed");
      cmd = find_command (argv[limit], HI_CMD_ENDS_OPTIONS);
      argc -= limit;
      argv += limit;
    }
  else
    {
      argc -= optind;
      argv += optind;
      cmd = argc > 0 ? find_command (argv[0], 0) : NULL;
      if (!cmd)
        cmd = st.leak_check ? &leak_check : &report;
      if ((r = check_options (&st, cmd)) >= 0)
        return r;
    }
  if ((r = cmd->parse (argc, argv, &st)) >= 0)
    return r;
  if (!(cmd->flags & HI_CMD_TEXT)
      && (r = hi_check_terminal (&st, cmd->flags & HI_CMD_REPORT_STDERR
                                      ? STDERR_FILENO : STDOUT_FILENO)) >= 0)
    return r;
  return run_with_output (cmd, &st);
}
