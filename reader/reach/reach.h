/* reach.h - the reachability scan (issue 15): which live blocks of ours
   can still be reached from the target's roots, in valgrind memcheck's
   four classes, and the --leak-check report built from it.  Shared by
   heapinspect(1) (cores, raw dumps, live processes, `run --leak-check`)
   and the gdb plugin (`heap lost`).

   What counts as a root (memcheck's root set, as a core or a stopped
   process shows it):
   - every thread's general registers (hi_target_ops.thread_regs);
   - each live thread's stack, from its stack pointer minus the 128-byte red
     zone up to the end of the mapping that holds the stack pointer; at
     `run --leak-check`'s exit stop, the exiting thread's from exit()'s
     caller's frame, with that caller's callee-saved registers as roots
     (exit()'s own frames hold none of the program's pointers, only
     stale words of its popped frames);
   - each live thread's dynamic TLS blocks (a dlopen'd module's TLS,
     which glibc allocates with malloc and reaches only through the
     thread's DTV), as libthread_db finds them: the block is reachable
     and its words are roots (LeakSanitizer's answer; memcheck sees them
     through the DTV, a block pointed to at its second word, so
     possibly lost, with what they point to);
   - every other readable and writable mapping (the loaded objects'
     .data and .bss, TLS blocks, the program's own anonymous mappings,
     shared memory; not devices but /dev/zero), except malloc's own heap
     memory (the brk heap, the used part of each non-main arena's heap,
     each mmapped chunk: free chunks keep stale pointers), the monitor's
     arenas, glibc's main arena state in libc's data, and the stacks of
     exited threads glibc keeps for reuse (reach-stacks.c).  Read-only
     memory (relro once protected) is not a root, as in memcheck.
   A word is a pointer if it is 8-aligned.  A word equal to a block's
   user pointer is a start pointer; one inside its user bytes (not at its
   start) an interior pointer.  Blocks reached are scanned in turn, their
   user bytes only.  The classes follow memcheck's mc_leakcheck.c
   exactly (see reach.c). */
#ifndef HI_REACH_H
#define HI_REACH_H

#include <stdint.h>
#include <stdio.h>

#include "hi-reader.h"
#include "model/model.h"

/* One chain's blocks of one class: the rows of the leak-check table. */
struct hi_reach_site
{
  uint32_t site;             /* the allocating chain (model's site id) */
  uint32_t cls;              /* enum hi_reach_class */
  struct hi_reach_figure fig;
};

/* One live block, as the scan classified it. */
struct hi_reach_block
{
  uint64_t user;             /* the user pointer */
  uint64_t size;             /* requested bytes */
  uint32_t site;
  uint32_t cls;              /* enum hi_reach_class */
};

/* A live block whose redzone (format.h: root.redzone bytes of
   HI_REDZONE_BYTE right after its user bytes) was written: an overflow
   the monitor sees only when the block is freed, and this one never
   was. */
struct hi_reach_redzone
{
  uint64_t user;             /* the user pointer */
  uint64_t size;             /* requested bytes */
  uint64_t offset;           /* of the first changed byte, from USER
                                (SIZE or more) */
  uint32_t site;
  uint32_t unused;
};

/* What the scan could not use; the report says each that is not 0. */
struct hi_reach_skipped
{
  uint64_t mappings;         /* writable mappings the target does not
                                hold (left out of the core, torn) ... */
  uint64_t mapping_bytes;    /* ... and their bytes: not scanned as roots,
                                no blocks found there */
  uint64_t bad_headers;      /* headers that look like ours but name a
                                chain out of range or a size past the
                                end of their mapping: not blocks */
  uint64_t stale_headers;    /* headers valid for their address of
                                blocks given back to malloc (in a chunk
                                glibc holds free, or more of a chain than
                                the monitor counts live; reach-stale.c
                                says which): not blocks */
  uint64_t unreadable_bytes; /* bytes of roots or reached blocks the
                                target could not give (a torn core, a
                                block running past a mapping's end) */
  uint64_t missing_blocks;   /* live blocks the monitor's counters have
                                that the search did not find (a header
                                overwritten, a mapping not in the core)
                                ... */
  uint64_t missing_bytes;    /* ... and their bytes: in no class */
  uint64_t threads;          /* threads whose stack pointer is in no
                                mapping the target holds: their stack
                                not scanned (registers still are) */
  int no_threads;            /* the target gives no threads (a raw dump,
                                a process read with --no-stop): no
                                registers and no stacks as roots, so
                                blocks only they reach show as lost */
  int no_mappings;           /* the target gives no memory map (a raw
                                dump without one): nothing was scanned */
};

