/* reach.c - the reachability scan's entry points (issue 15). */
#include "glibc/glibc.h"
#include "model/chunk.h"
#include "reach/reach-int.h"
#include "util/vec.h"
#include "util/sort.h"

#include <stdint.h>
#include <stdlib.h>

static const char *const class_names[HI_REACH_NCLASSES] = {
  "definitely lost", "indirectly lost", "possibly lost", "still reachable"
};
static const char *const class_keys[HI_REACH_NCLASSES] = {
  "definite", "indirect", "possible", "reachable"
};

const char *
hi_reach_class_name (int cls)
{
  return cls >= 0 && cls < HI_REACH_NCLASSES ? class_names[cls] : NULL;
}

const char *
hi_reach_class_key (int cls)
{
  return cls >= 0 && cls < HI_REACH_NCLASSES ? class_keys[cls] : NULL;
}

void
hi_scan_release (struct hi_scan *s)
{
  free (s->maps);
  free (s->threads);
  hi_ranges_free (&s->monitor);
  hi_ranges_free (&s->heap);
  free (s->b);
  for (size_t i = 0; i < s->n_spans; i++)
    free (s->spans[i].page);
  free (s->spans);
  free (s->stack);
  free (s->batch);
  free (s->first);
  free (s->cache);
}

static int
site_cmp (const void *x, const void *y)
{
  const struct hi_reach_site *a = x, *b = y;
  int c = hi_cmp_u64 (a->cls, b->cls);
  if (c == 0)
    c = hi_cmp_u64 (b->fig.bytes, a->fig.bytes);
  return c ? c : hi_cmp_u64 (a->site, b->site);
}

static const int class_of_state[] = {
  [HI_ST_UNREACHED] = HI_REACH_DEFINITE, [HI_ST_INDIRECT] = HI_REACH_INDIRECT,
  [HI_ST_POSSIBLE] = HI_REACH_POSSIBLE, [HI_ST_REACHABLE] = HI_REACH_REACHABLE
};

/* Fill R's blocks, totals and per-site figures from S's states, and the
   blocks the monitor counts that were not found. */
static hi_status
tally (struct hi_scan *s, struct hi_reach *r)
{
  const struct hi_model *m = s->m;
  /* Without the monitor every block is site 0's; an attached monitor's
     foreign chunks are site m->n_sites's. */
  uint64_t n_sites = m ? m->n_sites + (r->foreign != 0) : 1;
  r->blocks = malloc ((s->n_blocks + 1) * sizeof *r->blocks);
  struct hi_reach_figure *fig = calloc (n_sites * HI_REACH_NCLASSES + 1,
                                        sizeof *fig);
  if (!r->blocks || !fig)
    {
      free (fig);
      return HI_E_NOMEM;
    }
  for (uint32_t i = 0; i < s->n_blocks; i++)
    {
      int cls = class_of_state[s->b[i].state];
      r->blocks[i] = (struct hi_reach_block) { s->b[i].start, s->b[i].size,
                                               s->b[i].site, (uint32_t) cls };
      r->totals.cls[cls].bytes += s->b[i].size;
      r->totals.cls[cls].blocks++;
      struct hi_reach_figure *f = &fig[s->b[i].site * HI_REACH_NCLASSES + cls];
      f->bytes += s->b[i].size;
      f->blocks++;
    }
  r->n_blocks = s->n_blocks;
  r->first_words = s->first;
  s->first = NULL;
  uint64_t pairs = 0;
  for (uint64_t k = 0; k < n_sites * HI_REACH_NCLASSES; k++)
    pairs += fig[k].blocks != 0;
  r->sites = malloc ((pairs + 1) * sizeof *r->sites);
  if (!r->sites)
    {
      free (fig);
      return HI_E_NOMEM;
    }
  for (uint64_t site = 0; site < n_sites; site++)
    {
      uint64_t found_blocks = 0, found_bytes = 0;
      for (int c = 0; c < HI_REACH_NCLASSES; c++)
        {
          const struct hi_reach_figure *f = &fig[site * HI_REACH_NCLASSES + c];
          if (f->blocks)
            r->sites[r->n_sites++] = (struct hi_reach_site) {
              (uint32_t) site, (uint32_t) c, *f };
          found_blocks += f->blocks;
          found_bytes += f->bytes;
        }
      /* What the monitor counts live there. */
      uint64_t live = 0, live_bytes = 0;
      if (m)
        hi_model_site_live (m, site, &live, &live_bytes);
      if (live > found_blocks)
        {
          r->skipped.missing_blocks += live - found_blocks;
          r->skipped.missing_bytes += live_bytes > found_bytes
                                      ? live_bytes - found_bytes : 0;
        }
    }
  free (fig);
  qsort (r->sites, r->n_sites, sizeof *r->sites, site_cmp);
  return HI_OK;
}

/* The live blocks of S whose redzone is not all HI_REDZONE_BYTE, into
   R->redzones.  A redzone the target does not hold is not checked. */
