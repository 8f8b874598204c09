/* model.c - copying the monitor's root and arenas out of a target and
   validating them, so that the tables can trust what they walk. */
#include "util/errors.h"
#include "model/model.h"
#include "hi-reader.h"

#include <stdlib.h>
#include <string.h>

/* The size of the root of format VERSION; 0 for a version not read. */
static uint32_t
root_size_of (uint32_t version)
{
  return version == HI_FORMAT_VERSION ? sizeof (struct hi_root)
         : version == 5 ? HI_ROOT_SIZE_V5
         : version == 4 ? HI_ROOT_SIZE_V4
         : version == 3 ? HI_ROOT_SIZE_V3
         : version == 2 ? HI_ROOT_SIZE_V2 : 0;
}

/* No scan for the root reads more than this, however large the regions
   a target claims (a process may map terabytes, say under ASan), nor
   more than the target holds (LIMIT: the model's budget). */
#define SCAN_BYTES_MAX (UINT64_C(4) << 30)

/* Without symbols: the first 8-aligned HI_ROOT_MAGIC in a writable region
   followed by a version this reader reads and that version's root size,
   other than SKIP (a root the symbol named that cannot be used).  (The
   monitor scrubs the copies of its root it makes on the stack.) */
static int
scan_for_root (const struct hi_target *t, uint64_t skip, uint64_t limit,
               uint64_t *addr)
{
  enum { CHUNK = 1 << 20 };
  uint64_t *buf = malloc (CHUNK + 16);
  uint64_t base, size;
  uint64_t budget = limit < SCAN_BYTES_MAX ? limit : SCAN_BYTES_MAX;
  for (size_t i = 0; buf && budget && t->ops->region
       && t->ops->region (t->ctx, i, &base, &size) == 0; i++)
    for (uint64_t off = 0; off + 16 <= size && budget; off += CHUNK)
      {
        size_t n = size - off < CHUNK + 16 ? (size_t) (size - off) : CHUNK + 16;
        budget -= n < budget ? n : budget;
        if (t->ops->read_memory (t->ctx, base + off, buf, n) != 0)
          continue;
        for (size_t k = 0; k + 2 <= n / 8 && k < CHUNK / 8; k++)
          if (buf[k] == HI_ROOT_MAGIC
              && root_size_of ((uint32_t) buf[k + 1]) != 0
              && (uint32_t) (buf[k + 1] >> 32)
                 == root_size_of ((uint32_t) buf[k + 1])
              && base + off + 8 * k != skip)
            {
              *addr = base + off + 8 * k;
              free (buf);
              return 0;
            }
      }
  free (buf);
  return -1;
}

/* Read and check the root at ADDR; one of version 2 has its fields
   after `totals` 0. */
static hi_status
root_at (const struct hi_target *t, uint64_t addr, struct hi_root *r)
{
  uint64_t magic;
  if (t->ops->read_memory (t->ctx, addr, &magic, sizeof magic) != 0)
    return HI_E_UNREADABLE;
  if (magic == 0)
    return HI_E_NOT_READY;    /* loaded, but no allocation yet */
  if (magic != HI_ROOT_MAGIC)
    return HI_E_CORRUPT;
  uint32_t version;
  if (t->ops->read_memory (t->ctx, addr + 8, &version, sizeof version) != 0)
    return HI_E_UNREADABLE;
  uint32_t size = root_size_of (version);
  if (size == 0)
    return HI_E_VERSION;
  memset (r, 0, sizeof *r);
  if (t->ops->read_memory (t->ctx, addr, r, size) != 0)
    return HI_E_UNREADABLE;
  if (r->root_size != size || r->pointer_size != sizeof (void *)
      || r->byte_order != HI_ORDER_LITTLE
      || r->n_arenas > HI_MAX_ARENAS + (version >= 4 ? HI_MAX_MORE_ARENAS : 0)
      || !r->ready)
    return HI_E_CORRUPT;
  return HI_OK;
}

/* The root the symbol names; if that copy is empty or unusable (another
   object defining the symbol shadows the monitor's, or the file is
   damaged), a root found by its magic in writable memory (reading no
   more than LIMIT bytes). */
