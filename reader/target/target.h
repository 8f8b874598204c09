/* target.h - the targets' internal helpers: symbols in mapped files, a
   core's bytes in place. */
#ifndef HI_TARGET_H
#define HI_TARGET_H

#include "hi-reader.h"

/* For a core file opened by hi_target_open_core: the LEN bytes of
   memory at ADDR as they lie in the file (libelf's read-only mapping of
   it), if one segment holds them all; NULL otherwise, and for other
   targets.  Valid until T is closed.  For scans that read most of a
   core (the reachability scan): no copy.  The file must not shrink
   while it is read this way (a SIGBUS). */
const void *hi_target_core_view (const struct hi_target *t, uint64_t addr,
                                 size_t len);

/* The bytes target T really holds: the most a model may copy out of it
   (model/budget.c).  A snapshot's regions (disjoint, inside the file),
   the bytes of a core's PT_LOAD segments in the file (never more than
   the file), a live process's readable mappings, a dump's files;
   UINT64_MAX for a host's own target (gdb's), which states none.  The
   hi_target_KIND_backed functions answer for their kind: 0 and *BYTES,
   or -1 if T is another kind. */
uint64_t hi_target_backed (const struct hi_target *t);
int hi_target_snapshot_backed (const struct hi_target *t, uint64_t *bytes);
int hi_target_core_backed (const struct hi_target *t, uint64_t *bytes);
int hi_target_process_backed (const struct hi_target *t, uint64_t *bytes);
int hi_target_raw_backed (const struct hi_target *t, uint64_t *bytes);

/* A file mapped into a process: where, from which offset, which file. */
struct hi_mapping
{
  uint64_t start, end, offset;
  const char *path;
};

/* Find data symbol NAME in the ELF files of MAPS (the executable EXE
   too, if given, at its link-time address) and compute its address in
   the process.  0 on success, -1 if no file defines it. */
int hi_find_symbol_in_mappings (const struct hi_mapping *maps, size_t n,
                                const char *exe, const char *name,
                                uint64_t *addr);

#endif
