/* analysis.c - from caller/callee nodes to chains of function names. */
#include "hi-reader.h"
#include "util/text.h"
#include "analysis/analysis.h"
#include "symbols/cxxname.h"
#include "analysis/filter.h"
#include "util/strtab.h"
#include "util/hash.h"
#include "util/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Frames outside main that every chain would share. */
static const char *const startup_frames[] = {
  "_start", "__libc_start_main", "__libc_start_main_impl",
  "__libc_start_call_main", "start_thread", "clone", "clone3", "__clone",
  "__clone3", NULL
};

static int
is_startup (const char *name)
{
  for (int i = 0; startup_frames[i]; i++)
    if (strcmp (name, startup_frames[i]) == 0)
      return 1;
  return 0;
}

/* Allocation wrappers whose callers are the real allocators. */
static int
is_wrapper (const char *name)
{
  return strncmp (name, "operator new", 12) == 0;
}

/* Append F to A's frames; 0 if out of memory. */
static int
push_frame (struct hi_analysis *a, const struct hi_frame *f)
{
  if (hi_grow32 ((void **) &a->frames, &a->frames_cap,
                 (size_t) a->n_frames + 1, sizeof *a->frames) != 0)
    return 0;
  a->frames[a->n_frames++] = *f;
  return 1;
}

/* Inlined frames kept per return address; deeper inlining keeps the
   innermost ones and the out-of-line function. */
#define MAX_INLINE 16

/* The frames of the code at return address RET (the call is at RET - 1),
   appended to A's frame list: one per function, innermost first, when
   code was inlined there.  Returns how many (at least 1), or 0 if out of
   memory. */
/* The innermost node of a pool block's chain: the pool (format.h), a
   frame named "[pool NAME]" that no symbol has. */
static uint32_t
add_pool_frame (struct hi_analysis *a, uint64_t index)
{
  const struct hi_model *m = a->m;
  char name[4 * HI_POOL_NAME_MAX + 16], safe[4 * HI_POOL_NAME_MAX];
  if (index < m->n_pools)
    {
      /* Named by the program: escaped, like every name from an input. */
      hi_escape (m->pools[index].name, safe, sizeof safe);
      snprintf (name, sizeof name, "[pool %s%s]", safe,
                m->pools[index].flags & HI_POOL_NAME_CUT ? "..." : "");
    }
  else
    snprintf (name, sizeof name, "[pool #%" PRIu64 "]", index);
  struct hi_frame f;
  memset (&f, 0, sizeof f);
  f.func = hi_strtab_intern (&a->funcs, name);
  f.label = hi_strtab_intern (&a->labels, name);
  f.name = f.long_name = hi_strtab_intern (&a->strs, name);
  f.module = f.file = f.system_name = HI_NONE;
  f.address = HI_POOL_FRAME + index;
  if (f.func == UINT32_MAX || f.label == UINT32_MAX || f.name == UINT32_MAX
      || !push_frame (a, &f))
    return 0;
  return 1;
}