static hi_status
read_root (const struct hi_target *t, uint64_t limit, struct hi_root *r)
{
  uint64_t addr;
  int named = t->ops->lookup_symbol (t->ctx, "heapinspect_root", &addr) == 0;
  hi_status s = named ? root_at (t, addr, r) : HI_E_NO_DATA;
  if (s == HI_OK || s == HI_E_VERSION)
    return s;
  uint64_t found;
  if (scan_for_root (t, named ? addr : 1, limit, &found) == 0
      && root_at (t, found, r) == HI_OK)
    return HI_OK;
  return s;
}

/* The monitor caps chains at 256 frames (HEAPINSPECT_DEPTH); a root
   claiming more is damaged, and this bound keeps the chains the analysis
   builds linear in the number of sites whatever the file says. */
#define DEPTH_MAX 1024u

/* *ACC += V, or 0 (and *ACC unchanged) if the sum would not fit. */
static int
add_ok (uint64_t *acc, uint64_t v)
{
  uint64_t sum;
  if (__builtin_add_overflow (*acc, v, &sum))
    return 0;
  *acc = sum;
  return 1;
}

/* Freed must not exceed allocated: clamp *FREED to ALLOC; 1 if it did. */
static int
clamp (uint64_t *freed, uint64_t alloc)
{
  if (*freed <= alloc)
    return 0;
  *freed = alloc;
  return 1;
}

/* Node links: a parent is an older node (so every walk to the root ends),
   and a node's depth, computed here once from the tree, is what sites
   are checked against (never a count read from the file). */
static void
validate_nodes (struct hi_model *m, uint32_t *depth, uint32_t limit)
{
  for (uint64_t i = 0; i < m->n_nodes; i++)
    {
      struct hi_node *n = &m->nodes[i];
      if (i > HI_NODE_CUT && n->parent >= i)
        {
          n->parent = HI_NODE_CUT;
          n->site = 0;
          m->damage.nodes++;
        }
      if (i <= HI_NODE_CUT)
        depth[i] = 0;
      else if (n->parent <= HI_NODE_CUT)
        depth[i] = 1;
      else
        depth[i] = depth[n->parent] < limit ? depth[n->parent] + 1
                                            : UINT32_MAX;
    }
}

/* Sites: node in range, its stated depth the node's real depth (1 to
   LIMIT), and the node naming this site or none yet (the monitor links
   the node last).  A site that fails is dropped whole. */
static void
validate_sites (struct hi_model *m, const uint32_t *depth, uint32_t limit)
{
  struct hi_site *s0 = &m->sites[0];
  s0->node = 0;               /* the unknown chain has none */
  s0->depth = 0;
  for (uint64_t i = 1; i < m->n_sites; i++)
    {
      struct hi_site *s = &m->sites[i];
      if (s->node >= m->n_nodes || s->node <= HI_NODE_CUT
          || s->depth == 0 || s->depth > limit
          || s->depth != depth[s->node]
          || (m->nodes[s->node].site != 0 && m->nodes[s->node].site != i))
        {
          memset (s, 0, sizeof *s);
          m->damage.sites++;
        }
    }
  for (uint64_t i = 0; i < m->n_nodes; i++)
    {
      struct hi_node *n = &m->nodes[i];
      if (n->site == 0 || (n->site < m->n_sites
                           && m->sites[n->site].node == i))
        continue;
      /* A link to a site dropped above is no new damage.  The root and
         cut nodes are not call pairs: a link there is the root's. */
      if (i <= HI_NODE_CUT)
        m->damage.root++;
      else if (n->site >= m->n_sites || m->sites[n->site].depth != 0)
        m->damage.nodes++;
      n->site = 0;
    }
}

/* Counters: per size class freed <= allocated, and no sum the tables
   form (over classes, sites, threads or bins) may wrap.  A site whose
   counters would make a total wrap is dropped; impossible frees are
   clamped and counted. */
