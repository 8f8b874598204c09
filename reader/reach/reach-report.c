/* reach-report.c - the --leak-check report: memcheck's leak summary from
   a reachability scan, then the chains of each class. */
#define _GNU_SOURCE
#include "util/num.h"
#include "util/text.h"
#include "model/model.h"
#include "reach/reach-int.h"
#include "tables/tables.h"
#include "util/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const json_key[HI_REACH_NCLASSES] = {
  "definitely_lost", "indirectly_lost", "possibly_lost", "still_reachable"
};

void
hi_reach_skipped_text (const struct hi_reach *r, char *buf, size_t size)
{
  const struct hi_reach_skipped *k = &r->skipped;
  size_t n = 0;
  char h[32];
  if (!size)
    return;
  buf[0] = '\0';
#define SAY(...) \
  do { \
    if (n < size) \
      n += (size_t) snprintf (buf + n, size - n, "%s", n ? ", " : ""); \
    if (n < size) \
      n += (size_t) snprintf (buf + n, size - n, __VA_ARGS__); \
  } while (0)
  if (k->no_mappings)
    SAY ("the target gives no memory map: nothing was searched");
  if (k->no_threads)
    SAY ("the target gives no threads: no registers or stacks as roots "
         "(blocks only they reach show as lost)");
  if (k->mappings)
    {
      hi_human_bytes (k->mapping_bytes, h, sizeof h);
      SAY ("%" PRIu64 " writable mapping%s (%s) not in the target (a "
           "core leaves out what was never written, and shared files)",
           k->mappings, k->mappings == 1 ? "" : "s", h);
    }
  if (k->unreadable_bytes)
    {
      hi_human_bytes (k->unreadable_bytes, h, sizeof h);
      SAY ("%s of roots or blocks unreadable", h);
    }
  if (k->threads)
    SAY ("%" PRIu64 " %s not in the target", k->threads,
         k->threads == 1 ? "thread's stack" : "threads' stacks");
  if (k->bad_headers)
    SAY ("%" PRIu64 " damaged block header%s", k->bad_headers,
         k->bad_headers == 1 ? "" : "s");
  if (k->stale_headers)
    SAY ("%" PRIu64 " stale block header%s (of blocks given back to "
         "malloc)", k->stale_headers, k->stale_headers == 1 ? "" : "s");
  if (k->missing_blocks)
    {
      hi_human_bytes (k->missing_bytes, h, sizeof h);
      SAY ("%" PRIu64 " live block%s (%s) the monitor counts not found "
           "(headers overwritten, or memory not in the target): in no class",
           k->missing_blocks, k->missing_blocks == 1 ? "" : "s", h);
    }
#undef SAY
}

void
hi_reach_foreign_totals (const struct hi_reach *rc,
                         struct hi_reach_totals *out)
{
  memset (out, 0, sizeof *out);
  for (uint64_t k = 0; rc->foreign && k < rc->n_sites; k++)
    if (rc->sites[k].site == rc->foreign_site
        && rc->sites[k].cls < HI_REACH_NCLASSES)
      {
        struct hi_reach_figure *f = &out->cls[rc->sites[k].cls];
        f->bytes = hi_add_sat (f->bytes, rc->sites[k].fig.bytes);
        f->blocks = hi_add_sat (f->blocks, rc->sites[k].fig.blocks);
      }
}

static const struct hi_column summary_columns[] = {
  { .key = "key", .head = "key", .type = HI_CELL_TEXT },
  { .key = "value", .head = "value", .type = HI_CELL_TEXT },
};

/* A text-only line KEY: VALUE of table T, and its JSON figures. */
static void
summary_line (struct hi_rmodel *r, struct hi_table *t, const char *key,
              const char *value)
{
  struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
  if (!c)
    return;
  c[0] = hi_cell_text (key);
  c[1] = hi_cell_text (hi_rmodel_strdup (r, value));
  t->rows[t->n_rows - 1].text_only = 1;
}

