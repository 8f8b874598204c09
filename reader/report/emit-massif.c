/* emit-massif.c - a report's timeline as valgrind massif's massif.out:
   one snapshot per point (time: the bytes allocated and freed, massif's
   --time-unit=B, requested sizes only), the detailed points, the peak and now with their heap
   trees, as ms_print and massif-visualizer read them.  A tree starts at
   the allocation functions and goes out through the callers, one node
   per frame, merged where chains share their innermost frames, children
   with the most bytes first. */
#define _GNU_SOURCE
#include "report/rmodel.h"
#include "util/num.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct node
{
  const struct hi_rframe *frame;     /* NULL for the top */
  uint32_t parent;                   /* NONE for the top */
  uint32_t child, sibling;           /* NONE */
  uint32_t n_children;
  uint64_t bytes;
};

struct tree
{
  struct node *n;
  size_t len, cap;
  uint32_t *order;                   /* scratch for sorting children */
  struct hi_hash index;              /* (parent, frame) -> node */
  const struct hi_rframe *frames;    /* the report's */
  uint64_t *frame_hash;              /* per report frame; 0: not yet */
};

struct key
{
  const struct tree *t;
  uint32_t parent;
  const struct hi_rframe *frame;
};

static int
same_frame (const struct hi_rframe *a, const struct hi_rframe *b)
{
  if (a == b)
    return 1;
  if (a->cut || b->cut)
    return a->cut == b->cut;
  return a->address == b->address && strcmp (a->function, b->function) == 0
         && a->line == b->line;
}

static int
key_eq (const void *ctx, uint32_t id)
{
  const struct key *k = ctx;
  const struct node *n = &k->t->n[id];
  return n->parent == k->parent && same_frame (n->frame, k->frame);
}

/* The hash of what same_frame compares of frame I of the report. */
static uint64_t
frame_hash (struct tree *t, uint64_t i)
{
  if (!t->frame_hash[i])
    {
      const struct hi_rframe *f = &t->frames[i];
      uint64_t h = f->cut ? hi_hash_u64 (1)
                   : hi_hash_bytes (f->function, strlen (f->function))
                     ^ hi_hash_u64 (f->address ^ ((uint64_t) f->line << 48));
      t->frame_hash[i] = h | 1;
    }
  return t->frame_hash[i];
}

/* PARENT's child for frame I of the report, made if new; NONE if out of
   memory. */
static uint32_t
child_of (struct tree *t, uint32_t parent, uint64_t i)
{
  const struct hi_rframe *frame = &t->frames[i];
  uint64_t h = frame_hash (t, i) ^ hi_hash_u64 (parent);
  struct key k = { t, parent, frame };
  uint32_t found = hi_hash_find (&t->index, h, key_eq, &k);
  if (found != UINT32_MAX)
    return found;
  if (hi_grow_max ((void **) &t->n, &t->cap, t->len + 1, sizeof *t->n,
                   NONE) != 0)
    return NONE;
  uint32_t id = (uint32_t) t->len;
  if (hi_hash_insert (&t->index, h, id) != 0)
    return NONE;
  t->len++;
  t->n[id] = (struct node) { frame, parent, NONE, t->n[parent].child, 0, 0 };
  t->n[parent].child = id;
  t->n[parent].n_children++;
  return id;
}

