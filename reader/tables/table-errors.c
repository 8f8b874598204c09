/* table-errors.c - the errors table (format 5 on): every heap error the
   monitor recorded, in the order found, as a paragraph each (what, where,
   which block, the thread) with its call chains symbolized: who allocated
   the block, who freed it first, the bad call, and for an overwritten
   header (ours, or glibc's chunk size word before it) the block before
   it, the likely overflow.  The words are the monitor's report's. */
#define _GNU_SOURCE

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tables/tables.h"

enum { C_T0, C_ALLOC, C_T1, C_FREE, C_T2, C_CALL, C_T3, C_OTHER,
       C_NUMBER, C_KIND, C_WHEN, C_ADDRESS, C_BLOCK, C_SIZE, C_OFFSET,
       C_WHERE, C_OVERWRITTEN, C_BEFORE, C_BEFORE_SIZE, C_THREAD, C_TIME,
       C_NCOLS };

static const struct hi_column columns[C_NCOLS] = {
  [C_T0] = { .head = "" },
  /* Every frame with its file:line (as ASan's reports): errors are few,
     and two calls from one function at different lines must differ. */
  [C_ALLOC] = { .key = "allocated_by", .head = "", .type = HI_CELL_PATH,
                .every_line = 1 },
  [C_T1] = { .head = "" },
  [C_FREE] = { .key = "first_freed_by", .head = "", .type = HI_CELL_PATH,
               .every_line = 1 },
  [C_T2] = { .head = "" },
  [C_CALL] = { .key = "call_by", .head = "", .type = HI_CELL_PATH,
               .every_line = 1 },
  [C_T3] = { .head = "" },
  [C_OTHER] = { .key = "block_before_allocated_by", .head = "",
                .type = HI_CELL_PATH, .every_line = 1 },
  [C_NUMBER] = { .key = "number", .type = HI_CELL_COUNT },
  [C_KIND] = { .key = "kind", .type = HI_CELL_TEXT },
  [C_WHEN] = { .key = "when", .type = HI_CELL_TEXT },
  [C_ADDRESS] = { .key = "address", .type = HI_CELL_TEXT },
  [C_BLOCK] = { .key = "block", .type = HI_CELL_TEXT },
  [C_SIZE] = { .key = "block_size", .type = HI_CELL_BYTES },
  [C_OFFSET] = { .key = "offset", .type = HI_CELL_COUNT },
  [C_WHERE] = { .key = "where", .type = HI_CELL_TEXT },
  [C_OVERWRITTEN] = { .key = "overwritten", .type = HI_CELL_TEXT },
  [C_BEFORE] = { .key = "block_before", .type = HI_CELL_TEXT },
  [C_BEFORE_SIZE] = { .key = "block_before_size", .type = HI_CELL_BYTES },
  [C_THREAD] = { .key = "thread", .type = HI_CELL_COUNT },
  [C_TIME] = { .key = "time_ns", .type = HI_CELL_COUNT },
};

static const char *const kind_keys[HI_NERROR_KINDS] = {
#define KIND_KEY(name, value, key) [HI_ERR_##name] = key,
  HI_ERROR_KINDS (KIND_KEY)
#undef KIND_KEY
};

static const char *const when_keys[] = {
  [0] = "unknown",
#define WHEN_KEY(name, value, key, call) [HI_WHEN_##name] = key,
  HI_ERROR_WHENS (WHEN_KEY)
#undef WHEN_KEY
};

static const char *const where_keys[] = {
  [HI_WHERE_UNKNOWN] = "unknown", [HI_WHERE_STACK] = "stack",
  [HI_WHERE_MODULE] = "module", [HI_WHERE_UNMAPPED] = "unmapped",
};


/* E's when as JSON says it: found at exit is "exit". */
static const char *
when_key (const struct hi_error *e)
{
  if (e->when == HI_WHEN_SNAPSHOT && (e->flags & HI_ERROR_FLAG_AT_EXIT))
    return "exit";
  return when_keys[e->when];
}

/* Whether E is an overwritten chunk size word (glibc's, before a whole
   header of ours), not an overwritten header. */
static int
chunk_size_word (const struct hi_error *e)
{
  return e->kind == HI_ERR_HEADER_CORRUPT
         && (e->flags & HI_ERROR_FLAG_CHUNK_SIZE) && e->block;
}

/* "byte" or "bytes", as N wants. */
static const char *
bytes_word (uint64_t n)
{
  return n == 1 ? "byte" : "bytes";
}

static const char *
hexs (struct hi_rmodel *r, uint64_t v)
{
  char s[32];
  snprintf (s, sizeof s, "0x%" PRIx64, v);
  return hi_rmodel_strdup (r, s);
}