static void
validate_site_counters (struct hi_model *m)
{
  uint64_t tot[4] = { 0, 0, 0, 0 };
  for (uint64_t i = 0; i < m->n_sites; i++)
    {
      struct hi_site *s = &m->sites[i];
      int bad = 0;
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        bad |= clamp (&s->frees[c], s->allocs[c])
               | clamp (&s->bytes_freed[c], s->bytes[c]);
      m->damage.counters += (uint64_t) bad;
      uint64_t t[4];
      memcpy (t, tot, sizeof t);
      int fits = 1;
      for (int c = 0; c < HI_NSIZE_CLASSES && fits; c++)
        fits = add_ok (&t[0], s->allocs[c]) && add_ok (&t[1], s->frees[c])
               && add_ok (&t[2], s->bytes[c])
               && add_ok (&t[3], s->bytes_freed[c]);
      if (fits)
        memcpy (tot, t, sizeof t);
      else
        {
          uint32_t node = s->node;
          memset (s, 0, sizeof *s);
          if (i > 0 && node < m->n_nodes)
            m->nodes[node].site = 0;
          /* Site 0, the unknown chain, is none of "N of M sites". */
          if (i > 0)
            m->damage.sites++;
          else
            m->damage.counters++;
        }
    }
}

/* Threads: their sums are the totals; frees beyond allocations are
   taken back from the last threads, so live figures are never
   negative.  Bins likewise, per bin. */
static void
validate_thread_counters (struct hi_model *m, char *bad)
{
  uint64_t a = 0, f = 0, ba = 0, bf = 0;
  for (uint64_t i = 0; i < m->n_threads; i++)
    {
      struct hi_thread *th = &m->threads[i];
      uint64_t a2 = a, f2 = f, ba2 = ba, bf2 = bf;
      if (add_ok (&a2, th->allocations) && add_ok (&f2, th->frees)
          && add_ok (&ba2, th->bytes_allocated)
          && add_ok (&bf2, th->bytes_freed))
        a = a2, f = f2, ba = ba2, bf = bf2;
      else
        {
          th->allocations = th->frees = 0;
          th->bytes_allocated = th->bytes_freed = 0;
          bad[i] = 1;
        }
    }
  if (f > a || bf > ba)
    m->damage.counters++;
  for (uint64_t i = m->n_threads; i-- > 0 && (f > a || bf > ba);)
    {
      struct hi_thread *th = &m->threads[i];
      uint64_t take = f - a < th->frees ? f - a : th->frees;
      th->frees -= take, f -= take;
      take = bf - ba < th->bytes_freed ? bf - ba : th->bytes_freed;
      th->bytes_freed -= take, bf -= take;
    }
  /* The peaks are flushed in batches per thread (HI_PEAK_BATCH): a peak
     read below the live figure is that lag, not damage; the live figure
     is then the best bound on the peak. */
  struct hi_totals *t = &m->root.totals;
  if (t->peak_bytes < ba - bf)
    {
      t->peak_bytes = ba - bf;
      m->peak_is_live = 1;
    }
  if (t->peak_blocks < a - f)
    t->peak_blocks = a - f;
  uint64_t bt[4] = { 0, 0, 0, 0 };
  for (unsigned b = 0; b < HI_NBINS; b++)
    {
      struct hi_bin *x = &m->bins[b];
      m->damage.counters += (uint64_t) (clamp (&x->frees, x->allocs)
                                        | clamp (&x->bytes_freed, x->bytes));
      uint64_t t2[4];
      memcpy (t2, bt, sizeof t2);
      if (add_ok (&t2[0], x->allocs) && add_ok (&t2[1], x->frees)
          && add_ok (&t2[2], x->bytes) && add_ok (&t2[3], x->bytes_freed))
        memcpy (bt, t2, sizeof t2);
      else
        {
          memset (x, 0, sizeof *x);
          m->damage.counters++;
        }
    }
}

/* The threads' busiest sites keep their counters apart; add them in.
   A sum that would wrap is damage: the thread's share is left out. */
