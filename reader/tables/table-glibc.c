/* table-glibc.c - glibc's own heap (glibc/glibc.h) as a report: its
   totals under the names mallinfo2() gives them, then one row per
   arena with the figures malloc_info() prints for it.  For any glibc
   program, monitored or not. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "glibc/glibc.h"
#include "report/rmodel.h"
#include "symbols/mapsyms.h"
#include "tables/tables.h"
#include "target/target.h"
#include "util/num.h"

static const struct hi_column kv_columns[] = {
  { .key = "key", .head = "key", .type = HI_CELL_TEXT },
  { .key = "value", .head = "value", .type = HI_CELL_COUNT },
};

/* A row KEY = C of key/value table T. */
static void
kv (struct hi_rmodel *r, struct hi_table *t, const char *key,
    struct hi_cell c)
{
  struct hi_cell *row = hi_rmodel_row (r, t, HI_ROW_PLAIN);
  if (!row)
    return;
  row[0] = hi_cell_text (key);
  row[1] = c;
}

/* mallinfo2()'s figures: int_mallinfo's sums over the arenas. */
static void
totals_table (const struct hi_glibc *g, struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "glibc", "glibc Heap",
                                        kv_columns, 2);
  if (!t)
    return;
  t->keyvalue = 1;
  t->threshold = -1;
  uint64_t system = 0, fast_n = 0, fast_b = 0, free_n = 0, free_b = 0;
  uint64_t top_b = 0, largest = 0, keepcost = 0;
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      system = hi_add_sat (system, a->system_bytes);
      fast_n = hi_add_sat (fast_n, a->fast_chunks);
      fast_b = hi_add_sat (fast_b, a->fast_bytes);
      /* ordblks: the top and the other bins' chunks. */
      free_n = hi_add_sat (free_n, hi_add_sat (1, a->bin_chunks));
      free_b = hi_add_sat (free_b, hi_add_sat (a->top_bytes,
                                               hi_add_sat (a->fast_bytes,
                                                           a->bin_bytes)));
      top_b = hi_add_sat (top_b, a->top_bytes);
      if (a->largest_free > largest)
        largest = a->largest_free;
      if (a->is_main)
        keepcost = a->top_bytes;
    }
  char version[160];
  snprintf (version, sizeof version, "%s (main_arena from %s%s)",
            g->version, g->found_by, g->layout_tested ? ""
            : "; its layout believed from glibc's sources, untested");
  kv (r, t, "glibc", hi_cell_text (hi_rmodel_strdup (r, version)));
  kv (r, t, "arenas", hi_cell_count (g->n_arenas));
  kv (r, t, "arena", hi_cell_count (system));
  kv (r, t, "ordblks", hi_cell_count (free_n));
  kv (r, t, "smblks", hi_cell_count (fast_n));
  kv (r, t, "hblks", hi_cell_count (g->mmapped_chunks));
  kv (r, t, "hblkhd", hi_cell_count (g->mmapped_bytes));
  kv (r, t, "usmblks", hi_cell_count (0));
  kv (r, t, "fsmblks", hi_cell_count (fast_b));
  kv (r, t, "uordblks", hi_cell_count (hi_sub0 (system, free_b)));
  kv (r, t, "fordblks", hi_cell_count (free_b));
  kv (r, t, "keepcost", hi_cell_count (keepcost));
  kv (r, t, "largest_free", hi_cell_count (largest));
  /* Fragmentation: free bytes outside the tops, of all free bytes. */
  kv (r, t, "fragmentation", (struct hi_cell) { HI_CELL_RATE, NULL,
                                                hi_sub0 (free_b, top_b),
                                                free_b });
  uint64_t tc_n = 0, tc_b = 0;
  for (uint64_t i = 0; i < g->n_tcaches; i++)
    {
      tc_n = hi_add_sat (tc_n, g->tcaches[i].chunks);
      tc_b = hi_add_sat (tc_b, g->tcaches[i].bytes);
    }
  if (g->tcache_known)
    {
      kv (r, t, "tcache_chunks", hi_cell_count (tc_n));
      kv (r, t, "tcache_bytes", hi_cell_count (tc_b));
    }
  else
    kv (r, t, "tcache", hi_cell_text ("not read (the threads' TLS needs "
                                      "libc's debug symbols and "
                                      "libthread_db)"));
  kv (r, t, "damaged", hi_cell_count (g->damaged));
}

static const struct hi_column tcache_columns[] = {
  { .key = "thread", .head = "thread", .type = HI_CELL_COUNT },
  { .key = "chunks", .head = "chunks", .type = HI_CELL_COUNT },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_COUNT },
};

