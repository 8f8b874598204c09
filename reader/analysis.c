/* analysis.c - from caller/callee nodes to chains of function names. */
#include "analysis.h"

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

/* Drop GCC's clone suffixes (f.constprop.0, f.isra.0, f.part.0, f.cold)
   and symbol versions (f@@GLIBC_2.34): the user wrote f. */
static void
strip_clone_suffix (char *name)
{
  static const char *const suffixes[] = {
    ".constprop.", ".isra.", ".part.", ".cold", ".lto_priv.", NULL
  };
  for (int i = 0; suffixes[i]; i++)
    {
      char *at = strstr (name, suffixes[i]);
      if (at && at != name)
        *at = '\0';
    }
  char *version = strchr (name, '@');     /* memcpy@@GLIBC_2.14 */
  if (version && version != name)
    *version = '\0';
}

/* Name node I (its call site) into NAME and LABEL. */
static void
describe (struct hi_analysis *a, uint64_t i, char *name, size_t nsize,
          char *label, size_t lsize)
{
  uint64_t ret = a->m->nodes[i].ret;
  struct hi_code c;
  memset (&c, 0, sizeof c);
  if (i > HI_NODE_CUT)
    hi_symbolize (a->sym, ret - 1, &c);   /* the call, not the return */
  if (i <= HI_NODE_CUT)
    snprintf (name, nsize, "%s", i == HI_NODE_CUT ? "..." : "<root>");
  else if (c.function)
    {
      snprintf (name, nsize, "%s", c.function);
      strip_clone_suffix (name);
    }
  else if (c.module)
    snprintf (name, nsize, "%s+0x%" PRIx64, c.module, c.module_offset + 1);
  else
    snprintf (name, nsize, "0x%" PRIx64, ret);
  if (c.function && a->opt.offsets)
    snprintf (label, lsize, "%s+0x%" PRIx64, name, c.function_offset + 1);
  else
    snprintf (label, lsize, "%s", name);
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
   symbolize each address once. */
static hi_status
name_nodes (struct hi_analysis *a)
{
  const struct hi_model *m = a->m;
  a->node_func = calloc (m->n_nodes, sizeof *a->node_func);
  a->node_label = calloc (m->n_nodes, sizeof *a->node_label);
  if (!a->node_func || !a->node_label)
    return HI_E_NOMEM;
  struct hi_hash seen;       /* return address -> first node with it */
  hi_hash_init (&seen);
  hi_status s = HI_OK;
  for (uint64_t i = 0; i < m->n_nodes && s == HI_OK; i++)
    {
      struct ret_key k = { m, m->nodes[i].ret };
      uint64_t h = hi_hash_u64 (k.ret);
      uint32_t first = i > HI_NODE_CUT ? hi_hash_find (&seen, h, same_ret, &k)
                                       : UINT32_MAX;
      if (first != UINT32_MAX)
        {
          a->node_func[i] = a->node_func[first];
          a->node_label[i] = a->node_label[first];
          continue;
        }
      char name[1024], label[1100];
      describe (a, i, name, sizeof name, label, sizeof label);
      a->node_func[i] = hi_strtab_intern (&a->funcs, name);
      a->node_label[i] = hi_strtab_intern (&a->labels, label);
      if (a->node_func[i] == UINT32_MAX || a->node_label[i] == UINT32_MAX
          || (i > HI_NODE_CUT && hi_hash_insert (&seen, h, (uint32_t) i) != 0))
        s = HI_E_NOMEM;
    }
  hi_hash_free (&seen);
  return s;
}

static hi_status
build_chains (struct hi_analysis *a)
{
  const struct hi_model *m = a->m;
  uint64_t total = 0;
  a->chain_start = calloc (m->n_sites + 1, sizeof *a->chain_start);
  a->sum = calloc (m->n_sites, sizeof *a->sum);
  if (!a->chain_start || !a->sum)
    return HI_E_NOMEM;
  for (uint64_t s = 0; s < m->n_sites; s++)
    total += m->sites[s].depth + 1;
  if (total > UINT32_MAX)
    return HI_E_CORRUPT;
  a->chain_nodes = malloc ((total ? total : 1) * sizeof *a->chain_nodes);
  if (!a->chain_nodes)
    return HI_E_NOMEM;
  uint32_t at = 0;
  uint32_t *tmp = malloc ((m->n_nodes + 1) * sizeof *tmp);
  if (!tmp)
    return HI_E_NOMEM;
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
         checked that the depth is the walk's length), then keep the part
         from main, or past the start-up frames, inward. */
      uint32_t n = 0;
      for (uint32_t node = s ? site->node : 0; node > HI_NODE_CUT
           && n < site->depth; node = m->nodes[node].parent)
        tmp[n++] = node;
      if (n > 0 && m->nodes[tmp[n - 1]].parent == HI_NODE_CUT)
        tmp[n++] = HI_NODE_CUT;
      /* From main if it is named; else from past the innermost start-up
         frame (stripped programs name neither main nor _start). */
      int first = (int) n - 1;
      int found = 0;
      for (int i = (int) n - 1; i >= 0 && !found; i--)
        if (strcmp (a->funcs.strs[a->node_func[tmp[i]]], "main") == 0)
          first = i, found = 1;
      for (int i = 0; i < (int) n && !found; i++)
        if (is_startup (a->funcs.strs[a->node_func[tmp[i]]]))
          first = i - 1, found = 1;
      if (first < 0 && n > 0)
        first = 0;              /* the leaf itself is a start-up frame */
      int last = 0;
      while (last < first && is_wrapper (a->funcs.strs[a->node_func[tmp[last]]]))
        last++;
      for (int i = first; i >= last && at < total; i--)
        a->chain_nodes[at++] = tmp[i];
    }
  a->chain_start[m->n_sites] = at;
  free (tmp);
  return HI_OK;
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
  hi_status s = name_nodes (a);
  if (s == HI_OK)
    s = build_chains (a);
  if (s != HI_OK)
    hi_analysis_free (a);
  return s;
}

