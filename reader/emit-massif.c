/* emit-massif.c - a report's timeline as valgrind massif's massif.out:
   one snapshot per point (time: the allocation clock, massif's
   --time-unit=B), the detailed points, the peak and now with their heap
   trees, as ms_print and massif-visualizer read them.  A tree starts at
   the allocation functions and goes out through the callers, one node
   per frame, merged where chains share their innermost frames, children
   with the most bytes first. */
#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct node
{
  const struct hi_rframe *frame;     /* NULL for the top */
  uint32_t child, sibling;           /* NONE */
  uint32_t n_children;
  uint64_t bytes;
};

struct tree
{
  struct node *n;
  size_t len, cap;
  uint32_t *order;                   /* scratch for sorting children */
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

/* PARENT's child for FRAME, made if new; NONE if out of memory. */
static uint32_t
child_of (struct tree *t, uint32_t parent, const struct hi_rframe *frame)
{
  for (uint32_t c = t->n[parent].child; c != NONE; c = t->n[c].sibling)
    if (same_frame (t->n[c].frame, frame))
      return c;
  if (t->len == t->cap)
    {
      size_t cap = t->cap ? t->cap * 2 : 64;
      struct node *p = cap < NONE ? realloc (t->n, cap * sizeof *p) : NULL;
      if (!p)
        return NONE;
      t->n = p;
      t->cap = cap;
    }
  uint32_t id = (uint32_t) t->len++;
  t->n[id] = (struct node) { frame, NONE, t->n[parent].child, 0, 0 };
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
  if (t->cap == 0)
    {
      t->cap = 64;
      t->n = malloc (t->cap * sizeof *t->n);
      if (!t->n)
        return -1;
    }
  t->n[t->len++] = (struct node) { NULL, NONE, NONE, 0, 0 };
  for (uint64_t k = 0; k < p->n; k++)
    {
      const struct hi_rtchain *c = &tl->at[p->first + k];
      const struct hi_rchain *ch = &tl->chains[c->chain];
      if (c->bytes == 0)
        continue;
      t->n[0].bytes += c->bytes;
      uint32_t at = 0;
      /* Innermost first: the chain's frames backwards. */
      for (uint64_t i = ch->full_n; i-- > 0;)
        {
          at = child_of (t, at, &r->frames[ch->full_first + i]);
          if (at == NONE)
            return -1;
          t->n[at].bytes += c->bytes;
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
  fprintf (f, "0x%" PRIX64 ": ", fr->address);
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

/* Node ID's children, the most bytes first, into T's order from AT. */
static size_t
sorted_children (struct tree *t, uint32_t id, size_t at)
{
  size_t n = 0;
  for (uint32_t c = t->n[id].child; c != NONE; c = t->n[c].sibling)
    t->order[at + n++] = c;
  /* Insertion sort: few children, and stable for equal bytes. */
  for (size_t i = 1; i < n; i++)
    {
      uint32_t v = t->order[at + i];
      size_t j = i;
      while (j > 0 && t->n[t->order[at + j - 1]].bytes < t->n[v].bytes)
        {
          t->order[at + j] = t->order[at + j - 1];
          j--;
        }
      t->order[at + j] = v;
    }
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
    fprintf (f, "%*sn0: %" PRIu64 " in other places, not among the chains "
             "the monitor kept for this point\n", (int) depth + 1, "", rest);
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
  struct tree t = { NULL, 0, 0, NULL };
  fputs ("desc: heapinspect --format=massif of ", f);
  put_clean (r->source ? r->source : "?", f);
  fputs (tl->has ? " (--heap-admin=0 --time-unit=B)"
                 : " (no time data: the live heap when read)", f);
  fputs ("\ncmd: ", f);
  put_clean (r->has_summary && r->summary.command ? r->summary.command
             : r->source ? r->source : "?", f);
  fputs ("\ntime_unit: B\n", f);
  size_t snap = 0;
  /* massif's first snapshot: nothing yet, at time 0. */
  if (tl->n_points == 0 || tl->points[0].clock > 0)
    put_snapshot (snap++, 0, 0, "empty", f);
  for (size_t i = 0; i < tl->n_points; i++)
    {
      const struct hi_rpoint *p = &tl->points[i];
      if (p->kind == HI_RPOINT_PLAIN)
        {
          put_snapshot (snap++, p->clock, p->bytes, "empty", f);
          continue;
        }
      if (build (&t, r, p) != 0)
        goto nomem;
      /* ms_print refuses a node over its snapshot's bytes: chains summing
         past the point's own figure (threads' lag) raise it. */
      uint64_t bytes = p->bytes > t.n[0].bytes ? p->bytes : t.n[0].bytes;
      put_snapshot (snap++, p->clock, bytes, i == tl->peak ? "peak"
                                                           : "detailed", f);
      free (t.order);
      t.order = malloc ((t.len + 1) * sizeof *t.order);
      if (!t.order)
        goto nomem;
      put_node (&t, 0, 0, 0, bytes - t.n[0].bytes, f);
    }
  free (t.n);
  free (t.order);
  return fflush (f) != 0 || ferror (f) ? HI_E_WRITE : HI_OK;
nomem:
  free (t.n);
  free (t.order);
  return HI_E_NOMEM;
}
