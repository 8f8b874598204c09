/* reach-int.h - what the reachability scan's files share (reach.c,
   reach-map.c, reach-blocks.c, reach-mark.c); not for other callers. */
#ifndef HI_REACH_INT_H
#define HI_REACH_INT_H

#include "reach/reach.h"

/* An address range [start, end). */
struct hi_range
{
  uint64_t start, end;
};

/* A growing array of ranges. */
struct hi_ranges
{
  struct hi_range *v;
  size_t n, cap;
};
int hi_ranges_add (struct hi_ranges *r, uint64_t start, uint64_t end);
/* Sort R and merge ranges that overlap or touch. */
void hi_ranges_normalize (struct hi_ranges *r);
void hi_ranges_free (struct hi_ranges *r);

#define HI_SCAN_SLOT ((uint64_t) 1 << 16)
#define HI_SCAN_SLOTS 64u

/* The cache slot holding ADDR. */
static inline size_t
hi_scan_slot (uint64_t addr)
{
  return (size_t) (addr / HI_SCAN_SLOT) % HI_SCAN_SLOTS;
}

/* A heap span: a stretch of memory holding blocks (a heap mapping's
   part from its first block to its last block's end), with an index of
   its pages: page[i] is the first block ending after the page's start. */
struct hi_span
{
  uint64_t start, end;
  uint32_t first, last;        /* blocks [first, last) lie here */
  uint32_t *page;              /* (end - start + 4095) / 4096 entries */
};

/* A live block: its user pointer and size (0 stays 0; the pointer
   search takes it as 1 byte, as memcheck does), its site, and memcheck's
   marking state; one record, so a pointer's lookup and marking touch one
   cache line. */
struct hi_sblock
{
  uint64_t start, size;
  uint32_t site;
  uint8_t state;               /* HI_ST_* */
  uint8_t pending;             /* on the mark stack */
  /* The size asked for is in [size - slack, size]: 0 for the monitor's
     blocks (it records it), more for a glibc chunk's usable size
     (reach-chunks.c): memcheck's heuristics compare with the size asked
     for. */
  uint16_t slack;
};

/* The scan's state. */
struct hi_scan
{
  const struct hi_target *t;
  const struct hi_model *m;
  struct hi_reach *r;          /* the result being filled */
  /* The target's mappings, in address order. */
  struct hi_map_entry *maps;
  size_t n_maps;
  /* Its threads. */
  struct hi_thread_regs *threads;
  size_t n_threads;
  /* The monitor's exit stop record (leak-stop.h), when the target is
     held there: thread exit_thread's stack is a root from exit_cfa up,
     and exit_regs[0, n_exit_regs) are roots.  exit_thread is
     SIZE_MAX when there is no such record. */
  size_t exit_thread;
  uint64_t exit_cfa;
  uint64_t exit_regs[6];
  unsigned n_exit_regs;
  /* Memory that is neither root nor searched for blocks: the monitor's
     arenas (normalized). */
  struct hi_ranges monitor;
  /* Malloc's heap memory found by the block search (normalized): not
     roots. */
  struct hi_ranges heap;
  /* The live blocks, by address. */
  struct hi_sblock *b;
  uint32_t n_blocks, cap_blocks;
  /* Where blocks are, for the pointer search. */
  struct hi_span *spans;
  size_t n_spans;
  uint64_t lo, hi;             /* all blocks lie in [lo, hi) */
  /* Marking. */
  uint32_t *stack;             /* the mark stack */
  uint32_t top;
  uint32_t *batch;              /* the mark stack's blocks being scanned */
  uint64_t *first;             /* without the monitor: each block's first
                                  word as its scan read it (0: not read),
                                  for its C++ type */
  /* A cache of target memory in HI_SCAN_SLOT-byte pieces (aligned),
     direct-mapped, to read blocks and roots in large pieces. */
  unsigned char *cache;        /* HI_SCAN_SLOTS pieces */
  uint64_t slot_lo[HI_SCAN_SLOTS], slot_hi[HI_SCAN_SLOTS]; /* held bytes */
  uint64_t slot_gen[HI_SCAN_SLOTS]; /* raised each time a slot is read */
  unsigned char scratch[16];
  /* hi_scan_edges' and hi_scan_block_edges' visitors (NULL: marking):
     a word at AT of value V pointing into block I; a register REG (an
     index of user_regs_struct, or HI_SCAN_EXIT_REG + k for exit()'s
     caller's) of thread THREAD (an index of threads) pointing into
     block I. */
  void (*edge) (void *ctx, uint64_t at, uint64_t v, uint32_t i);
  void (*edge_reg) (void *ctx, size_t thread, unsigned reg, uint64_t v,
                    uint32_t i);
  void *edge_ctx;
  /* The host's interrupt (hi_reach_set_interrupt): asked every so many
     steps; STOP once it said so, and every loop ends. */
  uint32_t steps;
  int stop;
};

/* reach.c: 1 once the scan is to stop (the host's check, asked once
   every HI_SCAN_CHECK_EVERY calls). */
#define HI_SCAN_CHECK_EVERY 4096u
int hi_scan_stop (struct hi_scan *s);

/* memcheck's Reachedness (the order matters: an upgrade raises it). */
enum { HI_ST_UNREACHED, HI_ST_INDIRECT, HI_ST_POSSIBLE, HI_ST_REACHABLE };