/* The result of a scan; owned by the caller, freed with hi_reach_free. */
struct hi_reach
{
  struct hi_reach_totals totals;
  /* Every live block found, in address order; site HI_SITE_INTERNAL
     blocks (the monitor's own) are neither here nor counted. */
  struct hi_reach_block *blocks;
  uint64_t n_blocks;
  /* Without the monitor: each block's first word as the scan read it
     (0 if not read), for its C++ type by its vtable; NULL with it. */
  uint64_t *first_words;
  /* Per (class, site), every pair that has blocks: by class (definitely
     lost first), then most bytes first, then site id. */
  struct hi_reach_site *sites;
  uint64_t n_sites;
  struct hi_reach_skipped skipped;
  /* The root set scanned, for the summary and for tests. */
  uint64_t threads;          /* threads whose registers were used */
  uint64_t root_bytes;       /* bytes of memory scanned as roots (stacks
                                and mappings) */
  uint64_t scanned_bytes;    /* bytes of reached blocks scanned */
  uint64_t heap_bytes;       /* bytes of the mappings found to be
                                malloc's heap memory (not roots) */
  uint64_t dead_stacks;      /* exited threads' stacks glibc keeps mapped
                                (its stack cache): not roots */
  uint64_t dead_stack_bytes; /* ... and their bytes */
  uint64_t tls_blocks;       /* live threads' TLS blocks that are heap
                                blocks (dlopen'd modules', reached only
                                through a DTV): roots, and reachable */
  int thread_db;             /* 1: which threads live came from glibc's
                                libthread_db; 0: from the registers */
  const char *thread_db_why; /* why not, where the reader would have
                                asked it (a static string), or NULL */
  int dead_by_registers;     /* without it: the registers told which
                                stacks are live threads' */
  /* Held at `run --leak-check`'s exit stop (the monitor's record, see
     heapinspect/leak-stop.h): the thread that called exit(), whose stack is a
     root from exit()'s caller's frame up, and the bytes of exit()'s own
     frames below it left out.  0 and 0 otherwise. */
  uint64_t exit_tid;
  uint64_t exit_frames_bytes;
  /* With guard redzones (root.redzone > 0): the live blocks whose
     redzone was written, in address order. */
  /* An attached monitor's target: 1 when glibc's in-use chunks that
     hold no block of the monitor's (made before the attach, or by the
     loader or glibc itself) are blocks of the scan too, of site
     m->n_sites (no chain), their usable sizes; 0 and foreign_why (a
     static phrase) when they could not be read. */
  int foreign;
  uint32_t foreign_site;     /* their site: m->n_sites */
  const char *foreign_why;
  uint32_t redzone;          /* root.redzone: bytes checked per block */
  struct hi_reach_redzone *redzones;
  uint64_t n_redzones;
};

/* The same scan of a target without the monitor: its blocks are the
   in-use chunks of glibc's heap G (their usable sizes), all of site 0. */
struct hi_glibc;
hi_status hi_reach_scan_glibc (const struct hi_target *t,
                               const struct hi_glibc *g,
                               struct hi_reach **out);

/* Scan flags. */
#define HI_REACH_NO_REGISTERS 1u  /* ignore the threads' registers (not
                                     memcheck's; for experiments) */

/* Scan target T, whose monitor data is model M (read from T), with
   FLAGS (HI_REACH_*, 0 for memcheck's rules): find every live block of
   ours, the roots, and classify each block.  T must stay as it is during
   the scan (a live process stopped: scan before hi_target_finish).
   HI_OK with *OUT set (free it with hi_reach_free), even when parts were
   skipped (*OUT's skipped says what); HI_E_NO_MEMORY for a target without
   a memory map (T->ops->mapping NULL: a snapshot file); HI_E_NOMEM.
   Never prints. */
hi_status hi_reach_scan (const struct hi_target *t, const struct hi_model *m,
                         unsigned flags, struct hi_reach **out);
void hi_reach_free (struct hi_reach *r);

/* The classes' figures of R's blocks not made through an attached
   monitor (R->foreign; all 0 without). */
void hi_reach_foreign_totals (const struct hi_reach *r,
                              struct hi_reach_totals *out);

/* What R skipped, as one phrase ("2 mappings (8.0K) not in the core, 1
   damaged header"), into BUF of SIZE bytes; "" when nothing was. */
void hi_reach_skipped_text (const struct hi_reach *r, char *buf,
                            size_t size);

#endif
