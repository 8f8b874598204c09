/* commands.h - heapinspect(1)'s subcommands: what the options decide,
   and each command's parse and run. */
#ifndef HI_COMMANDS_H
#define HI_COMMANDS_H

#include "cli.h"

/* Everything the options and operands decide: filled by the options and
   by the command's parse, read by its run. */
struct hi_settings
{
  struct hi_options opt;
  struct hi_source src;      /* the source (diff: -p or --raw of NEW) */
  struct hi_run run;
  const char *tables;
  const char *report;        /* -o FILE */
  int weight_given;          /* --weight was given */
  int leak_check;            /* --leak-check */
  int error_options;         /* --error-exitcode or --errors-for-leak-kinds */
  /* The operands some commands take besides a source: */
  char **command;            /* run: the command and its arguments */
  struct hi_source diff[2];  /* diff: OLD and NEW */
  uint64_t block_addr;       /* block, ref: the address */
};

#define HI_SETTINGS_DEFAULT \
  { .opt = HI_OPTIONS_DEFAULT, .tables = HI_OPT_TABLES_DEFAULT, \
    .run.error_kinds = HI_RUN_ERROR_KINDS_DEFAULT }

/* Parse a command's operands (run's: its options too) into ST and check
   them with the options: ARGV[0] is the command's word (the report,
   which has none: its first operand), ARGC counts from there.  -1 to
   go on, else the exit status, the usage error said. */
typedef int hi_parse_fn (int argc, char **argv, struct hi_settings *st);
/* Run a command with stdout its output (-o FILE's stream, or standard
   error's for HI_CMD_REPORT_STDERR); *WRITTEN: 1 if the output was
   written whole (-o FILE is replaced only then).  The exit status. */
typedef int hi_run_fn (const struct hi_settings *st, int *written);

struct hi_command
{
  const char *name;          /* the word that names it; NULL for none */
  hi_parse_fn *parse;
  hi_run_fn *run;
  unsigned flags;            /* HI_CMD_* */
};
/* Its word ends heapinspect's options: the command's own follow. */
#define HI_CMD_ENDS_OPTIONS 1u
/* It prints text whatever --format says: no check for a terminal. */
#define HI_CMD_TEXT 2u
/* Its standard output is its program's: the report goes to standard
   error unless -o. */
#define HI_CMD_REPORT_STDERR 4u

/* The options (options.c). */
/* Parse the options of ARGV[1..ARGC) into ST with getopt_long,
   OPTSTRING its short options; optind is then the first operand.  -1 to
   go on, else the exit status (--help, --version, a usage error said). */
int hi_options_parse (int argc, char **argv, const char *optstring,
                      struct hi_settings *st);
/* 1 if ARG is an option whose value is the next argument, as
   getopt_long reads it. */
int hi_option_takes_next (const char *arg);

/* Usage and the checks said as usage errors (usage.c).  Each returns
   the exit status, or -1 (the checks) to go on. */
/* The usage text on F; STATUS. */
int hi_usage (FILE *f, int status);
/* MSG, then where the usage is; 2. */
int hi_bad_usage (const char *msg);
/* MSG alone, for a line that says what to give; 2. */
int hi_usage_line (const char *msg);
/* -t named a table that is none: the list of tables; 2. */
int hi_bad_tables (void);
/* --error-exitcode or --errors-for-leak-kinds without run --leak-check;
   2. */
int hi_error_options_usage (void);
/* A command given with --leak-check, which prints its own report; 2. */
int hi_leak_check_command_usage (void);
/* WHAT (diff, --leak-check) prints its own tables, as text or JSON:
   -t, or another format, in ST does not go with it. */
int hi_check_own_report (const struct hi_settings *st, const char *what);
/* The filters and the suppressions file of OPT, before anything is read
   or run (2 for a regular expression that does not compile, 1 for a
   suppressions file that cannot be used). */
int hi_check_filters (const struct hi_options *opt);
/* pprof's gzip and an SVG are refused on a terminal unless -o names a
   file: FD is where the report goes without -o. */
int hi_check_terminal (const struct hi_settings *st, int fd);

/* The operands of a command that reads one source (source.c):
   ARGV[0..ARGC) as FILE [EXECUTABLE], or [ELF] after --raw, or
   [EXECUTABLE] with -p, into ST->src.  WORDS: the command's words as
   typed before its source ("stat", "block 0x1c0"), or NULL for the
   report, which has none; with them a missing source is said with the
   forms that work, and --leak-check does not go with them.  -1 to go
   on, else 2 with the usage error said. */
int hi_source_operands (int argc, char **argv, const char *words,
                        struct hi_settings *st);

/* The commands: each one's parse and run. */
hi_parse_fn hi_parse_run;            /* cmd-run.c */
hi_run_fn hi_cmd_run;
hi_parse_fn hi_parse_attach;         /* cmd-attach.c */
hi_run_fn hi_cmd_attach;
hi_parse_fn hi_parse_detach;         /* cmd-attach.c */
hi_run_fn hi_cmd_detach;
hi_parse_fn hi_parse_diff;           /* cmd-diff.c */
hi_run_fn hi_cmd_diff;
hi_parse_fn hi_parse_block;          /* cmd-block.c */
hi_run_fn hi_cmd_block;
hi_parse_fn hi_parse_ref;            /* cmd-ref.c */
hi_run_fn hi_cmd_ref;
hi_parse_fn hi_parse_modules;        /* cmd-modules.c */
hi_run_fn hi_cmd_modules;
hi_parse_fn hi_parse_leak_check;     /* cmd-leakcheck.c */
hi_run_fn hi_cmd_leak_check;
hi_run_fn hi_cmd_verify;             /* cmd-report.c */
hi_parse_fn hi_parse_report;         /* cmd-report.c */
hi_parse_fn hi_parse_flamegraph;
hi_parse_fn hi_parse_peak;
hi_parse_fn hi_parse_serve;           /* serve.c */
hi_run_fn hi_cmd_serve;
hi_parse_fn hi_parse_table;          /* stat, timeline: the table named */
hi_run_fn hi_cmd_report;

#endif
