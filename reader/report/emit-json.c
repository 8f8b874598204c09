/* emit-json.c - a report as one JSON object for programs: the summary,
   each table's rows as objects of exact figures, frames as arrays of
   objects, and counts of the rows left out. */
#include "util/text.h"
#include "report/rmodel.h"

#include <inttypes.h>
#include <string.h>

/* S as a JSON string, or null if there is none. */
static void
json_string_or_null (FILE *f, const char *s)
{
  if (s)
    hi_json_string (f, s);
  else
    fputs ("null", f);
}

static void
json_frame (FILE *f, const struct hi_rframe *fr)
{
  if (fr->cut)
    {
      fputs ("{\"function\": \"...\", \"cut\": true}", f);
      return;
    }
  fputs ("{\"function\": ", f);
  hi_json_string (f, fr->function);
  fputs (", \"module\": ", f);
  json_string_or_null (f, fr->module);
  fprintf (f, ", \"offset\": %" PRIu64 ", \"file\": ", fr->offset);
  json_string_or_null (f, fr->file);
  fprintf (f, ", \"line\": %" PRIu32 ", \"inlined\": %s}", fr->line,
           fr->inlined ? "true" : "false");
}

static void
json_cell (const struct hi_rmodel *r, const struct hi_cell *c, FILE *f)
{
  switch (c->type)
    {
    case HI_CELL_EMPTY:
    case HI_CELL_PCT2:
      fputs ("null", f);
      return;
    case HI_CELL_COUNT:
    case HI_CELL_BYTES:
    case HI_CELL_RATIO:
    case HI_CELL_SUM:
    case HI_CELL_REF:
    case HI_CELL_MS:
      fprintf (f, "%" PRIu64, c->v);
      return;
    case HI_CELL_DELTA:
    case HI_CELL_DELTA_BYTES:
      fprintf (f, "%" PRId64, hi_cell_signed (c));
      return;
    case HI_CELL_RATE:
      fprintf (f, "%.4f", c->whole == 0 ? 0.0 : c->v >= c->whole ? 1.0
               : (double) c->v / (double) c->whole);
      return;
    case HI_CELL_TEXT:
      hi_json_string (f, c->text);
      return;
    case HI_CELL_JSON:
      fputs (c->text ? c->text : "null", f);
      return;
    case HI_CELL_PATH:
      fputc ('[', f);
      for (uint64_t i = c->v; i < c->v + c->whole && i < r->n_frames; i++)
        {
          if (i > c->v)
            fputs (", ", f);
          json_frame (f, &r->frames[i]);
        }
      fputc (']', f);
      return;
    }
}

/* Row I of T as an object of its keyed, non-empty cells; its nested
   rows too when it is an entry. */
static void
json_row (const struct hi_rmodel *r, const struct hi_table *t, size_t i,
          FILE *f);

static void
json_nested (const struct hi_rmodel *r, const struct hi_table *t, size_t i,
             enum hi_row_role role, const char *key, FILE *f)
{
  /* The entry's group: the rows around I with the same group number. */
  size_t from = i, to = i + 1;
  while (from > 0 && t->rows[from - 1].group == t->rows[i].group)
    from--;
  while (to < t->n_rows && t->rows[to].group == t->rows[i].group)
    to++;
  fprintf (f, ", \"%s\": [", key);
  int first = 1;
  for (size_t k = from; k < to; k++)
    if (t->rows[k].role == role && !t->rows[k].text_only)
      {
        fputs (first ? "" : ", ", f);
        json_row (r, t, k, f);
        first = 0;
      }
  fputc (']', f);
}

static void
json_row (const struct hi_rmodel *r, const struct hi_table *t, size_t i,
          FILE *f)
{
  const struct hi_row *row = &t->rows[i];
  fputc ('{', f);
  int first = 1;
  for (size_t c = 0; c < t->n_columns; c++)
    {
      const struct hi_column *col = &t->columns[c];
      const struct hi_cell *cell = &row->cells[c];
      if (!col->key || cell->type == HI_CELL_EMPTY
          || cell->type == HI_CELL_PCT2)
        continue;
      fprintf (f, "%s\"%s\": ", first ? "" : ", ", col->key);
      json_cell (r, cell, f);
      first = 0;
    }
  if (row->role == HI_ROW_TOTAL)
    fprintf (f, "%s\"total\": true", first ? "" : ", ");
  if (row->role == HI_ROW_ENTRY)
    {
      json_nested (r, t, i, HI_ROW_MEMBER, "members", f);
      json_nested (r, t, i, HI_ROW_CALLER, "callers", f);
      json_nested (r, t, i, HI_ROW_CALLEE, "callees", f);
    }
  fputc ('}', f);
}

