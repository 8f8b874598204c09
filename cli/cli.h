/* cli.h - shared declarations of heapinspect(1)'s subcommands. */
#ifndef HI_CLI_H
#define HI_CLI_H

#include "hi-reader.h"

/* Print "heapinspect: SOURCE: MESSAGE" on stderr. */
void hi_cli_error (const char *source, const char *message);

/* Open SOURCE (a snapshot file) and load its model; on failure print the
   error and return NULL. */
struct hi_model *hi_cli_load (const char *source);

int hi_cmd_stat (int argc, char **argv);
int hi_cmd_modules (int argc, char **argv);

#endif