void
hi_analysis_free (struct hi_analysis *a)
{
  hi_strtab_free (&a->funcs);
  hi_strtab_free (&a->labels);
  free (a->node_func);
  free (a->node_label);
  free (a->chain_start);
  free (a->chain_nodes);
  free (a->sum);
  memset (a, 0, sizeof *a);
}

/* floor (PART * K / WHOLE) for PART < WHOLE, without overflow. */
static uint64_t
scaled (uint64_t part, uint64_t whole, unsigned k)
{
  if (part <= UINT64_MAX / k)
    return part * k / whole;
  uint64_t q = 0, r = 0;      /* K additions of PART, modulo WHOLE */
  for (unsigned i = 0; i < k; i++)
    if (part >= whole - r)
      q++, r = part - (whole - r);
    else
      r += part;
  return q;
}

void
hi_pct2 (char *out, uint64_t part, uint64_t whole)
{
  if (part == 0 || whole == 0)
    strcpy (out, "  ");
  else if (part >= whole)
    strcpy (out, "**");
  else
    {
      uint64_t pct = scaled (part, whole, 100);
      if (pct == 0)
        strcpy (out, " .");
      else
        snprintf (out, 3, "%2u", (unsigned) pct);
    }
}

int
hi_shown (const struct hi_options *o, uint64_t part, uint64_t whole)
{
  if (o->verbosity == HI_VERBOSE)
    return part > 0;
  /* terse: at least 1%; normal: at least 0.5%, i.e. part * K >= whole */
  uint64_t k = o->verbosity == HI_TERSE ? 100 : 200;
  return whole && part > 0 && part >= whole / k + (whole % k != 0);
}

void
hi_json_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (; s && *s; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (c == '"' || c == '\\')
        fprintf (f, "\\%c", c);
      else if (c < 0x20)
        fprintf (f, "\\u%04x", c);
      else
        fputc (c, f);
    }
  fputc ('"', f);
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
  if (start < t && a->chain_nodes[start] == HI_NODE_CUT)
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
                             a->labels.strs[a->node_label[a->chain_nodes[i]]],
                             i + 1 < to ? " > " : "");
}