/* One row per thread: what its tcache holds (in use for glibc). */
static void
tcache_table (const struct hi_glibc *g, struct hi_rmodel *r)
{
  if (!g->tcache_known)
    return;
  struct hi_table *t = hi_rmodel_table (r, "glibc_tcache", "glibc Tcache",
                                        tcache_columns, 3);
  if (!t)
    return;
  t->legend = "free chunks each thread's tcache holds (glibc counts them "
              "in use), by thread id";
  t->threshold = -1;
  for (uint64_t i = 0; i < g->n_tcaches; i++)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return;
      c[0] = hi_cell_count (g->tcaches[i].tid);
      c[1] = hi_cell_count (g->tcaches[i].chunks);
      c[2] = hi_cell_count (g->tcaches[i].bytes);
    }
}

static const struct hi_column arena_columns[] = {
  { .key = "arena", .head = "arena", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "system", .head = "system", .type = HI_CELL_COUNT },
  { .key = "max_system", .head = "max system", .type = HI_CELL_COUNT },
  { .key = "fast_count", .head = "fast", .type = HI_CELL_COUNT },
  { .key = "fast_size", .head = "fast bytes", .type = HI_CELL_COUNT },
  { .key = "rest_count", .head = "rest", .type = HI_CELL_COUNT },
  { .key = "rest_size", .head = "rest bytes", .type = HI_CELL_COUNT },
  { .key = "top", .head = "top", .type = HI_CELL_COUNT },
  { .key = "heaps", .head = "heaps", .type = HI_CELL_COUNT },
};

/* One row per arena, malloc_info()'s <heap> figures: "rest" is the top
   and the other bins' chunks, as malloc_info counts them. */
static void
arena_table (const struct hi_glibc *g, struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "glibc_arenas", "glibc Arenas",
                                        arena_columns,
                                        sizeof arena_columns
                                        / sizeof arena_columns[0]);
  if (!t)
    return;
  t->legend = "malloc_info()'s figures per arena, in bytes of chunks "
              "(headers included; malloc_info's rest bytes also add 1 "
              "per binned chunk, its PREV_INUSE bit)";
  t->threshold = -1;
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        return;
      char name[40];
      if (a->is_main)
        snprintf (name, sizeof name, "main");
      else
        snprintf (name, sizeof name, "0x%" PRIx64, a->addr);
      c[0] = hi_cell_text (hi_rmodel_strdup (r, name));
      c[1] = hi_cell_count (a->system_bytes);
      c[2] = hi_cell_count (a->max_system_bytes);
      c[3] = hi_cell_count (a->fast_chunks);
      c[4] = hi_cell_count (a->fast_bytes);
      c[5] = hi_cell_count (hi_add_sat (1, a->bin_chunks));
      c[6] = hi_cell_count (hi_add_sat (a->top_bytes, a->bin_bytes));
      c[7] = hi_cell_count (a->top_bytes);
      c[8] = hi_cell_count (a->heaps);
    }
}

static const struct hi_column sizes_columns[] = {
  { .key = "arena", .head = "arena", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "list", .head = "list", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "from", .head = "from", .type = HI_CELL_COUNT },
  { .key = "to", .head = "to", .type = HI_CELL_COUNT },
  { .key = "total", .head = "bytes", .type = HI_CELL_COUNT },
  { .key = "count", .head = "chunks", .type = HI_CELL_COUNT },
};

/* A row of the sizes table: arena NAME's list LIST. */
static void
sizes_row (struct hi_rmodel *r, struct hi_table *t, const char *name,
           const char *list, uint64_t from, uint64_t to, uint64_t total,
           uint64_t count)
{
  struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
  if (!c)
    return;
  c[0] = hi_cell_text (name);
  c[1] = hi_cell_text (hi_rmodel_strdup (r, list));
  c[2] = hi_cell_count (from);
  c[3] = hi_cell_count (to);
  c[4] = hi_cell_count (total);
  c[5] = hi_cell_count (count);
}

/* Each arena's free chunks by list, malloc_info()'s <sizes> rows in its
   order: the fastbins (a fastbin's from is its chunk size less
   MALLOC_ALIGNMENT - 1, as malloc_info has it), the small and large
   bins, the unsorted bin last; lists without chunks left out. */
