/* symbolize.h - names for code addresses and sizes, from the modules the
   monitor recorded, with elfutils libdwfl (separate debuginfo found by
   build-id or debuglink). */
#ifndef HI_SYMBOLIZE_H
#define HI_SYMBOLIZE_H

#include "hi-reader.h"

struct hi_symbolizer;

/* A symbolizer for the modules of M.  EXE, if not NULL, replaces the path
   recorded for the main executable (the first module).  Never fails for
   want of files: modules that cannot be opened, or whose build-id differs
   from the one recorded, are left unsymbolized.  NULL if out of memory. */
struct hi_symbolizer *hi_symbolizer_new (const struct hi_model *m,
                                         const char *exe);
void hi_symbolizer_free (struct hi_symbolizer *s);

/* What is known of the code at ADDR. Strings belong to the symbolizer. */
struct hi_code
{
  const char *function;    /* demangled, or NULL if unknown */
  uint64_t function_offset;
  const char *module;      /* base name of the module, or NULL */
  uint64_t module_offset;  /* ADDR - module bias */
  const char *file;        /* source file, or NULL (hi_symbolize_line) */
  int line;
};
void hi_symbolize (struct hi_symbolizer *s, uint64_t addr, struct hi_code *out);
/* Also the source file and line of ADDR (slower: reads line tables). */
void hi_symbolize_line (struct hi_symbolizer *s, uint64_t addr,
                        struct hi_code *out);

/* Names of the program's struct, union, class and typedef types whose
   size is SIZE (0..HI_BIN_MAX), joined by ", ", or NULL if none.  From
   the main executable's DWARF. */
const char *hi_types_of_size (struct hi_symbolizer *s, uint64_t size);

/* How many recorded modules could not be used (for a note). */
unsigned hi_symbolizer_missing (const struct hi_symbolizer *s);

#endif
