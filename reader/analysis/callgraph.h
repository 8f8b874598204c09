/* callgraph.h - the allocation call graph computed from the chains:
   functions and <cycle N> nodes with their bytes, and the caller/callee
   pairs between them, each counted once per chain.  table-graph.c makes
   the report's table of it. */
#ifndef HI_CALLGRAPH_H
#define HI_CALLGRAPH_H

#include "analysis/analysis.h"
#include "util/hash.h"
#include "util/num.h"

/* A directed pair (a, b) of nodes with what went through it; a
   hi_cgpairs is a hash set of them. */
struct hi_cgpair
{
  uint32_t a, b;
  uint64_t stamp;            /* last chain that counted it, + 1 */
  uint64_t calls;
  uint64_t bytes[HI_NSIZE_CLASSES];
};

struct hi_cgpairs
{
  struct hi_cgpair *v;
  uint32_t n, cap;
  struct hi_hash index;
};

/* A function's own figures: what a <cycle N> entry's members show. */
struct hi_cgfunc
{
  uint64_t stamp, called, bytes;
  uint32_t frame;            /* one of its frames (bare name, module), or
                                HI_FRAME_CUT if none */
};

/* Graph nodes: functions 0..nf-1, then cycles nf..nf+ncycles-1. */
struct hi_cgnode
{
  uint64_t total[HI_NSIZE_CLASSES];  /* self + descendants */
  uint64_t self[HI_NSIZE_CLASSES];
  uint64_t called, recursive;
  uint64_t stamp;
  uint32_t index;                    /* the table's [index]; 0: not printed */
  uint32_t count_in_chain;
};

struct hi_callgraph
{
  struct hi_analysis *a;
  uint32_t nf, ncycles;
  uint32_t *comp;            /* function -> graph node */
  struct hi_cgnode *g;
  uint32_t deeper;           /* function id of <deeper> (chains cut at the
                                depth cap): a caller, never an entry */
  struct hi_cgfunc *fs;      /* per function, for cycle members */
  struct hi_cgpairs fpairs;  /* function pairs, for the components */
  struct hi_cgpairs gpairs;  /* graph-node pairs, with counters */
  /* gpairs by caller and by callee: node x's are by_a[from_a[x] ..
     from_a[x + 1]) and likewise by_b. */
  uint32_t *from_a, *by_a, *from_b, *by_b;
};

/* Node X's callers (pairs whose b is X), then its callees. */
#define HI_FOR_CALLERS(gr, x, p) \
  for (uint32_t i_ = (gr)->from_b[x]; i_ < (gr)->from_b[(x) + 1] \
       && ((p) = &(gr)->gpairs.v[(gr)->by_b[i_]]); i_++)
#define HI_FOR_CALLEES(gr, x, p) \
  for (uint32_t i_ = (gr)->from_a[x]; i_ < (gr)->from_a[(x) + 1] \
       && ((p) = &(gr)->gpairs.v[(gr)->by_a[i_]]); i_++)

/* The sum of the four size classes' counters, saturating. */
static inline uint64_t
hi_sum4 (const uint64_t *v)
{
  return hi_add_sat (hi_add_sat (v[0], v[1]), hi_add_sat (v[2], v[3]));
}

/* Build A's call graph into GR (zeroed first): 0, or -1 if out of memory
   (GR still to be freed). */
int hi_callgraph_build (struct hi_callgraph *gr, struct hi_analysis *a);
void hi_callgraph_free (struct hi_callgraph *gr);

#endif