static void
sizes_table (const struct hi_glibc *g, struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "glibc_sizes",
                                        "glibc Free Chunks by Size",
                                        sizes_columns,
                                        sizeof sizes_columns
                                        / sizeof sizes_columns[0]);
  if (!t)
    return;
  t->legend = "each arena's fastbins and bins, as malloc_info()'s <size> "
              "rows: chunk sizes from and to, their bytes and count "
              "(chunksize(): malloc_info's bin rows add each chunk's flag "
              "bits)";
  t->threshold = -1;
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      char name[40], list[40];
      if (a->is_main)
        snprintf (name, sizeof name, "main");
      else
        snprintf (name, sizeof name, "0x%" PRIx64, a->addr);
      const char *n = hi_rmodel_strdup (r, name);
      for (unsigned b = 0; b < HI_GLIBC_NFASTBINS; b++)
        if (a->fast[b].count)
          {
            snprintf (list, sizeof list, "fastbin %u", b);
            sizes_row (r, t, n, list, hi_sub0 (a->fast[b].to, 15),
                       a->fast[b].to, a->fast[b].total, a->fast[b].count);
          }
      for (unsigned b = 2; b <= HI_GLIBC_NBINS; b++)
        {
          /* The unsorted bin (1) last. */
          const struct hi_glibc_sizes *z = &a->bins[b < HI_GLIBC_NBINS
                                                    ? b : 1];
          if (!z->count)
            continue;
          if (b < HI_GLIBC_NBINS)
            snprintf (list, sizeof list, "%s bin %u", b < 64 ? "small"
                      : "large", b);
          else
            snprintf (list, sizeof list, "unsorted");
          sizes_row (r, t, n, list, z->from, z->to, z->total, z->count);
        }
    }
}

/* The reports' one skeleton (tables.h): read glibc's heap of T, build,
   emit as OPT says. */
hi_status
hi_glibc_emit (const struct hi_target *t, const char *name,
               const struct hi_options *opt, FILE *out, const char **why,
               int *written, hi_glibc_build_fn *build, void *arg)
{
  *why = NULL;
  if (written)
    *written = 0;
  if (opt->format != HI_TEXT && opt->format != HI_JSON)
    return HI_E_USAGE;
  struct hi_glibc *g;
  hi_status s = hi_glibc_load (t, &g, why);
  if (s != HI_OK)
    return s;
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = name;
  r.incomplete = g->damaged != 0;
  s = build (t, g, &r, arg);
  if (s == HI_OK && r.nomem)
    s = HI_E_NOMEM;
  /* "Not a block" may still say where the address is. */
  if (s == HI_OK || (s == HI_E_NOT_BLOCK && r.n_tables))
    {
      hi_emit_text_or_json (&r, opt, out);
      if (ferror (out))
        s = HI_E_WRITE;
      else if (written)
        *written = 1;
    }
  hi_rmodel_free (&r);
  hi_glibc_free (g);
  return s;
}

static hi_status
build_stat (const struct hi_target *t, const struct hi_glibc *g,
            struct hi_rmodel *r, void *arg)
{
  (void) t, (void) arg;
  totals_table (g, r);
  arena_table (g, r);
  sizes_table (g, r);
  tcache_table (g, r);
  return HI_OK;
}

hi_status
hi_glibc_report (const struct hi_target *t, const char *name,
                 const struct hi_options *opt, FILE *out, const char **why)
{
  return hi_glibc_emit (t, name, opt, out, why, NULL, build_stat, NULL);
}

/* What glibc's state of chunk C is, in words, into BUF. */
static void
state_text (const struct hi_glibc *g, const struct hi_glibc_chunk *c,
            char *buf, size_t size)
{
  switch (c->state)
    {
    case HI_GLIBC_IN_USE:
      snprintf (buf, size, g->tcache_known ? "in use"
                : "in use, or free in a thread's tcache (the tcaches "
                  "could not be read)");
      return;
    case HI_GLIBC_TOP:
      snprintf (buf, size, "the top chunk (free, at the arena's end)");
      return;
    case HI_GLIBC_MMAPPED:
      snprintf (buf, size, "in use, mmapped on its own");
      return;
    case HI_GLIBC_FREE_UNLISTED:
      snprintf (buf, size, "free by its neighbour's PREV_INUSE bit, but "
                "in no bin or tcache (damage?)");
      return;
    default:
      break;
    }
  const struct hi_glibc_free *f = &c->listed;
  if (f->list == HI_GLIBC_TCACHE && f->index < g->n_tcaches)
    snprintf (buf, size, "free, in thread %" PRIu64 "'s tcache (bin %"
              PRIu64 ")", g->tcaches[f->index].tid, (c->size - 32) / 16);
  else if (f->list == HI_GLIBC_FASTBIN)
    snprintf (buf, size, "free, in fastbin %" PRIu32, f->index);
  else if (f->index == 1)
    snprintf (buf, size, "free, in the unsorted bin");
  else
    snprintf (buf, size, "free, in %s bin %" PRIu32,
              f->index < 64 ? "small" : "large", f->index);
}