/* The tree of point P's chains; 0, or -1 if out of memory. */
static int
build (struct tree *t, const struct hi_rmodel *r, const struct hi_rpoint *p)
{
  const struct hi_rtimeline *tl = &r->timeline;
  t->len = 0;
  hi_hash_free (&t->index);
  hi_hash_init (&t->index);
  if (hi_grow ((void **) &t->n, &t->cap, 1, sizeof *t->n) != 0)
    return -1;
  t->n[t->len++] = (struct node) { NULL, NONE, NONE, NONE, 0, 0 };
  for (uint64_t k = 0; k < p->n; k++)
    {
      const struct hi_rtchain *c = &tl->at[p->first + k];
      const struct hi_rchain *ch = &tl->chains[c->chain];
      if (c->bytes == 0)
        continue;
      t->n[0].bytes = hi_add_sat (t->n[0].bytes, c->bytes);
      uint32_t at = 0;
      /* Innermost first: the chain's frames backwards. */
      for (uint64_t i = ch->full_n; i-- > 0;)
        {
          at = child_of (t, at, ch->full_first + i);
          if (at == NONE)
            return -1;
          t->n[at].bytes = hi_add_sat (t->n[at].bytes, c->bytes);
        }
    }
  return 0;
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* S with its line ends and '#' (ms_print's comments) as '?'. */
static void
put_clean (const char *s, FILE *f)
{
  for (; *s; s++)
    fputc (*s == '\n' || *s == '\r' || *s == '#' ? '?' : *s, f);
}

/* What a node says after its bytes, as massif writes it:
   "0x4005D4: f (a.c:10)", "0x4005D4: f (in /lib/x.so)". */
static void
put_frame (const struct hi_rframe *fr, FILE *f)
{
  if (fr->cut)
    {
      fputs ("0x0: ... (callers past the monitor's depth cap)", f);
      return;
    }
  /* The call instruction, as massif shows it: the return address - 1. */
  fprintf (f, "0x%" PRIX64 ": ", fr->address ? fr->address - 1 : 0);
  put_clean (fr->function, f);
  if (fr->file && fr->line)
    {
      fputs (" (", f);
      put_clean (base_name (fr->file), f);
      fprintf (f, ":%" PRIu32 ")", fr->line);
    }
  else if (fr->module)
    {
      fputs (" (in ", f);
      put_clean (fr->module, f);
      fputc (')', f);
    }
}

/* The most bytes first; equal ones in the order they were made. */
static int
by_bytes (const void *x, const void *y, void *ctx)
{
  const struct tree *t = ctx;
  uint32_t a = *(const uint32_t *) x, b = *(const uint32_t *) y;
  int c = hi_cmp_u64 (t->n[b].bytes, t->n[a].bytes);
  return c ? c : hi_cmp_u64 (a, b);
}

/* Node ID's children, the most bytes first, into T's order from AT. */
static size_t
sorted_children (struct tree *t, uint32_t id, size_t at)
{
  size_t n = 0;
  for (uint32_t c = t->n[id].child; c != NONE; c = t->n[c].sibling)
    t->order[at + n++] = c;
  qsort_r (t->order + at, n, sizeof *t->order, by_bytes, t);
  return n;
}

/* Node ID and its subtree at DEPTH; AT: free room in T's order. */
static void
put_node (struct tree *t, uint32_t id, unsigned depth, size_t at,
          uint64_t rest, FILE *f)
{
  const struct node *n = &t->n[id];
  size_t nc = sorted_children (t, id, at);
  fprintf (f, "%*sn%zu: %" PRIu64 " ", (int) depth, "", nc + (rest != 0),
           n->bytes + rest);
  if (n->frame)
    put_frame (n->frame, f);
  else
    fputs ("(heap allocation functions) malloc/new/new[], --alloc-fns, etc.",
           f);
  fputc ('\n', f);
  for (size_t i = 0; i < nc; i++)
    put_node (t, t->order[at + i], depth + 1, at + nc, 0, f);
  if (rest)
    fprintf (f, "%*sn0: %" PRIu64 " in other places (chains the monitor "
             "did not keep at this point, or filters left out)\n",
             (int) depth + 1, "", rest);
}

static void
put_snapshot (size_t i, uint64_t time, uint64_t bytes, const char *tree,
              FILE *f)
{
  fprintf (f, "#-----------\nsnapshot=%zu\n#-----------\ntime=%" PRIu64
           "\nmem_heap_B=%" PRIu64 "\nmem_heap_extra_B=0\nmem_stacks_B=0\n"
           "heap_tree=%s\n", i, time, bytes, tree);
}

hi_status
hi_emit_massif (const struct hi_rmodel *r, const struct hi_emit_options *o,
                FILE *f)
{
  (void) o;
  const struct hi_rtimeline *tl = &r->timeline;
  struct tree t;
  memset (&t, 0, sizeof t);
  hi_hash_init (&t.index);
  t.frames = r->frames;
  t.frame_hash = calloc (r->n_frames + 1, sizeof *t.frame_hash);
  if (!t.frame_hash)
    return HI_E_NOMEM;
  fputs ("desc: heapinspect --format=massif of ", f);
  put_clean (r->source ? r->source : "?", f);
  fputs (tl->has ? " (--heap-admin=0 --time-unit=B)"
                 : " (no time data: the live heap when read)", f);
  fputs ("\ncmd: ", f);
  put_clean (r->has_summary && r->summary.command ? r->summary.command
             : r->source ? r->source : "?", f);
  fputs ("\ntime_unit: B\n", f);
  size_t snap = 0;
  hi_status st = HI_OK;
  /* massif's first snapshot: nothing yet, at time 0. */
  if (tl->n_points == 0 || tl->points[0].moved > 0)
    put_snapshot (snap++, 0, 0, "empty", f);
  for (size_t i = 0; i < tl->n_points && st == HI_OK; i++)
    {
      const struct hi_rpoint *p = &tl->points[i];
      if (p->kind == HI_RPOINT_PLAIN)
        {
          put_snapshot (snap++, p->moved, p->bytes, "empty", f);
          continue;
        }
      free (t.order);
      t.order = NULL;
      if (build (&t, r, p) != 0
          || !(t.order = malloc ((t.len + 1) * sizeof *t.order)))
        {
          st = HI_E_NOMEM;
          break;
        }
      /* ms_print refuses a node over its snapshot's bytes: chains summing
         past the point's own figure (threads' lag) raise it. */
      uint64_t bytes = p->bytes > t.n[0].bytes ? p->bytes : t.n[0].bytes;
      put_snapshot (snap++, p->moved, bytes, i == tl->peak ? "peak"
                                                           : "detailed", f);
      put_node (&t, 0, 0, 0, bytes - t.n[0].bytes, f);
    }
  if (st == HI_OK && (fflush (f) != 0 || ferror (f)))
    st = HI_E_WRITE;
  free (t.n);
  free (t.order);
  free (t.frame_hash);
  hi_hash_free (&t.index);
  return st;
}