static uint32_t
add_frames (struct hi_analysis *a, uint64_t ret)
{
  if (ret >= HI_POOL_FRAME)
    return add_pool_frame (a, ret - HI_POOL_FRAME);
  struct hi_code code[MAX_INLINE];
  size_t n = hi_symbolize_frames (a->sym, ret - 1, a->opt.lines, code,
                                  MAX_INLINE);   /* the call, not the return */
  for (size_t i = 0; i < n; i++)
    {
      const struct hi_code *c = &code[i];
      char name[1024], label[1100];
      struct hi_frame f;
      memset (&f, 0, sizeof f);
      int with_offset = a->opt.offsets && !c->inlined;
      if (c->function)
        {
          /* C++ names without template arguments and parameters unless
             asked (C names come out unchanged). */
          if (a->opt.long_names)
            snprintf (name, sizeof name, "%s", c->function);
          else
            hi_cxx_short_name (c->function, name, sizeof name);
          f.offset = c->inlined ? 0 : c->function_offset + 1;
        }
      else if (c->module && c->has_start)
        {
          /* No symbol: the function named by where its code starts, one
             entry for all its call sites. */
          snprintf (name, sizeof name, "%s+0x%" PRIx64, c->module,
                    c->code_start);
          f.offset = c->module_offset - c->code_start + 1;
        }
      else
        {
          /* Not even that: the call site is all there is to show. */
          if (c->module)
            snprintf (name, sizeof name, "%s+0x%" PRIx64, c->module,
                      c->module_offset + 1);
          else
            snprintf (name, sizeof name, "0x%" PRIx64, ret);
          f.offset = c->module ? c->module_offset + 1 : 0;
          with_offset = 0;
        }
      if (with_offset)
        snprintf (label, sizeof label, "%s+0x%" PRIx64, name, f.offset);
      else
        snprintf (label, sizeof label, "%s", name);
      f.func = hi_strtab_intern (&a->funcs, name);
      f.label = hi_strtab_intern (&a->labels, label);
      f.name = hi_strtab_intern (&a->strs, name);
      f.long_name = hi_strtab_intern (&a->strs, c->function ? c->function
                                                            : name);
      f.module = c->module ? hi_strtab_intern (&a->strs, c->module) : HI_NONE;
      f.file = c->file ? hi_strtab_intern (&a->strs, c->file) : HI_NONE;
      f.line = c->line > 0 ? (uint32_t) c->line : 0;
      f.inlined = (uint32_t) c->inlined;
      f.address = ret;
      f.symbolized = c->function != NULL;
      f.system_name = c->linkage_name
                      ? hi_strtab_intern (&a->strs, c->linkage_name) : HI_NONE;
      if (f.func == UINT32_MAX || f.label == UINT32_MAX
          || f.name == UINT32_MAX || f.long_name == UINT32_MAX
          || (c->linkage_name && f.system_name == UINT32_MAX)
          || (c->module && f.module == UINT32_MAX)
          || (c->file && f.file == UINT32_MAX) || !push_frame (a, &f))
        return 0;
    }
  return (uint32_t) n;
}

struct ret_key
{
  const struct hi_model *m;
  uint64_t ret;
};

static int
same_ret (const void *ctx, uint32_t node)
{
  const struct ret_key *k = ctx;
  return k->m->nodes[node].ret == k->ret;
}

/* Many nodes share a return address (every chain through a call site):
   symbolize each address once.  Node I's frames are
   frames[FIRST[I], FIRST[I] + COUNT[I]), innermost first. */
static hi_status
name_nodes (struct hi_analysis *a, uint32_t *first, uint32_t *count)
{
  const struct hi_model *m = a->m;
  struct hi_frame cut;
  memset (&cut, 0, sizeof cut);
  cut.func = hi_strtab_intern (&a->funcs, "<deeper>");
  cut.label = hi_strtab_intern (&a->labels, "...");
  cut.module = cut.file = cut.name = cut.long_name = HI_NONE;
  cut.system_name = HI_NONE;
  if (cut.func == UINT32_MAX || cut.label == UINT32_MAX
      || !push_frame (a, &cut))
    return HI_E_NOMEM;
  struct hi_hash seen;       /* return address -> first node with it */
  hi_hash_init (&seen);
  hi_status s = HI_OK;
  for (uint64_t i = 0; i < m->n_nodes && s == HI_OK; i++)
    {
      if (i <= HI_NODE_CUT)
        {
          first[i] = HI_FRAME_CUT;
          count[i] = i == HI_NODE_CUT;
          continue;
        }
      struct ret_key k = { m, m->nodes[i].ret };
      uint64_t h = hi_hash_u64 (k.ret);
      uint32_t prev = hi_hash_find (&seen, h, same_ret, &k);
      if (prev != UINT32_MAX)
        {
          first[i] = first[prev];
          count[i] = count[prev];
          continue;
        }
      first[i] = a->n_frames;
      count[i] = add_frames (a, k.ret);
      if (count[i] == 0 || hi_hash_insert (&seen, h, (uint32_t) i) != 0)
        s = HI_E_NOMEM;
    }
  hi_hash_free (&seen);
  return s;
}

/* What build_chains asks of a function name, kept per name: every chain
   passes through the same few functions. */
enum
{
  FN_KNOWN = 1, FN_MAIN = 2, FN_STARTUP = 4, FN_WRAPPER = 8
};

/* The FN_ bits of FRAME's function, from KIND (one byte per function
   name of A, 0 until asked). */
