/* filter.c - the per-site flags the tables read: --focus, --ignore and
   --module (pprof's focus and ignore, on any frame of a chain) and the
   suppressions, computed once per analysis. */
#include "util/errors.h"
#include "analysis/filter.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct hi_filters
{
  int has_focus, has_ignore;
  regex_t focus, ignore;
  const char *module;        /* --module, or NULL */
  int has_file, builtin;
  struct hi_suppressions file;
};

int
hi_module_named (const char *name, const char *mod)
{
  if (!name || !mod)
    return 0;
  const char *slash = strrchr (name, '/');
  const char *base = slash ? slash + 1 : name;
  size_t len = strlen (base);
  return len > 0 && strncmp (mod, base, len) == 0
         && (mod[len] == '\0' || mod[len] == '.');
}

/* Compile RE of option OPTION into *OUT. */
static hi_status
compile (regex_t *out, const char *re, const char *option)
{
  int err = regcomp (out, re, REG_EXTENDED | REG_NOSUB);
  if (err == 0)
    return HI_OK;
  char why[160], shown[160];
  regerror (err, out, why, sizeof why);
  hi_escape (re, shown, sizeof shown);
  return err == REG_ESPACE ? HI_E_NOMEM
         : hi_fail_text (HI_E_REGEX, "--%s=%s: %s", option, shown, why);
}

void
hi_filters_free (struct hi_filters *f)
{
  if (!f)
    return;
  if (f->has_focus)
    regfree (&f->focus);
  if (f->has_ignore)
    regfree (&f->ignore);
  hi_suppressions_free (&f->file);
  free (f);
}

hi_status
hi_filters_new (const struct hi_options *opt, struct hi_filters **out)
{
  *out = NULL;
  if (!opt->focus && !opt->ignore && !opt->module && !opt->suppressions
      && !opt->default_suppressions)
    return HI_OK;
  struct hi_filters *f = calloc (1, sizeof *f);
  if (!f)
    return HI_E_NOMEM;
  hi_suppressions_init (&f->file);
  hi_status s = HI_OK;
  if (opt->focus)
    {
      s = compile (&f->focus, opt->focus, "focus");
      f->has_focus = s == HI_OK;
    }
  if (s == HI_OK && opt->ignore)
    {
      s = compile (&f->ignore, opt->ignore, "ignore");
      f->has_ignore = s == HI_OK;
    }
  f->module = opt->module;
  f->builtin = opt->default_suppressions;
  if (s == HI_OK && opt->suppressions)
    {
      s = hi_suppressions_load (&f->file, opt->suppressions);
      f->has_file = 1;
    }
  if (s != HI_OK)
    {
      hi_filters_free (f);
      return s;
    }
  *out = f;
  return HI_OK;
}

uint32_t
hi_filters_ignored (const struct hi_filters *f)
{
  return f ? f->file.ignored : 0;
}

hi_status
hi_filters_check (const struct hi_options *opt, uint32_t *ignored)
{
  struct hi_filters *f;
  hi_status s = hi_filters_new (opt, &f);
  if (ignored)
    *ignored = hi_filters_ignored (f);
  hi_filters_free (f);
  return s;
}

/* Answers cached per string or frame id: 0 not asked yet, 1 no, 2 yes. */
static int
cached (uint8_t *memo, uint32_t id, int (*ask) (const void *, uint32_t),
        const void *ctx)
{
  if (!memo[id])
    memo[id] = ask (ctx, id) ? 2 : 1;
  return memo[id] == 2;
}

struct ask
{
  const struct hi_filters *f;
  const struct hi_analysis *a;
};

/* The name FRAME shows, without the " (module)" the tables add when two
   modules have a function of that name. */
static const char *
shown_name (const struct hi_analysis *a, uint32_t frame)
{
  const struct hi_frame *fr = &a->frames[frame];
  return fr->name != HI_NONE ? a->strs.strs[fr->name] : a->funcs.strs[fr->func];
}