/* reach-map.c: read T's mappings and threads into S, and the monitor's
   arenas from S->m.  HI_E_NO_MEMORY if T has no mapping op, HI_E_NOMEM. */
hi_status hi_scan_map (struct hi_scan *s);
/* The mapping holding ADDR, or NULL (binary search). */
const struct hi_map_entry *hi_scan_mapping_of (const struct hi_scan *s,
                                               uint64_t addr);
/* Whether [START, END) is one a root scan may read: a readable and
   writable mapping, not a device's. */
int hi_scan_map_is_root (const struct hi_map_entry *e);
/* Bytes of S's target at [ADDR, ADDR + LEN), not crossing a boundary of
   HI_SCAN_SLOT bytes (else LEN at most 16), read through the cache; NULL
   if any is missing.  Reads never pass the held mapping holding ADDR. */
const unsigned char *hi_scan_read (struct hi_scan *s, uint64_t addr,
                                   size_t len);

/* reach-blocks.c: find every live block in S's mappings (their held
   parts, the monitor's arenas left out), the heap memory holding them,
   and index them.  HI_E_NOMEM. */
hi_status hi_scan_blocks (struct hi_scan *s);
/* (Re)build S's index of its blocks (spans over S->heap), after the
   search or after blocks were taken out.  HI_E_NOMEM. */
hi_status hi_scan_index (struct hi_scan *s);
/* The block ADDR points into (its start or inside, a 0-byte block
   covering its start), or -1. */
int64_t hi_scan_find (const struct hi_scan *s, uint64_t addr);

/* reach-glibc.c: add the main arena's malloc_state (found in a file's
   data mapping by its bins) to EXCLUDE: glibc's pointers into the heap
   are not roots.  HI_E_NOMEM. */
hi_status hi_scan_glibc (struct hi_scan *s, struct hi_ranges *exclude);

/* reach-chunks.c: the blocks and heap memory of S from glibc's heap G
   (a target without the monitor), indexed.  HI_E_NOMEM. */
struct hi_glibc;
hi_status hi_scan_glibc_blocks (struct hi_scan *s, const struct hi_glibc *g);

/* reach-chunks.c: add to S (its monitor's blocks found, M attached)
   the in-use chunks of glibc's heap G that hold no block of the
   monitor's, of site M->n_sites, and their heaps; index again.
   HI_E_NOMEM. */
hi_status hi_scan_foreign_blocks (struct hi_scan *s, const struct hi_glibc *g);

/* reach-report-glibc.c: the blocks of RC of SITE (UINT32_MAX: all) by
   class and usable size, as the table KEY, TITLE, LEGEND of R (20 rows
   a class, OPT's --limit).  HI_OK or HI_E_NOMEM. */
struct hi_rmodel;
hi_status hi_reach_size_table (const struct hi_reach *rc, uint32_t site,
                               const struct hi_options *opt,
                               struct hi_rmodel *r, const char *key,
                               const char *title, const char *legend);

/* reach-stacks.c: add to EXCLUDE the stacks of exited threads that
   glibc keeps mapped (its stack cache): not roots.  HI_E_NOMEM. */
hi_status hi_scan_dead_stacks (struct hi_scan *s, struct hi_ranges *exclude);

/* Prefetch what hi_scan_find (S, ADDR) reads: STAGE 0 its page entry,
   1 (once that is in) its first block record.  Lookups of pointers
   found together are made in stages, so their cache misses overlap. */
void hi_scan_prefetch (const struct hi_scan *s, uint64_t addr, int stage);

/* reach-mark.c: memcheck's marking, from the roots, then the cliques;
   sets S->state.  HI_E_NOMEM. */
hi_status hi_scan_mark (struct hi_scan *s, unsigned flags);

/* The register number of exit()'s caller's k-th saved register
   (heapinspect/leak-stop.h's order: rbx, rbp, r12, r13, r14, r15) for
   edge_reg. */
#define HI_SCAN_EXIT_REG 64u

/* reach-mark.c, for `ref` (reach-ref.c): hand every pointer the roots
   of S hold into a block to S->edge (memory, by the word's address) and
   S->edge_reg (registers), the roots being those hi_scan_mark scans
   with FLAGS; then, one block at a time, block I's pointers to
   S->edge.  The scan's figures in S->r are left as they are.
   HI_E_NOMEM. */
hi_status hi_scan_edges (struct hi_scan *s, unsigned flags);
void hi_scan_block_edges (struct hi_scan *s, uint32_t i);

/* reach.c: the scan of T up to its marking, for a caller that looks at
   its blocks afterwards (reach-ref.c): S mapped, its blocks (the
   monitor's of M, else glibc's in-use chunks of G) found and marked
   with FLAGS, its result R (allocated here) tallied.  HI_OK, or an
   error with S released.  Release S with hi_scan_release, and R with
   hi_reach_free. */
hi_status hi_scan_open (struct hi_scan *s, const struct hi_target *t,
                        const struct hi_model *m, const struct hi_glibc *g,
                        unsigned flags, struct hi_reach **r);
void hi_scan_release (struct hi_scan *s);

/* reach-stale.c: take out of S's blocks, once marked, the stale headers
   the monitor's counters show (more blocks of a chain than it has
   live), counted in skipped.stale_headers; *DROPPED says whether any
   were (S is then to be indexed and marked again).  HI_E_NOMEM. */
hi_status hi_scan_drop_stale (struct hi_scan *s, int *dropped);

#endif