static uint8_t
func_kind (const struct hi_analysis *a, uint8_t *kind, uint32_t frame)
{
  uint32_t fn = a->frames[frame].func;
  if (!kind[fn])
    {
      const char *name = a->funcs.strs[fn];
      kind[fn] = FN_KNOWN | (strcmp (name, "main") == 0 ? FN_MAIN : 0)
                 | (is_startup (name) ? FN_STARTUP : 0)
                 | (is_wrapper (name) ? FN_WRAPPER : 0);
    }
  return kind[fn];
}

static hi_status
build_chains (struct hi_analysis *a, const uint32_t *first,
              const uint32_t *count)
{
  const struct hi_model *m = a->m;
  uint64_t total = 0;
  a->chain_start = calloc (m->n_sites + 1, sizeof *a->chain_start);
  a->sum = calloc (m->n_sites, sizeof *a->sum);
  if (!a->chain_start || !a->sum)
    return HI_E_NOMEM;
  uint64_t longest = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      /* Frames per site: its nodes' frames, counted by walking. */
      uint64_t n = 1;
      const struct hi_site *site = &m->sites[s];
      uint32_t d = 0;
      for (uint32_t node = s ? site->node : 0; node > HI_NODE_CUT
           && d < site->depth; node = m->nodes[node].parent, d++)
        n += count[node];
      total += n;
      if (n > longest)
        longest = n;
    }
  if (total > UINT32_MAX)
    return HI_E_CORRUPT;
  a->chain_frames = malloc ((total ? total : 1) * sizeof *a->chain_frames);
  uint32_t *tmp = malloc ((longest + 1) * sizeof *tmp);
  uint8_t *kind = calloc (a->funcs.n ? a->funcs.n : 1, 1);
  if (!a->chain_frames || !tmp || !kind)
    {
      free (tmp);
      free (kind);
      return HI_E_NOMEM;
    }
  uint32_t at = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      const struct hi_site *site = &m->sites[s];
      struct hi_site_sum *sum = &a->sum[s];
      for (int c = 0; c < HI_NSIZE_CLASSES; c++)
        {
          sum->allocs += site->allocs[c];
          sum->frees += site->frees[c];
          sum->bytes += site->bytes[c];
          sum->freed += site->bytes_freed[c];
        }
      a->total_allocs += sum->allocs;
      a->total_bytes += sum->bytes;
      a->total_frees += sum->frees;
      a->total_freed += sum->freed;
      a->chain_start[s] = at;
      /* Walk leaf to root (parents are older nodes: it ends; the model
         checked that the depth is the walk's length), collecting frames
         innermost first, then keep the part from main, or past the
         start-up frames, inward. */
      uint32_t n = 0, d = 0, node;
      for (node = s ? site->node : 0; node > HI_NODE_CUT
           && d < site->depth; node = m->nodes[node].parent, d++)
        for (uint32_t j = 0; j < count[node]; j++)
          tmp[n++] = first[node] + j;
      if (node == HI_NODE_CUT && n > 0)
        tmp[n++] = HI_FRAME_CUT;
      /* From main if it is named; else from past the innermost start-up
         frame (stripped programs name neither main nor _start). */
      int from = (int) n - 1;
      int found = 0;
      for (int i = (int) n - 1; i >= 0 && !found; i--)
        if (func_kind (a, kind, tmp[i]) & FN_MAIN)
          from = i, found = 1;
      for (int i = 0; i < (int) n && !found; i++)
        if (func_kind (a, kind, tmp[i]) & FN_STARTUP)
          from = i - 1, found = 1;
      if (from < 0 && n > 0)
        from = 0;               /* the leaf itself is a start-up frame */
      int last = 0;
      while (last < from && (func_kind (a, kind, tmp[last]) & FN_WRAPPER))
        last++;
      for (int i = from; i >= last && at < total; i--)
        a->chain_frames[at++] = tmp[i];
    }
  a->chain_start[m->n_sites] = at;
  free (tmp);
  free (kind);
  return HI_OK;
}

/* A name two modules give their functions (libc's and ld.so's
   __strdup, a static helper in two libraries) would merge two functions
   in the tables: where the chains show such a name from more than one
   module, every frame of it becomes "name (module)". */