/* ADDR in no chunk: if it is on a thread's stack, a table that says
   whose (its LWP and start function); HI_E_NOT_BLOCK either way. */
static hi_status
stack_address (const struct hi_target *t, uint64_t addr,
               struct hi_rmodel *r)
{
  struct hi_stack_thread th;
  if (hi_stack_thread (t, addr, &th) != 0)
    return HI_E_NOT_BLOCK;
  struct hi_mapsyms *ms = hi_mapsyms_new (t, HI_MAPSYMS_FUNCTIONS);
  struct hi_table *tb = hi_rmodel_table (r, "glibc_address", "glibc Address",
                                         kv_columns, 2);
  if (!ms || !tb)
    {
      hi_mapsyms_free (ms);
      return HI_E_NOMEM;
    }
  const char *start = th.start ? hi_mapsyms_function (ms, th.start) : NULL;
  char text[600];
  tb->keyvalue = 1;
  tb->threshold = -1;
  snprintf (text, sizeof text, "0x%" PRIx64, addr);
  kv (r, tb, "address", hi_cell_text (hi_rmodel_strdup (r, text)));
  if (start)
    snprintf (text, sizeof text, "on the stack of thread %" PRIu64
              " (started at %.400s), in no heap of glibc's", th.tid, start);
  else
    snprintf (text, sizeof text, "on the stack of thread %" PRIu64 ", in "
              "no heap of glibc's", th.tid);
  kv (r, tb, "where", hi_cell_text (hi_rmodel_strdup (r, text)));
  kv (r, tb, "thread", hi_cell_count (th.tid));
  if (start)
    kv (r, tb, "start", hi_cell_text (hi_rmodel_strdup (r, start)));
  hi_mapsyms_free (ms);
  return r->nomem ? HI_E_NOMEM : HI_E_NOT_BLOCK;
}

static hi_status
build_block (const struct hi_target *t, const struct hi_glibc *g,
             struct hi_rmodel *r, void *arg)
{
  uint64_t addr = *(const uint64_t *) arg;
  struct hi_glibc_chunk c;
  if (hi_glibc_find (t, g, addr, &c) != 0)
    return stack_address (t, addr, r);
  struct hi_table *tb = hi_rmodel_table (r, "glibc_block", "glibc Chunk",
                                         kv_columns, 2);
  if (!tb)
    return HI_E_NOMEM;
  char text[160];
  tb->keyvalue = 1;
  tb->threshold = -1;
  snprintf (text, sizeof text, "0x%" PRIx64, addr);
  kv (r, tb, "address", hi_cell_text (hi_rmodel_strdup (r, text)));
  snprintf (text, sizeof text, "0x%" PRIx64, c.chunk);
  kv (r, tb, "chunk", hi_cell_text (hi_rmodel_strdup (r, text)));
  kv (r, tb, "size", hi_cell_count (c.size));
  /* Usable bytes: the chunk less its size word (an in-use chunk's
     neighbour lends its prev_size word); an mmapped one less both
     words. */
  kv (r, tb, "usable", hi_cell_count (c.state == HI_GLIBC_MMAPPED
                                      ? c.size - 16 : c.size - 8));
  kv (r, tb, "offset", hi_cell_count (addr - c.chunk));
  state_text (g, &c, text, sizeof text);
  kv (r, tb, "state", hi_cell_text (hi_rmodel_strdup (r, text)));
  if (c.state == HI_GLIBC_IN_USE || c.state == HI_GLIBC_MMAPPED)
    {
      /* A C++ object's first word: its vtable pointer. */
      struct hi_mapsyms *vt = hi_mapsyms_new (t, HI_MAPSYMS_VTABLES);
      if (!vt)
        return HI_E_NOMEM;
      const char *type = hi_mapsyms_class_at (vt, t, c.chunk + 16);
      if (type)
        kv (r, tb, "type", hi_cell_text (hi_rmodel_strdup (r, type)));
      hi_mapsyms_free (vt);
    }
  if (c.arena)
    {
      if (c.main_arena)
        snprintf (text, sizeof text, "main");
      else
        snprintf (text, sizeof text, "0x%" PRIx64, c.arena);
      kv (r, tb, "arena", hi_cell_text (hi_rmodel_strdup (r, text)));
    }
  const struct { const char *key; uint64_t at, size; } near[] = {
    { "previous", c.prev, c.prev_size }, { "next", c.next, c.next_size },
  };
  for (int k = 0; k < 2; k++)
    if (near[k].at)
      {
        snprintf (text, sizeof text, "0x%" PRIx64 " (%" PRIu64 " bytes)",
                  near[k].at, near[k].size);
        kv (r, tb, near[k].key, hi_cell_text (hi_rmodel_strdup (r, text)));
      }
  return HI_OK;
}

