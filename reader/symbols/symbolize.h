/* symbolize.h - names for code addresses and sizes, from the modules the
   monitor recorded, with elfutils libdwfl (separate debuginfo found by
   build-id or debuglink). */
#ifndef HI_SYMBOLIZE_H
#define HI_SYMBOLIZE_H

#include "hi-reader.h"

struct hi_symbolizer;

/* A symbolizer for the modules of M.  EXE, if not NULL, replaces the path
   recorded for the main executable (the first module); a relative EXE is
   taken from the current directory.  Never fails for want of files:
   modules that cannot be opened (only regular files are), or whose
   build-id differs from the one recorded, are shown as module+offset.
   M must outlive the symbolizer.  NULL if out of memory. */
struct hi_symbolizer *hi_symbolizer_new (const struct hi_model *m,
                                         const char *exe);
void hi_symbolizer_free (struct hi_symbolizer *s);

/* What is known of one function's part in the code at an address.
   Strings belong to the symbolizer. */
struct hi_code
{
  const char *function;    /* the name a user knows it by (the canonical
                              alias, clone suffixes dropped, demangled),
                              or NULL if unknown */
  const char *linkage_name; /* FUNCTION as the module names it: the ELF
                              symbol or DWARF linkage name (mangled for
                              C++), or NULL if unknown */
  uint64_t function_offset; /* from the start of its code (a clone's or
                              a cold part's own start); 0 if inlined */
  const char *module;      /* base name of the module, or NULL */
  uint64_t module_offset;  /* ADDR - module bias */
  uint64_t code_start;     /* no FUNCTION: the module offset where the
                              function's code starts (from .eh_frame), */
  int has_start;           /* if known */
  const char *file;        /* source file as DWARF names it, or NULL */
  int line;                /* its line, 0 if unknown */
  int inlined;             /* 1: inlined into the next entry */
};

/* The functions whose code is at ADDR, innermost first: one, or more
   when code was inlined there, the out-of-line function last.  LINES:
   read DWARF for source lines and inlined instances (else one entry, no
   line).  Fills OUT[0..n) (MAX >= 1 entries) and returns n >= 1. */
size_t hi_symbolize_frames (struct hi_symbolizer *s, uint64_t addr,
                            int lines, struct hi_code *out, size_t max);

/* Names of the program's struct, union, class and typedef types whose
   size is SIZE (0..HI_BIN_MAX), joined by ", ", or NULL if none.  From
   the main executable's DWARF. */
const char *hi_types_of_size (struct hi_symbolizer *s, uint64_t size);

/* The name of the data symbol starting exactly at ADDR (demangled, as
   hi_clean_name gives it), or NULL.  Owned by the symbolizer. */
const char *hi_symbolize_data (struct hi_symbolizer *s, uint64_t addr);

/* How many recorded modules could not be used (for a note). */
unsigned hi_symbolizer_missing (const struct hi_symbolizer *s);

#endif
