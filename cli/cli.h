/* cli.h - shared declarations of heapinspect(1). */
#ifndef HI_CLI_H
#define HI_CLI_H

#include "analysis.h"

/* Where the data comes from. */
struct hi_source
{
  const char *path;          /* snapshot or core file, or raw dump */
  const char *exe;           /* executable given on the command line */
  long pid;                  /* -p PID, or 0 */
  int no_stop;               /* --no-stop */
  const char *raw_path[64];  /* --raw FILE@ADDRESS, repeatable */
  uint64_t raw_base[64];
  int raw;                   /* how many */
  const char *name;          /* for messages */
};

/* Print "heapinspect: SOURCE: MESSAGE" on stderr. */
void hi_cli_error (const char *source, const char *message);

/* Open SRC and load its model; on failure print the error and return
   NULL.  Notes (an incomplete report) go to stderr.  With KEEP, the
   target stays open there for the caller to close. */
struct hi_model *hi_cli_load (const struct hi_source *src,
                              struct hi_target *keep);

/* Print the tables named in TABLES (comma-separated) of M to stdout.
   Returns the exit status. */
int hi_cli_report (const struct hi_source *src, struct hi_model *m,
                   const char *tables, const struct hi_options *opt);

int hi_cmd_modules (const struct hi_source *src);
/* `block ADDR SOURCE`: the block of ours holding ADDR; 1 if none. */
int hi_cmd_block (const struct hi_source *src, uint64_t addr,
                  const struct hi_options *opt);
int hi_cmd_run (char **argv, const char *tables,
                const struct hi_options *opt);

#endif
