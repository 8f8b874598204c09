/* emit-folded.c - collapsed stacks, as Brendan Gregg's stackcollapse
   scripts write them for flamegraph.pl, inferno and speedscope: one line
   per stack, its functions root first, joined by ';', then a space and
   its weight.  Chains that fold to the same functions (they differ in
   their call sites, or below the frames a name shows) are one line, their
   weights summed, where the first of them is.  A profile with nothing of
   its weight writes nothing, and says why on the notes stream. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/rmodel.h"
#include "util/hash.h"
#include "util/num.h"
#include "util/vec.h"

/* The lines: their stacks one after another in text, each a span of it. */
struct line
{
  size_t at, len;
  uint64_t weight;
};

struct fold
{
  char *text;
  size_t len, cap;
  struct line *lines;
  size_t n, cap_lines;
  struct hi_hash index;      /* stack -> line */
};

/* Append LEN bytes at S to F's text; 0, or -1 if out of memory. */
static int
put (struct fold *f, const char *s, size_t len)
{
  if (hi_grow ((void **) &f->text, &f->cap, f->len + len + 1, 1) != 0)
    return -1;
  memcpy (f->text + f->len, s, len);
  f->len += len;
  return 0;
}

/* NAME as one frame of a line: control characters as \xHH (hi_escape),
   and ';', which separates frames, as ':'. */
static int
put_name (struct fold *f, const char *name)
{
  char buf[2048];
  hi_escape (name, buf, sizeof buf);
  for (char *p = buf; *p; p++)
    if (*p == ';')
      *p = ':';
  return put (f, buf, strlen (buf));
}

/* Sample S's stack appended to F's text: 0, or -1 if out of memory. */
static int
put_stack (struct fold *f, const struct hi_rmodel *r,
           const struct hi_rsample *s)
{
  int any = 0;
  /* Locations innermost first: walk them backwards, root first. */
  for (uint64_t k = s->n; k-- > 0;)
    {
      const struct hi_rlocation *loc
        = &r->locations[r->sample_locs[s->first + k]];
      for (uint64_t j = 0; j < loc->n; j++)
        if ((any++ && put (f, ";", 1) != 0)
            || put_name (f, r->frames[loc->first + j].group) != 0)
          return -1;
    }
  return any ? 0 : put (f, "[unknown]", 9);
}

struct key
{
  const struct fold *f;
  size_t at, len;
};

static int
same_stack (const void *ctx, uint32_t id)
{
  const struct key *k = ctx;
  const struct line *l = &k->f->lines[id];
  return l->len == k->len
         && memcmp (k->f->text + l->at, k->f->text + k->at, k->len) == 0;
}

/* Sample S of weight W into F: added to the line of its stack, or a new
   line.  0, or -1 if out of memory. */
static int
fold_sample (struct fold *f, const struct hi_rmodel *r,
             const struct hi_rsample *s, uint64_t w)
{
  size_t at = f->len;
  if (put_stack (f, r, s) != 0)
    return -1;
  struct key k = { f, at, f->len - at };
  uint64_t h = hi_hash_bytes (f->text + at, k.len);
  uint32_t id = hi_hash_find (&f->index, h, same_stack, &k);
  if (id != UINT32_MAX)
    {
      f->lines[id].weight = hi_add_sat (f->lines[id].weight, w);
      f->len = at;                      /* the stack is there already */
      return 0;
    }
  if (f->n >= UINT32_MAX - 1
      || hi_grow ((void **) &f->lines, &f->cap_lines, f->n + 1,
                  sizeof *f->lines) != 0
      || hi_hash_insert (&f->index, h, (uint32_t) f->n) != 0)
    return -1;
  f->lines[f->n++] = (struct line) { at, k.len, w };
  return 0;
}

hi_status
hi_emit_folded (const struct hi_rmodel *r, const struct hi_emit_options *o,
                FILE *out)
{
  struct fold f;
  memset (&f, 0, sizeof f);
  hi_hash_init (&f.index);
  hi_status st = HI_OK;
  for (size_t i = 0; i < r->n_samples && st == HI_OK; i++)
    {
      const struct hi_rsample *s = &r->samples[i];
      uint64_t w = hi_sample_weight (s, o->weight);
      if (w && fold_sample (&f, r, s, w) != 0)
        st = HI_E_NOMEM;
    }
  for (size_t i = 0; i < f.n && st == HI_OK; i++)
    {
      fwrite (f.text + f.lines[i].at, 1, f.lines[i].len, out);
      fprintf (out, " %" PRIu64 "\n", f.lines[i].weight);
    }
  if (st == HI_OK && f.n == 0 && o->notes)
    {
      char why[256];
      hi_weight_empty_hint (r, o->weight, why, sizeof why);
      fprintf (o->notes, "%s: nothing folded: %s\n",
               o->gdb ? "heap" : "heapinspect", why);
    }
  free (f.text);
  free (f.lines);
  hi_hash_free (&f.index);
  if (st != HI_OK)
    return st;
  return ferror (out) ? HI_E_WRITE : HI_OK;
}
