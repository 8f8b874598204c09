/* reach-ref.h - what `ref ADDR`'s files share: reach-ref.c (the walk
   and hi_ref_report), reach-ref-roots.c (a root as its row names it),
   reach-ref-report.c (the tables).  Not for other callers. */
#ifndef HI_REACH_REF_H
#define HI_REACH_REF_H

#include "reach/reach-int.h"

struct hi_analysis;
struct hi_rmodel;

/* A block's predecessor when a root reached it (else a block's index). */
#define HI_REF_FROM_MEMORY UINT32_MAX
#define HI_REF_FROM_REGISTER (UINT32_MAX - 1)

/* A word that points into the block: a root's (memory at AT, or
   register REG of thread THREAD) or block FROM's at AT. */
struct hi_ref_hit
{
  uint64_t at, v;
  uint32_t from;             /* a block, HI_REF_FROM_MEMORY or
                                HI_REF_FROM_REGISTER */
  uint32_t thread, reg;
};

/* The words found pointing into the block: the first KEEP in order
   (hit_cmp), ALL of them counted. */
struct hi_ref_hits
{
  struct hi_ref_hit *v;
  size_t n, cap, keep;
  uint64_t all;
};

/* A thread's TLS block of one module (libthread_db's answer). */
struct hi_ref_tls
{
  uint64_t start, end, tid;
  const char *path;          /* the module's, in the scan's maps */
};

/* A `ref` walk over scan S, for block TARGET. */
struct hi_ref
{
  struct hi_scan *s;
  /* The threads' TLS blocks, found on the first root to name. */
  struct hi_ref_tls *tls;
  size_t n_tls, cap_tls;
  int tls_done;
  uint32_t target;
  uint32_t from;             /* the block being read, or HI_REF_FROM_MEMORY */
  int bfs;                   /* predecessors are being recorded */
  /* Per block: reached from a root; the block (or HI_REF_FROM_*) whose
     word first reached it, where that word is (a register's: its
     thread's index << 8 | the register) and its value. */
  uint8_t *seen;
  uint32_t *pred;
  uint64_t *pred_at, *pred_v;
  /* The blocks reached by the level being read (the walk's next). */
  uint32_t *next;
  uint32_t n_next;
  struct hi_ref_hits roots, blocks;
  int nomem;
};

/* What a root is, for its row. */
struct hi_ref_root
{
  const char *kind;          /* "register", "stack", "tls", "data",
                                "memory" */
  uint64_t tid;              /* its thread, or 0 */
  char at[32];               /* a register's name or the word's address */
  char module[HI_MAP_PATH_MAX];  /* a module's base name (data), or the
                                    mapping's name */
  char symbol[288];          /* the variable (data), or "" */
};

/* reach-ref-roots.c: root H of F as its row says it. */
void hi_ref_describe_root (struct hi_ref *f, const struct hi_ref_hit *h,
                           struct hi_ref_root *d);

/* reach-ref-report.c: the tables of what F found for ADDR (A the
   monitor's analysis, or NULL: glibc's chunks; RC the scan's classes)
   into R; and the one line of an address in no block. */
void hi_ref_tables (struct hi_ref *f, struct hi_analysis *a,
                    const struct hi_reach *rc, uint64_t addr,
                    struct hi_rmodel *r);
void hi_ref_none (struct hi_rmodel *r, uint64_t addr, int monitor,
                  const struct hi_options *opt);

#endif
