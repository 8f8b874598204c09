/* plugin.h - what the files of heapinspect-gdb.so share: the request
   (request.c), gdb's inferior as a target (target-gdb.c) and the memory
   map gdb printed (gdb-maps.c), the heap commands (commands.c), the
   channel and the map file (channel.c), the arenas' cache (cache.c) and
   Ctrl-C (interrupt.c).  plugin.c is the JIT reader's entry.  Nothing here is
   thread-safe: gdb calls the plugin from its main thread only. */
#ifndef HI_GDB_PLUGIN_H
#define HI_GDB_PLUGIN_H

#include "hi-reader.h"

#include <gdb/jit-reader.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A parsed request (protocol.h). */
struct hi_gdb_request
{
  char name[16];
  const char *tables;        /* what to print: a table list (in the
                                request's text, or static) */
  int count;                 /* words the user gave */
  int have_addr;
  uint64_t addr;
  struct hi_options opt;
  int export;                /* heap export: FORMAT and FILE words */
  int diff;                  /* heap diff: a FILE word, the snapshot */
  int lost;                  /* heap lost */
  int verify;                /* heap verify: glibc's heap checked */
  int ref;                   /* heap ref: what holds the block at addr */
  int attach;                /* heap attach: load the monitor into the
                                inferior (commands-glibc.c) */
  int glibc;                 /* "# glibc": no monitor's entry answered;
                                glibc's heap is read (commands-glibc.c) */
  int positional;            /* export's or diff's words given so far */
  char file[4096];           /* export's or diff's FILE, as the user
                                named it */
  char error[256];           /* set: say this instead */
  struct hi_thread_regs *regs; /* heap lost: the registers gdb could read,
                                  tid gdb's thread number */
  size_t n_regs, cap_regs;
  uint64_t *threads;         /* heap lost: gdb's number of every thread */
  size_t n_threads, cap_threads;
};

/* Parse the request text TEXT (LEN bytes; TEXT has room for one more, a
   NUL, and is changed) into *R, whose options then point into TEXT.  0
   if it is a request, with R->error set when it is refused; -1 if TEXT
   is none.  Free R with hi_gdb_request_free either way. */
int hi_gdb_request_parse (char *text, size_t len, struct hi_gdb_request *r);
void hi_gdb_request_free (struct hi_gdb_request *r);

/* gdb's inferior: memory through the JIT reader's target_read (the
   symbol callbacks' when a monitor's JIT entry is read, the unwind
   callbacks' for glibc's heap), and the monitor's root, whose address the
   monitor's JIT entry gives (0: none). */
struct hi_gdb_inferior
{
  gdb_target_read *read;
  uint64_t root;
};

/* G as a target in *OUT: its memory, and its root as the symbol
   heapinspect_root.  G must outlive *OUT; nothing to close. */
void hi_gdb_target (struct hi_gdb_inferior *g, struct hi_target *out);

/* The inferior with its memory map, for heap lost and heap block, and
   the time its data is from: the map (and the bulk of the memory) from
   SIDE, the core file gdb has open or the live process the root names,
   when one holds the inferior's root; else the map gdb gave (`info proc
   mappings`, on a remote target), its memory through gdb (INNER). */
struct hi_gdb_mapped
{
  struct hi_target inner;
  struct hi_target side;
  int have_side;             /* SIDE is open */
  struct hi_map_entry *map;  /* gdb's map, when there is no side */
  size_t n_map;
  const struct hi_thread_regs *regs;  /* heap lost's threads, from gdb */
  size_t n_regs;
  struct hi_thread_regs *own_regs;    /* the same, named by the kernel's
                                         thread ids (malloc'd) */
};

/* Fill *M for INNER (root at ROOT), looking for a side, with gdb's map
   (MAPS_TEXT, `info proc mappings` as gdb printed it; may be NULL) when
   there is none.  Close with hi_gdb_mapped_close. */
void hi_gdb_mapped_open (struct hi_gdb_mapped *m, const struct hi_target *inner,
                         uint64_t root, const char *maps_text);
/* The same with no monitor's root: the side is the one holding the bytes
   the inferior holds at the stack pointers of REGS (N_REGS threads), the
   core file gdb has open or the process gdb's map names. */