static hi_status
name_modules (struct hi_analysis *a)
{
  const uint32_t unseen = HI_NONE - 1;
  uint32_t nf = a->funcs.n;
  uint32_t *first = malloc ((nf ? nf : 1) * sizeof *first);
  uint8_t *twice = calloc (nf ? nf : 1, 1);
  if (!first || !twice)
    {
      free (first);
      free (twice);
      return HI_E_NOMEM;
    }
  for (uint32_t i = 0; i < nf; i++)
    first[i] = unseen;
  int any = 0;
  for (uint32_t i = 0; i < a->chain_start[a->m->n_sites]; i++)
    {
      const struct hi_frame *f = hi_chain_frame (a, i);
      if (f->module == HI_NONE)
        continue;
      if (first[f->func] == unseen)
        first[f->func] = f->module;
      else if (first[f->func] != f->module)
        twice[f->func] = 1, any = 1;
    }
  free (first);
  hi_status s = HI_OK;
  struct hi_strtab funcs, labels;
  hi_strtab_init (&funcs);
  hi_strtab_init (&labels);
  for (uint32_t k = 0; any && k < a->n_frames && s == HI_OK; k++)
    {
      struct hi_frame *f = &a->frames[k];
      const char *fn = a->funcs.strs[f->func];
      const char *lb = a->labels.strs[f->label];
      char name[1100], label[1200];
      if (twice[f->func] && f->module != HI_NONE)
        {
          /* The label is the name, or the name and "+0xOFF". */
          size_t n = strlen (fn);
          snprintf (name, sizeof name, "%s (%s)", fn,
                    a->strs.strs[f->module]);
          snprintf (label, sizeof label, "%s%s", name,
                    strncmp (lb, fn, n) == 0 ? lb + n : "");
          fn = name;
          lb = label;
        }
      f->func = hi_strtab_intern (&funcs, fn);
      f->label = hi_strtab_intern (&labels, lb);
      if (f->func == UINT32_MAX || f->label == UINT32_MAX)
        s = HI_E_NOMEM;
    }
  free (twice);
  if (any && s == HI_OK)
    {
      hi_strtab_free (&a->funcs);
      hi_strtab_free (&a->labels);
      a->funcs = funcs;
      a->labels = labels;
    }
  else
    {
      hi_strtab_free (&funcs);
      hi_strtab_free (&labels);
    }
  return s;
}

hi_status
hi_analysis_init (struct hi_analysis *a, const struct hi_model *m,
                  struct hi_symbolizer *sym, const struct hi_options *opt)
{
  memset (a, 0, sizeof *a);
  a->m = m;
  a->sym = sym;
  a->opt = *opt;
  hi_strtab_init (&a->funcs);
  hi_strtab_init (&a->labels);
  hi_strtab_init (&a->strs);
  /* Bad filters fail before the slow part, symbolizing. */
  struct hi_filters *filters;
  hi_status s = hi_filters_new (opt, &filters);
  if (s != HI_OK)
    {
      hi_analysis_free (a);
      return s;
    }
  uint32_t *first = malloc ((m->n_nodes + 1) * sizeof *first);
  uint32_t *count = malloc ((m->n_nodes + 1) * sizeof *count);
  s = first && count ? name_nodes (a, first, count) : HI_E_NOMEM;
  if (s == HI_OK)
    s = build_chains (a, first, count);
  if (s == HI_OK)
    s = name_modules (a);
  free (first);
  free (count);
  if (s == HI_OK)
    s = hi_filters_apply (filters, a);
  a->suppress_ignored = hi_filters_ignored (filters);
  hi_filters_free (filters);
  if (s != HI_OK)
    hi_analysis_free (a);
  return s;
}

void
hi_analysis_free (struct hi_analysis *a)
{
  hi_strtab_free (&a->funcs);
  hi_strtab_free (&a->labels);
  hi_strtab_free (&a->strs);
  free (a->frames);
  free (a->chain_start);
  free (a->chain_frames);
  free (a->sum);
  free (a->site_flags);
  free (a->types);
  free (a->type_of_rec);
  memset (a, 0, sizeof *a);
}

int32_t
hi_threshold (const struct hi_options *o)
{
  if (o->threshold >= 0)
    return o->threshold;
  return o->verbosity == HI_VERBOSE ? 0 : o->verbosity == HI_TERSE ? 1000
         : HI_OPT_THRESHOLD_DEFAULT;
}