static void
summary_number (struct hi_rmodel *r, struct hi_table *t, const char *key,
                uint64_t v)
{
  struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
  if (!c)
    return;
  c[0] = hi_cell_text (key);
  c[1] = hi_cell_count (v);
  t->rows[t->n_rows - 1].json_only = 1;
}

/* Each class's bytes and blocks of TOTALS as JSON figures of table T,
   keyed CLASS<INFIX>_bytes and CLASS<INFIX>_blocks. */
static void
class_numbers (struct hi_rmodel *r, struct hi_table *t, const char *infix,
               const struct hi_reach_totals *totals)
{
  for (int c = 0; c < HI_REACH_NCLASSES; c++)
    {
      char key[64];
      snprintf (key, sizeof key, "%s%s_bytes", json_key[c], infix);
      summary_number (r, t, hi_rmodel_strdup (r, key), totals->cls[c].bytes);
      snprintf (key, sizeof key, "%s%s_blocks", json_key[c], infix);
      summary_number (r, t, hi_rmodel_strdup (r, key), totals->cls[c].blocks);
    }
}

/* The blocks of each class whose chains the user's or the built-in
   suppressions hide (memcheck's "suppressed" leaks), from the per-site
   figures of RC and the site flags of A. */
static void
suppressed_figures (const struct hi_analysis *a, const struct hi_reach *rc,
                    struct hi_reach_totals *supp)
{
  memset (supp, 0, sizeof *supp);
  for (uint64_t k = 0; k < rc->n_sites; k++)
    {
      const struct hi_reach_site *s = &rc->sites[k];
      if (s->site >= a->m->n_sites || s->cls >= HI_REACH_NCLASSES
          || !(hi_site_flags (a, s->site)
               & (HI_SITE_SUPPRESSED | HI_SITE_SUPPRESSED_DEFAULT)))
        continue;
      struct hi_reach_figure *f = &supp->cls[s->cls];
      f->bytes = hi_add_sat (f->bytes, s->fig.bytes);
      f->blocks = hi_add_sat (f->blocks, s->fig.blocks);
    }
}

/* The leak summary: memcheck's four lines and its "suppressed" one
   (exact figures; a class counts only blocks no suppression hides, as
   memcheck's), what was searched, what was skipped.  SHOWN the classes'
   figures, SUPP the suppressed blocks of each class. */
hi_status hi_reach_summary_table (const struct hi_reach *rc,
                                  const struct hi_reach_totals *shown,
                                  const struct hi_reach_totals *supp,
                                  struct hi_rmodel *r);