void hi_gdb_mapped_open_stacks (struct hi_gdb_mapped *m,
                                const struct hi_target *inner,
                                const struct hi_thread_regs *regs,
                                size_t n_regs, const char *maps_text);
/* heap lost's target in *OUT: M's memory, map (none without a side or
   gdb's) and REGS (N_REGS of them, gdb's thread numbers) as its threads,
   renamed with the kernel's thread ids where glibc's thread descriptors
   give them, as heapinspect(1) names them. */
void hi_gdb_mapped_lost (struct hi_gdb_mapped *m,
                         const struct hi_thread_regs *regs, size_t n_regs,
                         struct hi_target *out);
/* heap block's target in *OUT: with a side, M's memory and map and the
   side's threads (a core's; a process opened for its map has none); with
   gdb's map, M's memory and that map; else INNER itself. */
void hi_gdb_mapped_block (struct hi_gdb_mapped *m, struct hi_target *out);
/* The target whose clock tells when the inferior's data is from
   (hi_target_time): the side, else NULL. */
const struct hi_target *hi_gdb_mapped_clock (const struct hi_gdb_mapped *m);
void hi_gdb_mapped_close (struct hi_gdb_mapped *m);

/* Parse TEXT, gdb's `info proc mappings`, into *OUT (malloc'd, *N
   entries, in address order): 0, or -1 if it holds none. */
int hi_gdb_parse_maps (const char *text, struct hi_map_entry **out,
                       size_t *n);

/* Answer request R on the inferior G, printing to OUT: the report, or
   one line saying why not (R->error, among others).  0, or -1 if the
   command failed (its line said why). */
int hi_gdb_run (struct hi_gdb_inferior *g, const struct hi_gdb_request *r,
                FILE *out);
/* The same from glibc's own heap (commands-glibc.c): heap verify, and
   every command when the inferior has no monitor (G's root 0). */
int hi_gdb_run_glibc (struct hi_gdb_inferior *g,
                      const struct hi_gdb_request *r, FILE *out);

/* Have the channel at HI_GDB_CHANNEL_FD and the map file at
   HI_GDB_MAPS_FD: 0, or -1 with why not in WHY (WHY_SIZE bytes). */
int hi_gdb_channel_open (char *why, size_t why_size);
/* If the channel holds HI_GDB_QUIT_TAG, put there the commands that
   stop a failed heap command as a gdb error, and return 1; else 0. */
int hi_gdb_channel_quit (void);
/* Read the pending request into *TEXT (malloc'd; free it after R) and
   parse it into *R (hi_gdb_request_parse): 0, or -1 if none is pending
   (*R then needs no freeing, *TEXT is NULL).  R's options point into
   *TEXT. */
int hi_gdb_channel_request (char **text, struct hi_gdb_request *r);
/* 1 if the pending request is for glibc's heap (its "# glibc" line:
   heap-run.gdb found no monitor to answer it). */
int hi_gdb_channel_glibc (void);
/* The map file's text (malloc'd, *LEN bytes, NUL-terminated), emptied;
   NULL if it holds none. */
char *hi_gdb_channel_maps (size_t *len);
/* Replace the request with TEXT (LEN bytes) as gdb commands that print
   it, then set protocol.h's HI_GDB_ANSWERED and, when the command
   FAILED, stop it as a gdb error; a line on stderr if it cannot be
   written. */
void hi_gdb_channel_answer (const char *text, size_t len, int failed);
/* The gdb commands an answer runs after its lines (heap attach's calls
   into the inferior), malloc'd by the command, NULL for none: taken and
   freed by hi_gdb_channel_answer. */
extern char *hi_gdb_answer_script;

/* Ctrl-C while the plugin works (interrupt.c): SIGINT is held back from
   gdb (whose handler would make its own functions, which the plugin
   calls, unwind through it) and looked for now and then. */
/* Hold SIGINT back; undo with hi_gdb_interrupt_end. */
void hi_gdb_interrupt_begin (void);
/* 1 once a SIGINT is pending (it stays pending: gdb sees it at the end
   and stops the command with "Quit"); cheap enough for every read. */
int hi_gdb_interrupted (void);
/* 1 if a SIGINT is pending now (a system call each time). */
int hi_gdb_interrupt_pending (void);
/* Let SIGINT through again: a pending one reaches gdb now. */
void hi_gdb_interrupt_end (void);

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