/* The first line of error E (number N) into S. */
static void
headline (const struct hi_error *e, uint64_t n, char *s, size_t size)
{
  char found[96], block[96];
  const char *call = hi_error_call (e->when);
  switch (e->when)
    {
    case HI_WHEN_FREE:
    case HI_WHEN_REALLOC:
    case HI_WHEN_USABLE_SIZE:
      snprintf (found, sizeof found, "in %s(0x%" PRIx64 ")", call, e->addr);
      break;
    case HI_WHEN_EVICT:
      snprintf (found, sizeof found, "found as it left the quarantine");
      break;
    case HI_WHEN_SNAPSHOT:
      snprintf (found, sizeof found, "%s", e->flags & HI_ERROR_FLAG_AT_EXIT
                ? "found at exit" : "found while a snapshot was written");
      break;
    default:
      snprintf (found, sizeof found, "at 0x%" PRIx64 " (when: not recorded)",
                e->addr);
    }
  if (e->block_size || e->alloc_site)
    snprintf (block, sizeof block, "the %" PRIu64 "-byte block at 0x%" PRIx64,
              e->block_size, e->block);
  else
    snprintf (block, sizeof block, "the block at 0x%" PRIx64, e->block);
  switch (e->kind)
    {
    case HI_ERR_DOUBLE_FREE:
      snprintf (s, size, "%" PRIu64 ". double free %s: %s was already "
                "freed%s", n, found, block, e->block_size || e->alloc_site
                || e->free_site ? "" : " and given back to malloc (its size "
                "and chain are gone)");
      break;
    case HI_ERR_INTERIOR_FREE:
      snprintf (s, size, "%" PRIu64 ". invalid free %s: a pointer %" PRIu64
                " %s into %s, not its start", n, found, e->offset,
                bytes_word (e->offset), block);
      break;
    case HI_ERR_NOT_HEAP:
      snprintf (s, size, "%" PRIu64 ". invalid free %s: not a heap block%s",
                n, found,
                e->where_kind == HI_WHERE_STACK ? ", on the thread's stack"
                : e->where_kind == HI_WHERE_MODULE ? ", in a module's image "
                "(static data)"
                : e->where_kind == HI_WHERE_UNMAPPED ? ", no memory is mapped "
                "there" : "");
      break;
    case HI_ERR_HEADER_CORRUPT:
      if (chunk_size_word (e))
        snprintf (s, size, "%" PRIu64 ". heap corruption %s: the chunk size "
                  "word of %s (malloc's, before its header) is overwritten",
                  n, found, block);
      else
        snprintf (s, size, "%" PRIu64 ". heap corruption %s: the header of "
                  "the block at 0x%" PRIx64 " is overwritten", n, found,
                  e->block ? e->block : e->addr);
      break;
    case HI_ERR_WRITE_AFTER_FREE:
      /* Found as it left the quarantine, the block is held no more. */
      if (e->offset)
        snprintf (s, size, "%" PRIu64 ". write after free %s: %s%s was "
                  "written after its free, first %" PRIu64 " %s into it", n,
                  found, block, e->when == HI_WHEN_EVICT ? ""
                  : ", held in the quarantine,", e->offset,
                  bytes_word (e->offset));
      else
        snprintf (s, size, "%" PRIu64 ". write after free %s: %s%s was "
                  "written after its free, from its first byte", n, found,
                  block, e->when == HI_WHEN_EVICT ? ""
                  : ", held in the quarantine,");
      break;
    case HI_ERR_REDZONE:
      {
        uint64_t past = e->offset > e->block_size
                        ? e->offset - e->block_size : 0;
        snprintf (s, size, "%" PRIu64 ". overflow %s: the redzone of %s was "
                  "written, first %" PRIu64 " %s past its end", n, found,
                  block, past, bytes_word (past));
      }
      break;
    default:
      snprintf (s, size, "%" PRIu64 ". heap error %s", n, found);
    }
  size_t len = strnlen (s, size);
  if (len < size)
    snprintf (s + len, size - len, " (thread %" PRIu64 ")", e->tid);
}