hi_status
hi_glibc_block_table (const struct hi_target *t, uint64_t addr,
                      struct hi_rmodel *r)
{
  const char *why;
  struct hi_glibc *g;
  if (hi_glibc_load (t, &g, &why) != HI_OK)
    return HI_OK;               /* no glibc heap to add: not an error */
  /* A chunk only: where else the address is, the caller says. */
  struct hi_glibc_chunk c;
  hi_status s = hi_glibc_find (t, g, addr, &c) == 0
                ? build_block (t, g, r, &addr) : HI_OK;
  hi_glibc_free (g);
  return s == HI_E_NOT_BLOCK ? HI_OK : s;
}

hi_status
hi_glibc_block_report (const struct hi_target *t, const char *name,
                       uint64_t addr, const struct hi_options *opt,
                       FILE *out, const char **why, int *written)
{
  return hi_glibc_emit (t, name, opt, out, why, written, build_block,
                        &addr);
}

static hi_status
build_verify (const struct hi_target *t, const struct hi_glibc *g,
              struct hi_rmodel *r, void *arg)
{
  uint64_t *problems = arg;
  struct hi_glibc_problem first;
  hi_status s = hi_glibc_verify (t, g, &first, problems);
  struct hi_table *tb = hi_rmodel_table (r, "glibc_verify", "glibc Verify",
                                         kv_columns, 2);
  if (s != HI_OK || !tb)
    return s != HI_OK ? s : HI_E_NOMEM;
  char text[200];
  tb->keyvalue = 1;
  tb->threshold = -1;
  /* Without the threads' tcaches (no debug symbols, no libthread_db)
     their chunks were not checked: it says so rather than "the heap". */
  tb->legend = g->tcache_known
               ? "glibc's own checks, made on every chunk, bin and tcache "
                 "without aborting anything"
               : "glibc's own checks, made on every chunk and bin (the "
                 "threads' tcaches were not read) without aborting anything";
  kv (r, tb, "checked", hi_cell_text (g->tcache_known
                                      ? "every chunk, bin and tcache"
                                      : "every chunk and bin, no tcache (not "
                                        "read: that needs libc's debug "
                                        "symbols and libthread_db)"));
  kv (r, tb, "arenas", hi_cell_count (g->n_arenas));
  kv (r, tb, "problems", hi_cell_count (*problems));
  if (!first.what)
    {
      kv (r, tb, "first", hi_cell_text (g->tcache_known
                                        ? "none: the heap is consistent"
                                        : "none in the chunks and bins (no "
                                          "tcache checked)"));
      return HI_OK;
    }
  kv (r, tb, "first", hi_cell_text (first.what));
  if (first.chunk)
    {
      snprintf (text, sizeof text, "0x%" PRIx64, first.chunk);
      kv (r, tb, "chunk", hi_cell_text (hi_rmodel_strdup (r, text)));
    }
  if (first.before)
    {
      snprintf (text, sizeof text, "0x%" PRIx64 " (user memory from 0x%"
                PRIx64 ": the likely overflower)", first.before,
                first.before + 16);
      kv (r, tb, "in use before it",
          hi_cell_text (hi_rmodel_strdup (r, text)));
    }
  return HI_OK;
}

hi_status
hi_glibc_verify_report (const struct hi_target *t, const char *name,
                        const struct hi_options *opt, FILE *out,
                        const char **why, uint64_t *problems)
{
  *problems = 0;
  return hi_glibc_emit (t, name, opt, out, why, NULL, build_verify,
                        problems);
}

int
hi_glibc_locked (const struct hi_target *t)
{
  const char *why;
  struct hi_glibc *g;
  if (hi_glibc_load (t, &g, &why) != HI_OK)
    return -1;
  int locked = 0;
  /* Each arena's mutex (an int, malloc_state's first field): 0 free. */
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      int32_t m;
      if (t->ops->read_memory (t->ctx, g->arenas[i].addr, &m, 4) != 0)
        locked = -1;
      else if (m != 0 && locked >= 0)
        locked = 1;
    }
  hi_glibc_free (g);
  return locked;
}