static void
merge_thread_sites (struct hi_model *m, char *bad)
{
  for (uint64_t i = 0; i < m->n_threads; i++)
    for (unsigned k = 0; k < HI_THREAD_SITES; k++)
      {
        const struct hi_thread_site *ts = &m->threads[i].sites[k];
        if (ts->site == 0)
          continue;
        if (ts->site >= m->n_sites || m->sites[ts->site].depth == 0)
          {
            /* A site dropped above takes its threads' shares along. */
            bad[i] |= ts->site >= m->n_sites;
            continue;
          }
        struct hi_site *site = &m->sites[ts->site], sum = *site;
        int fits = 1;
        for (int c = 0; c < HI_NSIZE_CLASSES && fits; c++)
          fits = add_ok (&sum.allocs[c], ts->allocs[c])
                 && add_ok (&sum.frees[c], ts->frees[c])
                 && add_ok (&sum.bytes[c], ts->bytes[c])
                 && add_ok (&sum.bytes_freed[c], ts->bytes_freed[c]);
        if (fits)
          *site = sum;
        else
          bad[i] = 1;
      }
}

/* Bins are per thread in the monitor; the model has their sums (a sum
   that would wrap leaves that thread's bin out, as damage). */
static void
sum_bins (struct hi_model *m)
{
  for (uint64_t i = 0; i < m->n_threads; i++)
    for (unsigned b = 0; b < HI_NBINS; b++)
      {
        const struct hi_bin *tb = &m->threads[i].bins[b];
        struct hi_bin sum = m->bins[b];
        if (add_ok (&sum.allocs, tb->allocs) && add_ok (&sum.frees, tb->frees)
            && add_ok (&sum.bytes, tb->bytes)
            && add_ok (&sum.bytes_freed, tb->bytes_freed))
          m->bins[b] = sum;
        else
          m->damage.counters++;
      }
}

/* Drop or correct whatever breaks the invariants the analysis relies
   on; count it in m->damage.  Never fails but for memory. */
static hi_status
validate (struct hi_model *m)
{
  uint32_t limit = m->root.max_depth;
  if (limit == 0 || limit > DEPTH_MAX)
    {
      limit = DEPTH_MAX;
      m->damage.root++;
    }
  uint32_t *depth = malloc (m->n_nodes * sizeof *depth);
  char *bad = calloc (m->n_threads + 1, 1);    /* per thread: damaged */
  if (!depth || !bad)
    {
      free (depth);
      free (bad);
      return HI_E_NOMEM;
    }
  validate_nodes (m, depth, limit);
  validate_sites (m, depth, limit);
  free (depth);
  merge_thread_sites (m, bad);
  validate_site_counters (m);
  sum_bins (m);
  validate_thread_counters (m, bad);
  for (uint64_t i = 0; i < m->n_threads; i++)
    m->damage.threads += (uint64_t) bad[i];
  free (bad);
  for (uint64_t i = 0; i < m->n_modules; i++)
    m->modules[i].path[HI_PATH_MAX - 1] = '\0';
  m->damaged = m->damage.root + m->damage.nodes + m->damage.sites
               + m->damage.threads + m->damage.counters;
  return HI_OK;
}

/* The client API's type records (format 5): read if there are any, and
   checked, so the tables can index by them.  Unreadable or damaged
   records are damage, not a failure. */
static void
read_types (const struct hi_target *t, struct hi_model *m)
{
  if (m->root.version < 5)
    return;
  void *recs;
  uint64_t n;
  if (hi_model_read_arena (t, m, HI_ARENA_TYPES, 0, &recs, &n) != HI_OK)
    {
      m->damage.types++;
      return;
    }
  struct hi_type_rec *r = recs;
  for (uint64_t i = 0; i < n; i++)
    {
      struct hi_type_rec *e = &r[i];
      int ok = i == 0 ? e->kind == HI_TREC_NONE
               : e->kind == HI_TREC_NONE
               || (e->kind == HI_TREC_TYPE && i <= HI_TYPES_MAX)
               || (e->kind == HI_TREC_PAIR && e->type < i
                   && r[e->type].kind == HI_TREC_TYPE
                   && e->site < m->n_sites && e->bin < HI_NBINS);
      if (!ok)
        {
          m->damage.types++;
          e->kind = HI_TREC_NONE;
        }
      e->name[HI_TYPE_NAME_MAX - 1] = '\0';
    }
  m->type_recs = r;
  m->n_type_recs = n;
  void *pools;
  if (hi_model_read_arena (t, m, HI_ARENA_POOLS, 0, &pools, &n) != HI_OK
      || n > HI_POOLS_MAX)
    {
      free (pools);
      m->damage.types++;
      return;
    }
  m->pools = pools;
  m->n_pools = n;
  for (uint64_t i = 0; i < n; i++)
    m->pools[i].name[HI_POOL_NAME_MAX - 1] = '\0';
}

