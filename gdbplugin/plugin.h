/* plugin.h - what the files of heapinspect-gdb.so share. */
#ifndef HI_GDB_PLUGIN_H
#define HI_GDB_PLUGIN_H

#include "hi-reader.h"

#include <stdio.h>

/* The monitor's arenas kept between heap commands while the inferior
   does not run, so a remote target is read once per stop (cache.c). */
struct hi_gdb_cache;

/* A target over INNER (gdb's memory) that serves the arenas of the root
   at ROOT from the copy an earlier command kept, if the inferior has not
   changed them since, and keeps what it reads otherwise.  Fills *OUT; the
   cache lives in a nameless file gdb holds open, as the plugin itself is
   unloaded after each command.  Returns the handle for
   hi_gdb_cache_close, or NULL (then *OUT is INNER: no caching). */
struct hi_gdb_cache *hi_gdb_cache_open (const struct hi_target *inner,
                                        uint64_t root, struct hi_target *out);

/* Store what was read and free C (may be NULL).  With HEAPINSPECT_GDB_DEBUG
   set in gdb's environment, say on OUT how many bytes were read from the
   inferior and from the cache. */
void hi_gdb_cache_close (struct hi_gdb_cache *c, FILE *out);

#endif
