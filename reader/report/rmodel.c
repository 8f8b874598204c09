/* rmodel.c - building a report model: tables, rows, frames and the
   strings they own. */
#define _GNU_SOURCE
#include "report/rmodel.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

void
hi_rmodel_init (struct hi_rmodel *r)
{
  memset (r, 0, sizeof *r);
}

void
hi_rmodel_free (struct hi_rmodel *r)
{
  for (size_t t = 0; t < r->n_tables; t++)
    {
      for (size_t i = 0; i < r->tables[t].n_rows; i++)
        free (r->tables[t].rows[i].cells);
      free (r->tables[t].rows);
    }
  free (r->tables);
  free (r->frames);
  free (r->mappings);
  free (r->locations);
  free (r->sample_locs);
  free (r->samples);
  free (r->timeline.points);
  free (r->timeline.at);
  free (r->timeline.chains);
  hi_free_strings (r->owned, r->n_owned);
  memset (r, 0, sizeof *r);
}

/* Make room for one more of *N elements of SIZE bytes in *V (capacity
   *CAP); 0, or -1 with R->nomem set. */
static int
grow (struct hi_rmodel *r, void **v, size_t *n, size_t *cap, size_t size)
{
  if (hi_grow (v, cap, *n + 1, size) == 0)
    return 0;
  r->nomem = 1;
  return -1;
}

struct hi_table *
hi_rmodel_table (struct hi_rmodel *r, const char *name, const char *title,
                 const struct hi_column *columns, size_t n_columns)
{
  if (grow (r, (void **) &r->tables, &r->n_tables, &r->cap_tables,
            sizeof *r->tables) != 0)
    return NULL;
  struct hi_table *t = &r->tables[r->n_tables++];
  memset (t, 0, sizeof *t);
  t->name = name;
  t->title = title;
  t->columns = (struct hi_column *) columns;
  t->n_columns = n_columns;
  return t;
}

struct hi_cell *
hi_rmodel_row (struct hi_rmodel *r, struct hi_table *t,
               enum hi_row_role role)
{
  if (!t)
    return NULL;
  struct hi_cell *cells = calloc (t->n_columns ? t->n_columns : 1,
                                  sizeof *cells);
  if (!cells || grow (r, (void **) &t->rows, &t->n_rows, &t->cap_rows,
                      sizeof *t->rows) != 0)
    {
      free (cells);
      r->nomem = 1;
      return NULL;
    }
  t->rows[t->n_rows].role = role;
  t->rows[t->n_rows].group = 0;
  t->rows[t->n_rows].text_only = 0;
  t->rows[t->n_rows].json_only = 0;
  t->rows[t->n_rows].cells = cells;
  t->n_rows++;
  return cells;
}

uint64_t
hi_rmodel_frames (struct hi_rmodel *r, const struct hi_rframe *f, size_t n)
{
  uint64_t first = r->n_frames;
  for (size_t i = 0; i < n; i++)
    {
      if (grow (r, (void **) &r->frames, &r->n_frames, &r->cap_frames,
                sizeof *r->frames) != 0)
        return UINT64_MAX;
      r->frames[r->n_frames++] = f[i];
    }
  return first;
}

const char *
hi_rmodel_strdup (struct hi_rmodel *r, const char *s)
{
  char *copy = strdup (s ? s : "");
  if (!copy || grow (r, (void **) &r->owned, &r->n_owned, &r->cap_owned,
                     sizeof *r->owned) != 0)
    {
      free (copy);
      r->nomem = 1;
      return NULL;
    }
  r->owned[r->n_owned++] = copy;
  return copy;
}

void
hi_table_suppressed (struct hi_table *t, int user, uint64_t bytes)
{
  uint64_t *count = user ? &t->suppressed : &t->suppressed_default;
  uint64_t *sum = user ? &t->suppressed_bytes : &t->suppressed_default_bytes;
  ++*count;
  *sum = *sum + bytes < *sum ? UINT64_MAX : *sum + bytes;
}