static void
json_table (const struct hi_rmodel *r, const struct hi_table *t, FILE *f)
{
  hi_json_string (f, t->name);
  if (t->keyvalue)
    {
      fputs (": {", f);
      int first = 1;
      for (size_t i = 0; i < t->n_rows; i++)
        {
          if (t->rows[i].text_only)
            continue;
          fputs (first ? "\n  " : ",\n  ", f);
          first = 0;
          hi_json_string (f, t->rows[i].cells[0].text);
          fputs (": ", f);
          json_cell (r, &t->rows[i].cells[1], f);
        }
      fputs ("\n}", f);
      return;
    }
  fputs (": {\"rows\": [", f);
  int first = 1;
  for (size_t i = 0; i < t->n_rows; i++)
    {
      enum hi_row_role role = t->rows[i].role;
      if (t->rows[i].text_only || role == HI_ROW_CALLER
          || role == HI_ROW_CALLEE || role == HI_ROW_MEMBER)
        continue;               /* nested in their entry */
      fputs (first ? "\n  " : ",\n  ", f);
      json_row (r, t, i, f);
      first = 0;
    }
  fprintf (f, "\n ], \"threshold\": %.3f, \"below_threshold\": %" PRIu64
           ", \"over_limit\": %" PRIu64 ", \"filtered\": %" PRIu64
           ", \"suppressed\": %" PRIu64 ", \"suppressed_bytes\": %" PRIu64
           ", \"suppressed_default\": %" PRIu64
           ", \"suppressed_default_bytes\": %" PRIu64,
           t->threshold < 0 ? 0.0 : t->threshold / 1000.0,
           t->below_threshold, t->over_limit, t->filtered, t->suppressed,
           t->suppressed_bytes, t->suppressed_default,
           t->suppressed_default_bytes);
  for (size_t i = 0; i < t->n_facts && i < HI_TABLE_FACTS; i++)
    {
      const struct hi_fact *x = &t->facts[i];
      fprintf (f, ", \"%s\": ", x->key);
      if (x->boolean)
        fputs (x->cell.v ? "true" : "false", f);
      else
        json_cell (r, &x->cell, f);
    }
  fputc ('}', f);
}

static void
json_summary (const struct hi_summary *s, FILE *f)
{
  fputs ("\"summary\": {\"command\": ", f);
  json_string_or_null (f, s->command);
  /* No run time known (gdb, a core older than its start): null. */
  fprintf (f, ", \"pid\": %" PRIu64 ", \"run_ns\": ", s->pid);
  if (s->run_ns)
    fprintf (f, "%" PRIu64, s->run_ns);
  else
    fputs ("null", f);
  fprintf (f, ", \"attached\": %s", s->attached ? "true" : "false");
  /* Attached: the time attached (the periods summed), and whether the
     monitor is detached now (the figures those of the attached time)
     and since how long; null when not known. */
  if (s->attached)
    {
      fputs (", \"attached_ns\": ", f);
      if (s->attached_ns)
        fprintf (f, "%" PRIu64, s->attached_ns);
      else
        fputs ("null", f);
      fprintf (f, ", \"detached\": %s, \"detached_ns\": ",
               s->detached ? "true" : "false");
      if (s->detached && s->detached_ns)
        fprintf (f, "%" PRIu64, s->detached_ns);
      else
        fputs ("null", f);
    }
  /* Attached: glibc's chunks no block of the monitor's is in; null
     when not counted (unmonitored_why says why, if asked). */
  if (s->attached && s->foreign_counted)
    fprintf (f, ", \"unmonitored_blocks\": %" PRIu64
             ", \"unmonitored_bytes\": %" PRIu64
             ", \"unmonitored_when\": \"%s\"", s->foreign_blocks,
             s->foreign_bytes, s->foreign_counted == 2 ? "attach" : "read");
  else if (s->attached)
    {
      fputs (", \"unmonitored_blocks\": null, \"unmonitored_bytes\": null"
             ", \"unmonitored_why\": ", f);
      json_string_or_null (f, s->foreign_why);
    }
  fprintf (f, ", \"allocations\": %" PRIu64 ", \"frees\": %" PRIu64
           ", \"bytes_allocated\": %" PRIu64 ", \"bytes_freed\": %" PRIu64
           ", \"peak_bytes\": %" PRIu64 ", \"peak_blocks\": %" PRIu64
           ", \"live_bytes\": %" PRIu64 ", \"live_blocks\": %" PRIu64
           ", \"cut_bytes\": %" PRIu64 ", \"cut_chains\": %" PRIu64
           ", \"cut_allocs\": %" PRIu64
           ", \"depth_cap\": %" PRIu32 ", \"monitor_bytes\": %" PRIu64
           ", \"errors_total\": %" PRIu64 ", \"errors_recorded\": %" PRIu64
           ", \"quarantine_limit\": %" PRIu64 ", \"quarantine_bytes\": %"
           PRIu64 ", \"redzone\": %" PRIu32 ", \"problems\": [", s->allocations, s->frees,
           s->bytes_allocated, s->bytes_freed, s->peak_bytes, s->peak_blocks,
           s->live_bytes, s->live_blocks, s->cut_bytes, s->cut_chains,
           s->cut_allocs,
           s->depth_cap, s->monitor_bytes, s->errors_total,
           s->errors_recorded, s->quarantine_limit, s->quarantine_bytes,
           s->redzone);
  for (size_t i = 0; i < s->n_problems && i < 8; i++)
    {
      fputs (i ? ", " : "", f);
      hi_json_string (f, s->problems[i]);
    }
  fputs ("]}", f);
}

hi_status
hi_emit_json (const struct hi_rmodel *r, const struct hi_emit_options *o,
              FILE *f)
{
  (void) o;
  fputs ("{\"source\": ", f);
  hi_json_string (f, r->source);
  fprintf (f, ", \"incomplete\": %s", r->incomplete ? "true" : "false");
  if (r->has_summary)
    {
      fputs (",\n", f);
      json_summary (&r->summary, f);
    }
  for (size_t t = 0; t < r->n_tables; t++)
    {
      fputs (",\n", f);
      json_table (r, &r->tables[t], f);
    }
  fputs ("\n}\n", f);
  return HI_OK;
}
