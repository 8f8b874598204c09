/* plugin.h - what the files of heapinspect-gdb.so share: the request
   (request.c), gdb's inferior as a target (target-gdb.c), the heap
   commands (commands.c), the channel (channel.c) and the arenas' cache
   (cache.c).  plugin.c is the JIT reader's entry.  Nothing here is
   thread-safe: gdb calls the plugin from its main thread only. */
#ifndef HI_GDB_PLUGIN_H
#define HI_GDB_PLUGIN_H

#include "hi-reader.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A parsed request (protocol.h). */
struct hi_gdb_request
{
  char name[16];
  char tables[64];           /* what to print: a table list, or "block" */
  int have_addr;
  uint64_t addr;
  struct hi_options opt;
  int export;                /* heap export: FORMAT and FILE words */
  int diff;                  /* heap diff: a FILE word, the snapshot */
  int positional;            /* export's or diff's words given so far */
  char file[4096];           /* export's or diff's FILE, as the user
                                named it */
  char error[256];           /* set: say this instead */
  struct hi_thread_regs *regs; /* heap lost: each thread's registers */
  size_t n_regs, cap_regs;
};

/* Parse the request text TEXT (LEN bytes; TEXT has room for one more, a
   NUL, and is changed) into *R, whose options then point into TEXT.  0
   if it is a request, with R->error set when it is refused; -1 if TEXT
   is none.  Free R with hi_gdb_request_free either way. */
int hi_gdb_request_parse (char *text, size_t len, struct hi_gdb_request *r);
void hi_gdb_request_free (struct hi_gdb_request *r);

/* gdb's inferior: memory through the JIT reader's target_read, and the
   monitor's root, whose address the monitor's JIT entry gives. */
struct gdb_symbol_callbacks;
struct hi_gdb_inferior
{
  struct gdb_symbol_callbacks *cb;
  uint64_t root;
};

/* G as a target in *OUT: its memory, and its root as the symbol
   heapinspect_root.  G must outlive *OUT; nothing to close. */
void hi_gdb_target (struct hi_gdb_inferior *g, struct hi_target *out);

/* The inferior with its memory map, for heap lost and heap block: the
   map (and the bulk of the memory) from SIDE, the core file gdb has open
   or the live process the root names, when one holds the inferior's
   root; the rest through gdb (INNER). */
struct hi_gdb_mapped
{
  struct hi_target inner;
  struct hi_target side;
  int have_side;             /* SIDE is open */
  const struct hi_thread_regs *regs;  /* heap lost's threads, from gdb */
  size_t n_regs;
};

/* Fill *M for INNER (root at ROOT), whose threads are REGS (N_REGS of
   them; kept, not copied), looking for a side.  Close with
   hi_gdb_mapped_close. */
void hi_gdb_mapped_open (struct hi_gdb_mapped *m, const struct hi_target *inner,
                         uint64_t root, const struct hi_thread_regs *regs,
                         size_t n_regs);
/* heap lost's target in *OUT: M's memory, map (none without a side) and
   REGS as its threads. */
void hi_gdb_mapped_lost (struct hi_gdb_mapped *m, struct hi_target *out);
/* heap block's target in *OUT: with a side, M's memory and map and the
   side's threads (a core's; a process opened for its map has none);
   without one, INNER itself. */
void hi_gdb_mapped_block (struct hi_gdb_mapped *m, struct hi_target *out);
void hi_gdb_mapped_close (struct hi_gdb_mapped *m);

/* Answer request R on the inferior G, printing to OUT: the report, or
   one line saying why not (R->error, among others). */
void hi_gdb_run (struct hi_gdb_inferior *g, const struct hi_gdb_request *r,
                 FILE *out);

/* Have the channel at HI_GDB_CHANNEL_FD: 0, or -1 with why not in WHY
   (WHY_SIZE bytes). */
int hi_gdb_channel_open (char *why, size_t why_size);
/* Read the pending request into TEXT (SIZE bytes) and parse it into *R
   (hi_gdb_request_parse): 0, or -1 if none is pending (*R then needs no
   freeing).  R's options point into TEXT: it must outlive R. */
int hi_gdb_channel_request (char *text, size_t size,
                            struct hi_gdb_request *r);
/* Replace the request with TEXT (LEN bytes) as gdb commands that print
   it; a line on stderr if it cannot be written. */
void hi_gdb_channel_answer (const char *text, size_t len);

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
