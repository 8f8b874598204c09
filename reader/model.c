/* model.c - copying the monitor's root and arenas out of a target and
   validating them, so that the tables can trust what they walk. */
#include "hi-reader.h"

#include <stdlib.h>
#include <string.h>

/* No arena of a sane process is larger; a hostile count must not make
   us allocate without bound. */
#define ARENA_BYTES_MAX (UINT64_C(1) << 32)

static const uint32_t entry_sizes[HI_NARENA_KINDS] = {
  [HI_ARENA_NODES] = sizeof (struct hi_node),
  [HI_ARENA_SITES] = sizeof (struct hi_site),
  [HI_ARENA_THREADS] = sizeof (struct hi_thread),
  [HI_ARENA_MODULES] = sizeof (struct hi_module),
  [HI_ARENA_HASH] = sizeof (uint32_t),
};

/* Without symbols: the first 8-aligned HI_ROOT_MAGIC in a writable region
   followed by this format's version and root size.  (The monitor scrubs
   the copies of its root it makes on the stack.) */
static int
scan_for_root (const struct hi_target *t, uint64_t *addr)
{
  enum { CHUNK = 1 << 20 };
  uint64_t *buf = malloc (CHUNK + 16);
  uint64_t base, size;
  for (size_t i = 0; buf && t->ops->region
       && t->ops->region (t->ctx, i, &base, &size) == 0; i++)
    for (uint64_t off = 0; off + 16 <= size; off += CHUNK)
      {
        size_t n = size - off < CHUNK + 16 ? (size_t) (size - off) : CHUNK + 16;
        if (t->ops->read_memory (t->ctx, base + off, buf, n) != 0)
          continue;
        for (size_t k = 0; k + 2 <= n / 8 && k < CHUNK / 8; k++)
          if (buf[k] == HI_ROOT_MAGIC
              && (uint32_t) buf[k + 1] == HI_FORMAT_VERSION
              && (uint32_t) (buf[k + 1] >> 32) == sizeof (struct hi_root))
            {
              *addr = base + off + 8 * k;
              free (buf);
              return 0;
            }
      }
  free (buf);
  return -1;
}

static hi_status
read_root (const struct hi_target *t, struct hi_root *r)
{
  uint64_t addr;
  if (t->ops->lookup_symbol (t->ctx, "heapinspect_root", &addr) != 0
      && scan_for_root (t, &addr) != 0)
    return HI_E_NO_DATA;
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
  if (version != HI_FORMAT_VERSION)
    return HI_E_VERSION;
  if (t->ops->read_memory (t->ctx, addr, r, sizeof *r) != 0)
    return HI_E_UNREADABLE;
  if (r->root_size != sizeof *r || r->pointer_size != sizeof (void *)
      || r->byte_order != HI_ORDER_LITTLE || r->n_arenas > HI_MAX_ARENAS
      || !r->ready)
    return HI_E_CORRUPT;
  return HI_OK;
}

/* Copy the arena of KIND into a new array; *COUNT entries.  A missing
   arena yields an empty array. */
static hi_status
read_arena (const struct hi_target *t, const struct hi_root *r,
            uint32_t kind, void **out, uint64_t *count)
{
  *out = NULL;
  *count = 0;
  for (uint32_t i = 0; i < r->n_arenas; i++)
    {
      const struct hi_arena_desc *a = &r->arenas[i];
      if (a->kind != kind)
        continue;
      if (a->entry_size != entry_sizes[kind] || a->count > a->capacity
          || a->count > ARENA_BYTES_MAX / a->entry_size)
        return HI_E_CORRUPT;
      if (a->count == 0)
        return HI_OK;
      void *p = malloc (a->count * a->entry_size);
      if (!p)
        return HI_E_NOMEM;
      if (t->ops->read_memory (t->ctx, a->addr, p, a->count * a->entry_size))
        {
          free (p);
          return HI_E_UNREADABLE;
        }
      *out = p;
      *count = a->count;
      return HI_OK;
    }
  return HI_OK;
}

/* Drop links that break the model's invariants: a node's parent is an
   older node (so every walk to the root ends), node <-> site links agree. */
static void
validate (struct hi_model *m)
{
  for (uint64_t i = 0; i < m->n_nodes; i++)
    {
      struct hi_node *n = &m->nodes[i];
      if (i > HI_NODE_CUT && n->parent >= i)
        {
          n->parent = HI_NODE_CUT;
          n->site = 0;
          m->damaged++;
        }
      if (n->site >= m->n_sites)
        {
          n->site = 0;
          m->damaged++;
        }
    }
  for (uint64_t i = 1; i < m->n_sites; i++)
    {
      struct hi_site *s = &m->sites[i];
      if (s->node >= m->n_nodes || s->node <= HI_NODE_CUT
          || s->depth > 65535)
        {
          memset (s, 0, sizeof *s);
          m->damaged++;
        }
    }
  for (uint64_t i = 0; i < m->n_modules; i++)
    m->modules[i].path[HI_PATH_MAX - 1] = '\0';
}

hi_status
hi_model_load (const struct hi_target *t, struct hi_model **out)
{
  struct hi_model *m = calloc (1, sizeof *m);
  if (!m)
    return HI_E_NOMEM;
  hi_status s = read_root (t, &m->root);
  if (s == HI_OK)
    s = read_arena (t, &m->root, HI_ARENA_NODES, (void **) &m->nodes,
                    &m->n_nodes);
  if (s == HI_OK)
    s = read_arena (t, &m->root, HI_ARENA_SITES, (void **) &m->sites,
                    &m->n_sites);
  if (s == HI_OK)
    s = read_arena (t, &m->root, HI_ARENA_THREADS, (void **) &m->threads,
                    &m->n_threads);
  if (s == HI_OK)
    s = read_arena (t, &m->root, HI_ARENA_MODULES, (void **) &m->modules,
                    &m->n_modules);
  if (s == HI_OK && (m->n_nodes < 2 || m->n_sites < 1))
    s = HI_E_CORRUPT;
  if (s == HI_OK)
    {
      /* Size bins are per thread in the monitor; the model has the sums. */
      m->bins = calloc (HI_NBINS, sizeof *m->bins);
      if (!m->bins)
        s = HI_E_NOMEM;
      for (uint64_t i = 0; m->bins && i < m->n_threads; i++)
        for (unsigned b = 0; b < HI_NBINS; b++)
          {
            m->bins[b].allocs += m->threads[i].bins[b].allocs;
            m->bins[b].frees += m->threads[i].bins[b].frees;
            m->bins[b].bytes += m->threads[i].bins[b].bytes;
            m->bins[b].bytes_freed += m->threads[i].bins[b].bytes_freed;
          }
    }
  if (s != HI_OK)
    {
      hi_model_free (m);
      return s;
    }
  validate (m);
  /* Threads keep their busiest sites' counters; add them in. */
  for (uint64_t i = 0; i < m->n_threads; i++)
    for (unsigned k = 0; k < HI_THREAD_SITES; k++)
      {
        const struct hi_thread_site *ts = &m->threads[i].sites[k];
        if (ts->site == 0)
          continue;
        if (ts->site >= m->n_sites)
          {
            m->damaged++;
            continue;
          }
        struct hi_site *site = &m->sites[ts->site];
        for (int c = 0; c < HI_NSIZE_CLASSES; c++)
          {
            site->allocs[c] += ts->allocs[c];
            site->frees[c] += ts->frees[c];
            site->bytes[c] += ts->bytes[c];
            site->bytes_freed[c] += ts->bytes_freed[c];
          }
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
  free (m);
}