int
hi_shown (const struct hi_options *o, uint64_t part, uint64_t whole)
{
  uint64_t thr = (uint64_t) hi_threshold (o);
  if (part == 0)
    return 0;
  if (thr == 0)
    return 1;
  /* part >= whole * thr / 100000, rounded up, without overflow:
     whole / 100000 * thr cannot wrap for thr <= 100000. */
  uint64_t need = whole / 100000 * thr
                  + ((whole % 100000) * thr + 99999) / 100000;
  return whole && part >= need;
}

uint32_t
hi_page_rows (const struct hi_options *o)
{
  if (o->limit != HI_OPT_LIMIT_AUTO)
    return o->limit;
  if (o->verbosity == HI_VERBOSE || o->threshold >= 0)
    return 0;
  return o->verbosity == HI_TERSE ? HI_PAGE_ROWS / 2 : HI_PAGE_ROWS;
}

int
hi_keep_row (const struct hi_options *o, struct hi_table *t,
             uint64_t *n_shown, int above_threshold)
{
  if (!above_threshold)
    {
      t->below_threshold++;
      return 0;
    }
  if (o->limit && *n_shown >= o->limit)
    {
      t->over_limit++;
      return 0;
    }
  ++*n_shown;
  return 1;
}


int
hi_path_span (const struct hi_analysis *a, uint64_t s, uint32_t *from,
              uint32_t *to)
{
  uint32_t f = a->chain_start[s], t = a->chain_start[s + 1];
  uint32_t depth = a->opt.depth > 0 ? (uint32_t) a->opt.depth : 1;
  uint32_t start = t - f > depth ? t - depth : f;
  int cut = start > f;
  /* A chain the monitor cut at its depth cap starts with the cut node:
     shown as the same "..." as a cut here, never as a label of its own. */
  if (start < t && a->chain_frames[start] == HI_FRAME_CUT)
    start++, cut = 1;
  *from = start;
  *to = t;
  return cut;
}

/* The last DEPTH labels of site S's chain, "..." first when cut. */
void
hi_site_path (struct hi_analysis *a, uint64_t s, char *buf, size_t size)
{
  uint32_t from, to;
  int cut = hi_path_span (a, s, &from, &to);
  size_t at = 0;
  buf[0] = '\0';
  if (a->chain_start[s] == to)
    {
      snprintf (buf, size, "<no call chain recorded>");
      return;
    }
  if (cut)
    at += (size_t) snprintf (buf, size, from < to ? "... > " : "...");
  for (uint32_t i = from; i < to && at < size; i++)
    at += (size_t) snprintf (buf + at, size - at, "%s%s",
                             a->labels.strs[hi_chain_frame (a, i)->label],
                             i + 1 < to ? " > " : "");
}

struct hi_rframe
hi_report_frame (const struct hi_analysis *a, uint32_t f)
{
  const struct hi_frame *fr = &a->frames[f];
  struct hi_rframe out;
  memset (&out, 0, sizeof out);
  out.cut = f == HI_FRAME_CUT;
  out.function = fr->name != HI_NONE ? a->strs.strs[fr->name]
                                      : a->funcs.strs[fr->func];
  out.label = a->labels.strs[fr->label];
  out.module = fr->module != HI_NONE ? a->strs.strs[fr->module] : NULL;
  out.file = fr->file != HI_NONE ? a->strs.strs[fr->file] : NULL;
  out.line = fr->line;
  out.inlined = fr->inlined;
  out.offset = fr->offset;
  out.address = fr->address;
  return out;
}

struct hi_cell
hi_path_cell (struct hi_analysis *a, uint64_t s, struct hi_rmodel *r)
{
  uint32_t from, to;
  int cut = hi_path_span (a, s, &from, &to);
  if (a->chain_start[s] == to)
    return hi_cell_path (0, 0);
  uint64_t first = r->n_frames;
  if (cut)
    {
      struct hi_rframe c = hi_report_frame (a, HI_FRAME_CUT);
      hi_rmodel_frames (r, &c, 1);
    }
  for (uint32_t i = from; i < to; i++)
    {
      struct hi_rframe f = hi_report_frame (a, a->chain_frames[i]);
      hi_rmodel_frames (r, &f, 1);
    }
  return hi_cell_path (first, r->n_frames - first);
}