/* The process record (format 3): entry 0 of its arena, if there is one
   of the right size (HI_PROCESS_SIZE_V5 before format 6: the rest
   zero).  An arena that cannot be read is damage, not a failure: the
   tables do not need it. */
static hi_status
read_process (const struct hi_target *t, struct hi_model *m,
              const struct hi_target *clock)
{
  struct hi_process p;
  memset (&p, 0, sizeof p);
  size_t size = m->root.version >= 6 ? sizeof p : HI_PROCESS_SIZE_V5;
  int have = 0;
  for (uint32_t i = 0; m->root.version >= 3 && i < m->root.n_arenas; i++)
    {
      const struct hi_arena_desc *a = hi_model_arena_desc (&m->root, i);
      if (a->kind != HI_ARENA_PROCESS || a->count == 0)
        continue;
      if (!have && hi_budget_grant (m, HI_ARENA_PROCESS, 1, size) == 0)
        break;                /* the budget's cut, counted there */
      if (have || a->count != 1 || a->capacity < 1
          || a->entry_size != size
          || t->ops->read_memory (t->ctx, a->addr, &p, size) != 0)
        {
          m->damage.process++;
          m->damaged++;
          have = 0;
          break;
        }
      hi_budget_spend (m, size);
      have = 1;
    }
  return hi_procinfo_set (m, have ? &p : NULL, clock);
}

hi_status
hi_model_load (const struct hi_target *t, struct hi_model **out)
{
  return hi_model_load_clocked (t, t, out);
}

hi_status
hi_model_load_clocked (const struct hi_target *t,
                       const struct hi_target *clock, struct hi_model **out)
{
  hi_error_reset ();
  struct hi_model *m = calloc (1, sizeof *m);
  if (!m)
    return HI_E_NOMEM;
  hi_budget_init (m, t);
  hi_status s = read_root (t, m->budget, &m->root);
  if (s == HI_OK)
    s = hi_model_read_arena (t, m, HI_ARENA_NODES, 0,
                             (void **) &m->nodes, &m->n_nodes);
  if (s == HI_OK)
    s = hi_model_read_arena (t, m, HI_ARENA_SITES, 0,
                             (void **) &m->sites, &m->n_sites);
  if (s == HI_OK)
    s = hi_model_read_arena (t, m, HI_ARENA_THREADS, 0,
                             (void **) &m->threads, &m->n_threads);
  if (s == HI_OK)
    s = hi_model_read_arena (t, m, HI_ARENA_MODULES, 0,
                             (void **) &m->modules, &m->n_modules);
  if (s == HI_OK && (m->n_nodes < 2 || m->n_sites < 1))
    s = m->damage.arenas ? hi_fail_text (HI_E_CORRUPT, "its arenas claim "
                                         "more than the input holds")
                         : HI_E_CORRUPT;
  if (s == HI_OK)
    {
      m->bins = calloc (HI_NBINS, sizeof *m->bins);
      if (!m->bins)
        s = HI_E_NOMEM;
    }
  if (s == HI_OK)
    s = validate (m);
  if (s == HI_OK)
    s = read_process (t, m, clock ? clock : t);
  if (s == HI_OK)
    s = hi_model_time_load (t, m);
  if (s == HI_OK)
    s = hi_model_guard_load (t, m);
  if (s == HI_OK)
    {
      read_types (t, m);
      m->damaged += m->damage.types + m->damage.arenas;
    }
  /* A file cut short whose optional arenas (time, errors, types) could
     not all be read: the damage is the cut's, so say the cut. */
  if (s == HI_OK && m->damaged && hi_target_missing (t))
    s = HI_E_UNREADABLE;
  if (s != HI_OK)
    {
      hi_model_free (m);
      /* Missing data in a file cut short: say that, not what it causes. */
      uint64_t missing = hi_target_missing (t);
      if (missing && s != HI_E_NOMEM && s != HI_E_VERSION)
        return hi_fail_missing (HI_E_TRUNCATED, missing);
      return s;
    }
  *out = m;
  return HI_OK;
}