hi_status
hi_table_errors (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct hi_table *t = hi_rmodel_table (r, "errors", "Heap Errors", columns,
                                        C_NCOLS);
  if (!t)
    return HI_E_NOMEM;
  t->prose = 1;
  hi_table_fact (t, "errors_total", hi_cell_count (m->errors_total));
  hi_table_fact (t, "errors_recorded", hi_cell_count (m->n_errors));
  hi_table_flag (t, "error_data", m->root.version >= 5);
  if (m->root.version < 5)
    t->legend = "no heap error data: this input was written before format 5";
  else if (m->errors_total == 0)
    t->legend = "no heap errors: the monitor found none";
  else
    t->legend = "every heap error the monitor recorded, in the order found; "
                "chains as leak paths (--depth), each frame with its "
                "file:line";
  char s[1024];
  for (uint64_t k = 0; k < m->n_errors && !r->nomem; k++)
    {
      const struct hi_error *e = &m->errors[k];
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (!c)
        break;
      headline (e, k + 1, s, sizeof s);
      c[C_NUMBER] = hi_cell_count (k + 1);
      c[C_KIND] = hi_cell_text (kind_keys[e->kind]);
      c[C_WHEN] = hi_cell_text (when_key (e));
      c[C_ADDRESS] = hi_cell_text (hexs (r, e->addr));
      c[C_THREAD] = hi_cell_count (e->tid);
      c[C_TIME] = hi_cell_count (e->time_ns);
      if (e->kind == HI_ERR_NOT_HEAP)
        c[C_WHERE] = hi_cell_text (where_keys[e->where_kind]);
      if (e->kind == HI_ERR_HEADER_CORRUPT)
        c[C_OVERWRITTEN] = hi_cell_text (chunk_size_word (e) ? "chunk_size"
                                                              : "header");
      if (e->kind == HI_ERR_INTERIOR_FREE || e->kind == HI_ERR_REDZONE
          || e->kind == HI_ERR_WRITE_AFTER_FREE)
        c[C_OFFSET] = hi_cell_count (e->offset);
      /* The allocating chain where the monitor knew it (a block glibc
         holds again, an overwritten header: not). */
      int have_block = e->block != 0;
      if (have_block)
        {
          c[C_BLOCK] = hi_cell_text (hexs (r, e->block));
          c[C_SIZE] = hi_cell_bytes (e->block_size);
          if (e->alloc_site != HI_SITE_UNKNOWN)
            {
              size_t len = strlen (s);
              snprintf (s + len, sizeof s - len, "\n    allocated by ");
              c[C_ALLOC] = hi_site_cell (a, e->alloc_site, r);
            }
        }
      c[C_T0] = hi_cell_text (hi_rmodel_strdup (r, s));
      if (e->free_site != HI_SITE_UNKNOWN)
        {
          c[C_T1] = hi_cell_text ("\n    first freed by ");
          c[C_FREE] = hi_site_cell (a, e->free_site, r);
        }
      if (e->call_site != HI_SITE_UNKNOWN)
        {
          snprintf (s, sizeof s, "\n    this %s by ", hi_error_call (e->when));
          c[C_T2] = hi_cell_text (hi_rmodel_strdup (r, s));
          c[C_CALL] = hi_site_cell (a, e->call_site, r);
        }
      if (e->kind == HI_ERR_HEADER_CORRUPT && e->other)
        {
          uint64_t bad = e->block ? e->block : e->addr;
          uint64_t end = e->other + e->other_size;
          if (bad >= 16 && end <= bad - 16)
            snprintf (s, sizeof s, "\n    the block before it, the likely "
                      "overflow: the %" PRIu64 "-byte block at 0x%" PRIx64
                      ", whose end is %" PRIu64 " %s before %s header, "
                      "allocated by ", e->other_size, e->other,
                      bad - 16 - end, bytes_word (bad - 16 - end),
                      chunk_size_word (e) ? "the block's" : "that");
          else
            snprintf (s, sizeof s, "\n    the block before it, the likely "
                      "overflow: the %" PRIu64 "-byte block at 0x%" PRIx64
                      ", allocated by ", e->other_size, e->other);
          c[C_T3] = hi_cell_text (hi_rmodel_strdup (r, s));
          c[C_OTHER] = hi_site_cell (a, e->other_site, r);
          c[C_BEFORE] = hi_cell_text (hexs (r, e->other));
          c[C_BEFORE_SIZE] = hi_cell_bytes (e->other_size);
        }
      else if (e->kind == HI_ERR_HEADER_CORRUPT)
        c[C_T3] = hi_cell_text ("\n    no valid block before it was found");
    }
  if (m->errors_total > m->n_errors && !r->nomem)
    {
      struct hi_cell *c = hi_rmodel_row (r, t, HI_ROW_PLAIN);
      if (c)
        {
          snprintf (s, sizeof s, "(%" PRIu64 " more error%s not recorded: the "
                    "monitor keeps the first %" PRIu64 ")",
                    m->errors_total - m->n_errors,
                    m->errors_total - m->n_errors == 1 ? "" : "s",
                    m->n_errors);
          c[C_T0] = hi_cell_text (hi_rmodel_strdup (r, s));
          t->rows[t->n_rows - 1].text_only = 1;
        }
    }
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