static hi_status
check_redzones (struct hi_scan *s, struct hi_reach *r)
{
  if (!s->m)
    return HI_OK;
  const struct hi_root *root = &s->m->root;
  if (root->version < 5 || !root->redzone)
    return HI_OK;
  r->redzone = root->redzone;
  size_t cap = 0;
  for (uint32_t i = 0; i < s->n_blocks; i++)
    {
      if (s->b[i].site >= s->m->n_sites)
        continue;               /* a chunk the monitor did not make */
      uint64_t at = s->b[i].start + s->b[i].size, end = at + root->redzone;
      if (end < at)
        continue;
      uint64_t changed = UINT64_MAX;
      while (at < end && changed == UINT64_MAX)
        {
          /* Up to the end of the cache piece (hi_scan_read's limit). */
          uint64_t piece = HI_SCAN_SLOT - (at & (HI_SCAN_SLOT - 1));
          size_t n = end - at < piece ? (size_t) (end - at) : (size_t) piece;
          const unsigned char *p = hi_scan_read (s, at, n);
          if (!p)
            break;
          for (size_t k = 0; k < n; k++)
            if (p[k] != HI_REDZONE_BYTE)
              {
                changed = at + k;
                break;
              }
          at += n;
        }
      if (changed == UINT64_MAX)
        continue;
      if (hi_grow ((void **) &r->redzones, &cap, r->n_redzones + 1,
                   sizeof *r->redzones) != 0)
        return HI_E_NOMEM;
      r->redzones[r->n_redzones++] = (struct hi_reach_redzone) {
        s->b[i].start, s->b[i].size, changed - s->b[i].start, s->b[i].site,
        0 };
    }
  return HI_OK;
}

static int (*interrupt_check) (void);

void
hi_reach_set_interrupt (int (*check) (void))
{
  interrupt_check = check;
}

int
hi_scan_stop (struct hi_scan *s)
{
  if (!s->stop && interrupt_check
      && ++s->steps % HI_SCAN_CHECK_EVERY == 0 && interrupt_check ())
    s->stop = 1;
  return s->stop;
}


/* Mark S's blocks (memcheck's classes), and again without the stale
   headers the counters show, if any (reach-stale.c): the figures the
   first marking added to R are taken back. */
static hi_status
mark (struct hi_scan *s, struct hi_reach *r, unsigned flags)
{
  struct hi_reach before = *r;
  int dropped;
  hi_status st = hi_scan_mark (s, flags);
  if (st == HI_OK && !s->m)
    return HI_OK;               /* glibc's chunks: no headers to be stale */
  if (st == HI_OK)
    st = hi_scan_drop_stale (s, &dropped);
  if (st != HI_OK || !dropped)
    return st;
  before.skipped.stale_headers = r->skipped.stale_headers;
  *r = before;
  free (s->stack);
  free (s->batch);
  s->stack = s->batch = NULL;
  s->top = 0;
  st = hi_scan_index (s);
  return st == HI_OK ? hi_scan_mark (s, flags) : st;
}

/* An attached monitor's S: glibc's chunks it did not make, from G or
   from glibc's heap read here. */
static hi_status
foreign_blocks (struct hi_scan *s, const struct hi_glibc *g)
{
  struct hi_glibc *own = NULL;
  const char *why = NULL;
  if (!g)
    {
      hi_status st = hi_glibc_load (s->t, &own, &why);
      if (st == HI_E_NOMEM)
        return st;
      if (st != HI_OK)
        {
          s->r->foreign_why = why ? why : "glibc's heap cannot be read";
          return HI_OK;
        }
      g = own;
    }
  hi_status st = HI_OK;
  s->r->foreign_why = hi_glibc_not_whole (g);
  if (!s->r->foreign_why)
    st = hi_scan_foreign_blocks (s, g);
  hi_glibc_free (own);
  return st;
}

hi_status
hi_scan_open (struct hi_scan *s, const struct hi_target *t,
              const struct hi_model *m, const struct hi_glibc *g,
              unsigned flags, struct hi_reach **out)
{
  *out = NULL;
  if (!t->ops->mapping)
    return HI_E_NO_MEMORY;
  struct hi_reach *r = calloc (1, sizeof *r);
  if (!r)
    return HI_E_NOMEM;
  *s = (struct hi_scan) { .t = t, .m = m, .r = r, .exit_thread = SIZE_MAX };
  s->cache = malloc (HI_SCAN_SLOTS * HI_SCAN_SLOT);
  hi_status st = s->cache ? hi_scan_map (s) : HI_E_NOMEM;
  if (st == HI_OK)
    st = m ? hi_scan_blocks (s) : hi_scan_glibc_blocks (s, g);
  if (st == HI_OK && m && m->attached && !s->stop)
    st = foreign_blocks (s, g);
  if (st == HI_OK && s->stop)
    st = HI_E_INTERRUPTED;
  if (st == HI_OK)
    st = mark (s, r, flags);
  if (st == HI_OK && s->stop)
    st = HI_E_INTERRUPTED;
  if (st == HI_OK)
    st = check_redzones (s, r);
  if (st == HI_OK)
    st = tally (s, r);
  for (size_t i = 0; i < s->heap.n; i++)
    r->heap_bytes += s->heap.v[i].end - s->heap.v[i].start;
  if (st != HI_OK)
    {
      hi_scan_release (s);
      hi_reach_free (r);
      return st;
    }
  *out = r;
  return HI_OK;
}

/* The scan of T, its blocks the monitor's (M) or glibc's in-use chunks
   (G, without the monitor). */
static hi_status
scan (const struct hi_target *t, const struct hi_model *m,
      const struct hi_glibc *g, unsigned flags, struct hi_reach **out)
{
  struct hi_scan s;
  hi_status st = hi_scan_open (&s, t, m, g, flags, out);
  if (st == HI_OK)
    hi_scan_release (&s);
  return st;
}

hi_status
hi_reach_scan (const struct hi_target *t, const struct hi_model *m,
               unsigned flags, struct hi_reach **out)
{
  return scan (t, m, NULL, flags, out);
}

hi_status
hi_reach_scan_glibc (const struct hi_target *t, const struct hi_glibc *g,
                     struct hi_reach **out)
{
  return scan (t, NULL, g, 0, out);
}

void
hi_reach_free (struct hi_reach *r)
{
  if (!r)
    return;
  free (r->blocks);
  free (r->first_words);
  free (r->sites);
  free (r->redzones);
  free (r);
}