static int
ask_focus (const void *ctx, uint32_t frame)
{
  const struct ask *q = ctx;
  return regexec (&q->f->focus, shown_name (q->a, frame), 0, NULL, 0) == 0;
}

static int
ask_ignore (const void *ctx, uint32_t frame)
{
  const struct ask *q = ctx;
  return regexec (&q->f->ignore, shown_name (q->a, frame), 0, NULL, 0) == 0;
}

static int
ask_module (const void *ctx, uint32_t frame)
{
  const struct ask *q = ctx;
  uint32_t mod = q->a->frames[frame].module;
  return mod != HI_NONE && hi_module_named (q->f->module, q->a->strs.strs[mod]);
}

/* LSan's rule: a frame's function, module or source file name; the
   function by the name shown and by its full demangled name, so patterns
   written for LeakSanitizer's full signatures still match. */
static int
ask_suppressed (const void *ctx, uint32_t frame)
{
  const struct ask *q = ctx;
  const struct hi_analysis *a = q->a;
  const struct hi_frame *fr = &a->frames[frame];
  return hi_suppressions_match (&q->f->file, shown_name (a, frame))
         || (fr->long_name != HI_NONE
             && hi_suppressions_match (&q->f->file, a->strs.strs[fr->long_name]))
         || (fr->module != HI_NONE
             && hi_suppressions_match (&q->f->file, a->strs.strs[fr->module]))
         || (fr->file != HI_NONE
             && hi_suppressions_match (&q->f->file, a->strs.strs[fr->file]));
}

hi_status
hi_filters_apply (const struct hi_filters *f, struct hi_analysis *a)
{
  free (a->site_flags);
  a->site_flags = NULL;
  if (!f)
    return HI_OK;
  uint64_t n_sites = a->m->n_sites;
  a->site_flags = calloc (n_sites ? n_sites : 1, 1);
  uint8_t *focus = calloc (a->n_frames + 1, 1);
  uint8_t *ignore = calloc (a->n_frames + 1, 1);
  uint8_t *module = calloc (a->n_frames + 1, 1);
  uint8_t *supp = calloc (a->n_frames + 1, 1);
  uint8_t *builtin = calloc (a->n_frames + 1, 1);
  hi_status s = HI_OK;
  if (!a->site_flags || !focus || !ignore || !module || !supp || !builtin)
    s = HI_E_NOMEM;
  struct ask q = { f, a };
  for (uint64_t site = 0; site < n_sites && s == HI_OK; site++)
    {
      /* A site that never allocated (the model's unused site 0, sites it
         dropped) is in no table: nothing to leave out, nothing counted. */
      const struct hi_site_sum *sum = a->sum ? &a->sum[site] : NULL;
      if (sum && !sum->allocs && !sum->bytes && !sum->frees && !sum->freed)
        continue;
      int focused = 0, ignored = 0, in_module = 0, suppressed = 0;
      for (uint32_t i = a->chain_start[site]; i < a->chain_start[site + 1];
           i++)
        {
          uint32_t frame = a->chain_frames[i];
          if (frame == HI_FRAME_CUT)
            continue;
          focused |= f->has_focus && cached (focus, frame, ask_focus, &q);
          ignored |= f->has_ignore && cached (ignore, frame, ask_ignore, &q);
          in_module |= f->module && cached (module, frame, ask_module, &q);
          suppressed |= f->file.n && cached (supp, frame, ask_suppressed, &q);
        }
      uint8_t flags = 0;
      if ((f->has_focus && !focused) || ignored || (f->module && !in_module))
        flags |= HI_SITE_FILTERED;
      if (suppressed)
        flags |= HI_SITE_SUPPRESSED;
      if (f->builtin && hi_default_suppressed (a, site, builtin))
        flags |= HI_SITE_SUPPRESSED_DEFAULT;
      a->site_flags[site] = flags;
    }
  free (focus);
  free (ignore);
  free (module);
  free (supp);
  free (builtin);
  if (s != HI_OK)
    {
      free (a->site_flags);
      a->site_flags = NULL;
    }
  return s;
}