hi_status
hi_reach_summary_table (const struct hi_reach *rc,
                        const struct hi_reach_totals *shown,
                        const struct hi_reach_totals *supp,
                        struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "leak_summary", "Leak Summary",
                                        summary_columns, 2);
  if (!t)
    return HI_E_NOMEM;
  t->keyvalue = 1;
  t->legend = "live blocks by what reaches them, as valgrind memcheck's "
              "leak check counts them";
  char line[512];
  struct hi_reach_figure all_supp = { 0, 0 };
  for (int c = 0; c < HI_REACH_NCLASSES; c++)
    {
      const struct hi_reach_figure *f = &shown->cls[c];
      snprintf (line, sizeof line, "%" PRIu64 " bytes in %" PRIu64
                " blocks", f->bytes, f->blocks);
      summary_line (r, t, hi_reach_class_name (c), line);
      all_supp.bytes = hi_add_sat (all_supp.bytes, supp->cls[c].bytes);
      all_supp.blocks = hi_add_sat (all_supp.blocks, supp->cls[c].blocks);
    }
  snprintf (line, sizeof line, "%" PRIu64 " bytes in %" PRIu64 " blocks",
            all_supp.bytes, all_supp.blocks);
  summary_line (r, t, "suppressed", line);
  char heap[32], roots[32];
  hi_human_bytes (rc->heap_bytes, heap, sizeof heap);
  hi_human_bytes (rc->root_bytes, roots, sizeof roots);
  int n = snprintf (line, sizeof line, "%" PRIu64 " live blocks in %s of "
                    "heap memory, from the registers of %" PRIu64 " thread%s "
                    "and %s of memory", rc->n_blocks, heap, rc->threads,
                    rc->threads == 1 ? "" : "s", roots);
  if (rc->exit_tid && n > 0 && (size_t) n < sizeof line)
    {
      char frames[32];
      hi_human_bytes (rc->exit_frames_bytes, frames, sizeof frames);
      snprintf (line + n, sizeof line - (size_t) n, "; thread %" PRIu64
                "'s stack from the caller of exit() up (%s of exit()'s own "
                "frames not scanned)", rc->exit_tid, frames);
    }
  if (rc->dead_stacks)
    {
      size_t used = strlen (line);
      char dead[32];
      hi_human_bytes (rc->dead_stack_bytes, dead, sizeof dead);
      snprintf (line + used, sizeof line - used, "; not the %" PRIu64
                " exited thread%s stack%s glibc keeps (%s)", rc->dead_stacks,
                rc->dead_stacks == 1 ? "'s" : "s'",
                rc->dead_stacks == 1 ? "" : "s", dead);
    }
  if (rc->tls_blocks)
    {
      size_t used = strlen (line);
      snprintf (line + used, sizeof line - used, "; %" PRIu64 " dynamic TLS "
                "block%s of live threads as roots", rc->tls_blocks,
                rc->tls_blocks == 1 ? "" : "s");
    }
  summary_line (r, t, "searched", line);
  if (rc->foreign)
    {
      /* An attached monitor: glibc's chunks it did not make, in the
         classes above too. */
      struct hi_reach_totals f;
      hi_reach_foreign_totals (rc, &f);
      uint64_t bytes = 0, blocks = 0;
      for (int c = 0; c < HI_REACH_NCLASSES; c++)
        {
          bytes += f.cls[c].bytes;
          blocks += f.cls[c].blocks;
        }
      snprintf (line, sizeof line, "%" PRIu64 " bytes in %" PRIu64
                " blocks (usable sizes; allocated before the attach, or by "
                "the loader or glibc itself; no chains): %" PRIu64 " bytes "
                "in %" PRIu64 " definitely lost, %" PRIu64 " in %" PRIu64
                " indirectly, %" PRIu64 " in %" PRIu64 " possibly, %" PRIu64
                " in %" PRIu64 " still reachable; in the classes above",
                bytes, blocks, f.cls[0].bytes, f.cls[0].blocks,
                f.cls[1].bytes, f.cls[1].blocks, f.cls[2].bytes,
                f.cls[2].blocks, f.cls[3].bytes, f.cls[3].blocks);
      summary_line (r, t, "not through the monitor", line);
      class_numbers (r, t, "_unmonitored", &f);
    }
  else if (rc->foreign_why)
    {
      snprintf (line, sizeof line, "not scanned: %s", rc->foreign_why);
      summary_line (r, t, "not through the monitor", line);
    }
  if (rc->redzone)
    {
      snprintf (line, sizeof line, "%" PRIu64 " blocks (of %" PRIu32
                " bytes after each live block's)", rc->n_redzones,
                rc->redzone);
      summary_line (r, t, "redzones written", line);
    }
  hi_reach_skipped_text (rc, line, sizeof line);
  if (line[0])
    summary_line (r, t, "skipped", line);
  if (rc->thread_db_why)
    {
      /* The fallback, said once (the reader's own targets only: gdb
         gives its threads by design). */
      snprintf (line, sizeof line, "not listed by libthread_db (%s): %s",
                rc->thread_db_why, rc->dead_by_registers
                ? "the registers tell the live threads' stacks"
                : "every thread stack found is a root, exited threads' "
                  "too");
      summary_line (r, t, "threads", line);
    }
  class_numbers (r, t, "", shown);
  summary_number (r, t, "suppressed_bytes", all_supp.bytes);
  summary_number (r, t, "suppressed_blocks", all_supp.blocks);
  class_numbers (r, t, "_suppressed", supp);
  summary_number (r, t, "blocks", rc->n_blocks);
  summary_number (r, t, "threads", rc->threads);
  summary_number (r, t, "heap_bytes", rc->heap_bytes);
  summary_number (r, t, "root_bytes", rc->root_bytes);
  summary_number (r, t, "dead_stacks", rc->dead_stacks);
  summary_number (r, t, "dead_stack_bytes", rc->dead_stack_bytes);
  summary_number (r, t, "thread_db", (uint64_t) rc->thread_db);
  summary_number (r, t, "tls_blocks", rc->tls_blocks);
  const struct hi_reach_skipped *k = &rc->skipped;
  summary_number (r, t, "skipped_mappings", k->mappings);
  summary_number (r, t, "skipped_mapping_bytes", k->mapping_bytes);
  summary_number (r, t, "unreadable_bytes", k->unreadable_bytes);
  summary_number (r, t, "skipped_threads", k->threads);
  summary_number (r, t, "bad_headers", k->bad_headers);
  summary_number (r, t, "stale_headers", k->stale_headers);
  summary_number (r, t, "missing_blocks", k->missing_blocks);
  summary_number (r, t, "missing_bytes", k->missing_bytes);
  summary_number (r, t, "no_threads", (uint64_t) k->no_threads);
  summary_number (r, t, "redzone", rc->redzone);
  summary_number (r, t, "redzones_written", rc->n_redzones);
  summary_number (r, t, "exit_tid", rc->exit_tid);
  summary_number (r, t, "exit_frames_bytes", rc->exit_frames_bytes);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