void
hi_model_free (struct hi_model *m)
{
  if (!m)
    return;
  free (m->nodes);
  free (m->sites);
  free (m->bins);
  free (m->threads);
  free (m->modules);
  free (m->chain_time);
  free (m->points);
  free (m->detailed);
  free (m->errors);
  free (m->quarantine);
  free (m->quarantine_by_user);
  free (m->type_recs);
  free (m->pools);
  free ((char *) m->command);
  free (m);
}

/* "the call pair and site arenas cut to what the input holds", after
   SEP, into BUF of SIZE bytes (> 0); the length written, cut to fit. */
static size_t
arenas_cut_text (const struct hi_model *m, const char *sep, char *buf,
                 size_t size)
{
  uint32_t n = (uint32_t) __builtin_popcount (m->arenas_cut), i = 0;
  size_t at = (size_t) snprintf (buf, size, "%sthe", sep);
  for (uint32_t k = 0; k < 32 && at < size; k++)
    if (m->arenas_cut & (UINT32_C(1) << k))
      {
        i++;
        const char *join = i == 1 ? " " : i == n ? " and " : ", ";
        at += (size_t) snprintf (buf + at, size - at, "%s%s", join,
                                 hi_model_arena_name (k));
      }
  if (at < size)
    at += (size_t) snprintf (buf + at, size - at, " arena%s cut to what "
                             "the input holds", n == 1 ? "" : "s");
  return at < size ? at : size - 1;
}

void
hi_model_damage_text (const struct hi_model *m, char *buf, size_t size)
{
  const struct { uint64_t n, of; const char *what; } parts[] = {
    { m->damage.sites, m->n_sites > 0 ? m->n_sites - 1 : 0, "sites" },
    { m->damage.nodes, m->n_nodes > 2 ? m->n_nodes - 2 : 0, "call pairs" },
    { m->damage.threads, m->n_threads, "thread records" },
  };
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    if (parts[i].n && at < size)
      at += (size_t) snprintf (buf + at, size - at, "%s%llu of %llu %s",
                               at ? ", " : "", (unsigned long long) parts[i].n,
                               (unsigned long long) parts[i].of,
                               parts[i].what);
  if (at && at < size)
    at += (size_t) snprintf (buf + at, size - at, " unreadable");
  if (m->damage.arenas && at < size)
    at += arenas_cut_text (m, at ? ", " : "", buf + at, size - at);
  if (m->damage.counters && at < size)
    at += (size_t) snprintf (buf + at, size - at,
                             "%s%llu impossible counter%s corrected",
                             at ? ", " : "",
                             (unsigned long long) m->damage.counters,
                             m->damage.counters == 1 ? "" : "s");
  if (m->damage.root && at < size)
    at += (size_t) snprintf (buf + at, size - at,
                             "%sa root field out of range", at ? ", " : "");
  if (m->damage.process && at < size)
    at += (size_t) snprintf (buf + at, size - at, "%sthe process record "
                             "(command line, times) out of range",
                             at ? ", " : "");
  if (m->damage.time && at < size)
    at += (size_t) snprintf (buf + at, size - at, "%stime data (peak, "
                             "timeline, lifetimes) partly unusable",
                             at ? ", " : "");
  if (m->damage.guards && at < size)
    at += (size_t) snprintf (buf + at, size - at, "%s%llu heap error record%s"
                             " or quarantine entr%s out of range",
                             at ? ", " : "",
                             (unsigned long long) m->damage.guards,
                             m->damage.guards == 1 ? "" : "s",
                             m->damage.guards == 1 ? "y" : "ies");
  if (m->damage.types && at < size)
    snprintf (buf + at, size - at, "%s%llu type or pool record%s unusable",
              at ? ", " : "", (unsigned long long) m->damage.types,
              m->damage.types == 1 ? "" : "s");
}

uint64_t
hi_model_damaged (const struct hi_model *m)
{
  return m->damaged;
}

const struct hi_module *
hi_model_modules (const struct hi_model *m, uint64_t *n)
{
  *n = m->n_modules;
  return m->modules;
}