static const struct hi_column class_columns[] = {
  { .key = "class", .head = "class", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "bytes", .head = "bytes", .type = HI_CELL_BYTES },
  { .head = "(%)", .type = HI_CELL_PCT2, .paren = 1 },
  { .key = "blocks", .head = "blocks", .type = HI_CELL_COUNT },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

struct crow
{
  uint32_t path;             /* index in first_site */
  unsigned flags;            /* HI_SITE_SUPPRESSED* of its sites */
  struct hi_reach_figure fig;
};

static int
by_bytes (const void *x, const void *y)
{
  const struct crow *a = x, *b = y;
  int c = hi_cmp_u64 (b->fig.bytes, a->fig.bytes);
  if (c == 0)
    c = hi_cmp_u64 (b->fig.blocks, a->fig.blocks);
  return c ? c : hi_cmp_u64 (a->path, b->path);
}

/* The chains of each class, grouped as the leak table groups them
   (--depth, --offsets), definitely lost first, most bytes first; the
   threshold is of the class's bytes and the limit per class. */
static hi_status
class_table (struct hi_analysis *a, const struct hi_reach *rc,
             struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "leak_check", "Leak Check Table",
                                        class_columns,
                                        sizeof class_columns
                                        / sizeof class_columns[0]);
  if (!t)
    return HI_E_NOMEM;
  t->threshold = hi_threshold (&a->opt);
  t->legend = "live blocks by class, then by chain; bytes (%) of the "
              "class's bytes; (**) 100%, ( .) under 1%";
  uint32_t *row_of;
  uint64_t *first_site;
  size_t n;
  unsigned split = HI_SITE_SUPPRESSED | HI_SITE_SUPPRESSED_DEFAULT;
  if (hi_path_rows (a, split, &row_of, &first_site, &n, &t->filtered)
      != HI_OK)
    return HI_E_NOMEM;
  struct crow *rows = calloc (n * HI_REACH_NCLASSES + 1, sizeof *rows);
  if (!rows)
    {
      free (row_of);
      free (first_site);
      return HI_E_NOMEM;
    }
  for (int c = 0; c < HI_REACH_NCLASSES; c++)
    for (size_t i = 0; i < n; i++)
      {
        rows[c * n + i].path = (uint32_t) i;
        rows[c * n + i].flags = hi_site_flags (a, first_site[i]) & split;
      }
  for (uint64_t k = 0; k < rc->n_sites; k++)
    {
      const struct hi_reach_site *s = &rc->sites[k];
      if (s->site >= a->m->n_sites || row_of[s->site] == UINT32_MAX)
        continue;
      struct crow *row = &rows[s->cls * n + row_of[s->site]];
      row->fig.bytes = hi_add_sat (row->fig.bytes, s->fig.bytes);
      row->fig.blocks = hi_add_sat (row->fig.blocks, s->fig.blocks);
    }
  for (int c = 0; c < HI_REACH_NCLASSES && !r->nomem; c++)
    {
      struct crow *cr = &rows[c * n];
      size_t kept = 0;
      uint64_t bytes_all = 0, blocks_all = 0;
      for (size_t i = 0; i < n; i++)
        if (cr[i].fig.blocks)
          {
            bytes_all = hi_add_sat (bytes_all, cr[i].fig.bytes);
            blocks_all = hi_add_sat (blocks_all, cr[i].fig.blocks);
            cr[kept++] = cr[i];
          }
      qsort (cr, kept, sizeof *cr, by_bytes);
      uint64_t shown = 0;
      for (size_t i = 0; i < kept && !r->nomem; i++)
        {
          const struct crow *row = &cr[i];
          if (row->flags & split)
            {
              hi_table_suppressed (t, (row->flags & HI_SITE_SUPPRESSED) != 0,
                                   row->fig.bytes);
              continue;
            }
          int above = row->fig.bytes
                      ? hi_shown (&a->opt, row->fig.bytes, bytes_all)
                      : hi_shown (&a->opt, row->fig.blocks, blocks_all);
          if (!hi_keep_row (&a->opt, t, &shown, above))
            continue;
          struct hi_cell *cell = hi_rmodel_row (r, t, HI_ROW_PLAIN);
          if (!cell)
            break;
          t->rows[t->n_rows - 1].group = (uint32_t) c;
          cell[0] = hi_cell_text (hi_reach_class_name (c));
          cell[1] = hi_cell_bytes (row->fig.bytes);
          cell[2] = hi_cell_pct2 (row->fig.bytes, bytes_all);
          cell[3] = hi_cell_count (row->fig.blocks);
          cell[4] = hi_path_cell (a, first_site[row->path], r);
        }
    }
  free (rows);
  free (row_of);
  free (first_site);
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

static const struct hi_column redzone_columns[] = {
  { .key = "address", .head = "address", .type = HI_CELL_TEXT, .left = 1 },
  { .key = "size", .head = "size", .type = HI_CELL_COUNT },
  { .key = "offset", .head = "offset", .type = HI_CELL_COUNT },
  { .key = "path", .head = "path", .type = HI_CELL_PATH, .left = 1 },
};

/* The live blocks whose redzone was written (none: no table): each
   block's address, requested size, the offset of the first changed
   byte from its start, and its allocating chain.  Neither filters nor
   suppressions apply: these are heap errors, not leaks. */
static hi_status
redzone_table (struct hi_analysis *a, const struct hi_reach *rc,
               struct hi_rmodel *r)
{
  if (!rc->n_redzones)
    return HI_OK;
  struct hi_table *t = hi_rmodel_table (r, "redzones_written",
                                        "Redzones Written", redzone_columns,
                                        sizeof redzone_columns
                                        / sizeof redzone_columns[0]);
  if (!t)
    return HI_E_NOMEM;
  t->legend = "live blocks written past their end, into their redzone: "
              "the first changed byte's offset from the block's start";
  for (uint64_t k = 0; k < rc->n_redzones && !r->nomem; k++)
    {
      const struct hi_reach_redzone *z = &rc->redzones[k];
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      char addr[32];
      snprintf (addr, sizeof addr, "0x%" PRIx64, z->user);
      c[0] = hi_cell_text (hi_rmodel_strdup (r, addr));
      c[1] = hi_cell_count (z->size);
      c[2] = hi_cell_count (z->offset);
      if (z->site < a->m->n_sites)
        c[3] = hi_path_cell (a, z->site, r);
    }
  return r->nomem ? HI_E_NOMEM : HI_OK;
}

hi_status
hi_reach_report (const struct hi_target *t, const struct hi_model *m,
                 const char *exe, const char *name,
                 const struct hi_options *opt, FILE *out,
                 struct hi_reach_totals *totals, unsigned *missing)
{
  if (missing)
    *missing = 0;
  if (opt->format != HI_TEXT && opt->format != HI_JSON)
    return HI_E_USAGE;
  if (!t->ops->mapping)
    return HI_E_NO_MEMORY;
  struct hi_reach *rc;
  hi_status s = hi_reach_scan (t, m, 0, &rc);
  if (s != HI_OK)
    return s;
  struct hi_symbolizer *sym = hi_symbolizer_new (m, exe);
  struct hi_analysis a;
  memset (&a, 0, sizeof a);
  s = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
  if (s != HI_OK)
    {
      hi_symbolizer_free (sym);
      hi_reach_free (rc);
      return s;
    }
  /* The classes without what the suppressions hide, as memcheck's. */
  struct hi_reach_totals supp, shown = rc->totals;
  suppressed_figures (&a, rc, &supp);
  for (int c = 0; c < HI_REACH_NCLASSES; c++)
    {
      shown.cls[c].bytes -= supp.cls[c].bytes;
      shown.cls[c].blocks -= supp.cls[c].blocks;
    }
  if (totals)
    *totals = shown;
  struct hi_rmodel r;
  hi_rmodel_init (&r);
  r.source = name;
  r.incomplete = m->damaged != 0;
  /* Heap errors first, as memcheck reports its errors before its leak
     summary (and the default tables lead with them: hi_report). */
  s = m->errors_total ? hi_table_errors (&a, &r) : HI_OK;
  if (s == HI_OK)
    s = hi_reach_summary_table (rc, &shown, &supp, &r);
  if (s == HI_OK)
    s = class_table (&a, rc, &r);
  if (s == HI_OK && rc->foreign)
    s = hi_reach_size_table (rc, rc->foreign_site, opt, &r,
                             "leak_unmonitored", "Leak Check Table, Not "
                             "Through the Monitor",
                             "live blocks not made through the monitor "
                             "(allocated before the attach, or by the "
                             "loader or glibc itself) by class, then by "
                             "usable size: no call chains");
  if (s == HI_OK)
    s = redzone_table (&a, rc, &r);
  unsigned nmissing = hi_symbolizer_missing (sym);
  if (s == HI_OK)
    s = hi_summary_build (m, &a, nmissing, &r);
  if (s == HI_OK)
    {
      char what[512];
      hi_reach_skipped_text (rc, what, sizeof what);
      struct hi_summary *sm = &r.summary;
      if (what[0] && sm->n_problems < sizeof sm->problems
                                      / sizeof sm->problems[0])
        {
          char line[600];
          snprintf (line, sizeof line, "leak check: %s", what);
          const char *copy = hi_rmodel_strdup (&r, line);
          if (copy)
            sm->problems[sm->n_problems++] = copy;
        }
      hi_emit_text_or_json (&r, opt, out);
      if (ferror (out))
        s = HI_E_WRITE;
    }
  if (missing)
    *missing = nmissing;
  hi_rmodel_free (&r);
  hi_analysis_free (&a);
  hi_symbolizer_free (sym);
  hi_reach_free (rc);
  return s;
}
