/* samples.c - a report's chains as a profile: samples of locations, each
   location a call instruction with its (inlined) frames, and the modules
   they lie in as mappings.  The one view the profile formats (pprof,
   gperftools' text, folded stacks, the SVG flame graph) write out. */
#include "tables/tables.h"
#include "util/num.h"
#include "util/hash.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The location of A's chain frames [I, END) starting at I: its frames
   are I and the inlined ones after it.  Returns the index past it. */
static uint32_t
location_end (const struct hi_analysis *a, uint32_t i, uint32_t end)
{
  uint32_t j = i + 1;
  while (j < end && hi_chain_frame (a, j)->inlined
         && hi_chain_frame (a, j)->address == hi_chain_frame (a, i)->address)
    j++;
  return j;
}

/* The loaded module of M holding ADDR (the last of overlapping ones, as
   the symbolizer takes it), or -1. */
static int64_t
module_of (const struct hi_model *m, uint64_t addr)
{
  for (uint64_t i = m->n_modules; i-- > 0;)
    {
      const struct hi_module *mod = &m->modules[i];
      if ((mod->flags & HI_MODULE_LOADED) && addr >= mod->start
          && addr < mod->end)
        return (int64_t) i;
    }
  return -1;
}

struct build
{
  struct hi_analysis *a;
  struct hi_rmodel *r;
  uint32_t *loc_of_frame;    /* head frame id -> location + 1; 0: none */
  uint32_t *mapping_of;      /* module -> mapping + 1; 0: none yet */
  struct hi_hash chains;     /* sample location lists -> sample */
  size_t cap_locations, cap_mappings;
  uint32_t *tstart, *tlist;  /* the client API's type pairs by site
                                (hi_types_group), or NULL */
};

static int
grow_array (void **v, size_t n, size_t *cap, size_t size)
{
  if (n < *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 64;
  void *p = c < SIZE_MAX / size ? realloc (*v, c * size) : NULL;
  if (!p)
    return -1;
  *v = p;
  *cap = c;
  return 0;
}

/* The mapping index + 1 for module MOD of the model (added on first
   use); UINT32_MAX if out of memory. */
static uint32_t
mapping_of_module (struct build *b, uint64_t mod)
{
  const struct hi_model *m = b->a->m;
  if (b->mapping_of[mod])
    return b->mapping_of[mod];
  struct hi_rmodel *r = b->r;
  if (grow_array ((void **) &r->mappings, r->n_mappings, &b->cap_mappings,
                  sizeof *r->mappings) != 0)
    return UINT32_MAX;
  const struct hi_module *rec = &m->modules[mod];
  struct hi_rmapping *mp = &r->mappings[r->n_mappings];
  memset (mp, 0, sizeof *mp);
  mp->start = rec->start;
  mp->limit = rec->end;
  /* START is the lowest PT_LOAD segment's address, which every linker
     maps from the file's offset 0. */
  mp->offset = 0;
  mp->path = hi_rmodel_strdup (r, rec->path);
  uint32_t n = rec->build_id_len <= HI_BUILD_ID_MAX ? rec->build_id_len : 0;
  if (n)
    {
      char hex[2 * HI_BUILD_ID_MAX + 1];
      for (uint32_t i = 0; i < n; i++)
        snprintf (hex + 2 * i, 3, "%02x", rec->build_id[i]);
      mp->build_id = hi_rmodel_strdup (r, hex);
    }
  if (!mp->path || (n && !mp->build_id))
    return UINT32_MAX;
  r->n_mappings++;
  b->mapping_of[mod] = (uint32_t) r->n_mappings;
  return b->mapping_of[mod];
}

/* The mapping index + 1 for the module holding ADDR, 0 if none;
   UINT32_MAX if out of memory. */
static uint32_t
mapping_for (struct build *b, uint64_t addr)
{
  int64_t mod = module_of (b->a->m, addr);
  return mod < 0 ? 0 : mapping_of_module (b, (uint64_t) mod);
}

/* The location of chain frames [I, J): found by its head frame, or made.
   Its index, or UINT32_MAX if out of memory. */
static uint32_t
location_for (struct build *b, uint32_t i, uint32_t j)
{
  struct hi_analysis *a = b->a;
  struct hi_rmodel *r = b->r;
  uint32_t head = a->chain_frames[i];
  uint32_t known = b->loc_of_frame[head];
  if (known && r->locations[known - 1].n == j - i)
    return known - 1;
  if (grow_array ((void **) &r->locations, r->n_locations,
                  &b->cap_locations, sizeof *r->locations) != 0)
    return UINT32_MAX;
  const struct hi_frame *hf = &a->frames[head];
  struct hi_rlocation loc;
  memset (&loc, 0, sizeof loc);
  loc.return_address = hf->address;
  loc.address = hf->address ? hf->address - 1 : 0;
  loc.mapping = hf->address ? mapping_for (b, hf->address - 1) : 0;
  if (loc.mapping == UINT32_MAX)
    return UINT32_MAX;
  loc.first = r->n_frames;
  loc.n = j - i;
  for (uint32_t k = i; k < j; k++)
    {
      const struct hi_frame *f = hi_chain_frame (a, k);
      struct hi_rframe rf = hi_report_frame (a, a->chain_frames[k]);
      rf.group = a->funcs.strs[f->func];
      rf.system_name = f->system_name != HI_NONE ? a->strs.strs[f->system_name]
                                                 : rf.group;
      if (hi_rmodel_frames (r, &rf, 1) == UINT64_MAX)
        return UINT32_MAX;
    }
  if (loc.mapping)
    {
      struct hi_rmapping *mp = &r->mappings[loc.mapping - 1];
      /* A mapping has functions when a frame of it was named by a
         symbol (not "module+0x..."), lines when one has a line. */
      mp->symbolized |= hf->symbolized;
      for (uint32_t k = i; k < j; k++)
        mp->lines |= hi_chain_frame (a, k)->line != 0;
    }
  r->locations[r->n_locations++] = loc;
  if (!known)
    b->loc_of_frame[head] = (uint32_t) r->n_locations;
  return (uint32_t) r->n_locations - 1;
}

struct chain_key
{
  const struct hi_rmodel *r;
  const uint32_t *locs;
  uint64_t n;
};

static int
same_chain (const void *ctx, uint32_t id)
{
  const struct chain_key *k = ctx;
  const struct hi_rsample *s = &k->r->samples[id];
  return s->n == k->n
         && memcmp (&k->r->sample_locs[s->first], k->locs,
                    k->n * sizeof *k->locs) == 0;
}

/* Site S's chain as a sample (merged with an equal chain's). */
static hi_status
add_sample (struct build *b, uint64_t s, uint32_t *locs)
{
  struct hi_analysis *a = b->a;
  struct hi_rmodel *r = b->r;
  uint32_t start = a->chain_start[s], end = a->chain_start[s + 1];
  uint64_t n = 0;
  for (uint32_t i = start; i < end;)
    {
      uint32_t j = location_end (a, i, end);
      uint32_t loc = location_for (b, i, j);
      if (loc == UINT32_MAX)
        return HI_E_NOMEM;
      locs[n++] = loc;
      i = j;
    }
  /* Outermost first so far: pprof's order is the innermost first. */
  for (uint64_t i = 0; i < n / 2; i++)
    {
      uint32_t t = locs[i];
      locs[i] = locs[n - 1 - i];
      locs[n - 1 - i] = t;
    }
  const struct hi_site_sum *sum = &a->sum[s];
  struct chain_key key = { r, locs, n };
  uint64_t h = hi_hash_bytes (locs, n * sizeof *locs);
  uint32_t id = hi_hash_find (&b->chains, h, same_chain, &key);
  if (id == UINT32_MAX)
    {
      id = (uint32_t) r->n_samples++;
      struct hi_rsample *smp = &r->samples[id];
      memset (smp, 0, sizeof *smp);
      smp->first = r->n_sample_locs;
      smp->n = n;
      memcpy (&r->sample_locs[r->n_sample_locs], locs, n * sizeof *locs);
      r->n_sample_locs += n;
      smp->types = NULL;
      if (b->tstart && b->tstart[s + 1] > b->tstart[s])
        {
          char types[512];
          hi_types_join (b->a, b->tlist + b->tstart[s],
                         b->tstart[s + 1] - b->tstart[s], types, sizeof types);
          smp->types = hi_rmodel_strdup (r, types);
        }
      if (hi_hash_insert (&b->chains, h, id) != 0)
        return HI_E_NOMEM;
    }
  struct hi_rsample *smp = &r->samples[id];
  smp->alloc_objects = hi_add_sat (smp->alloc_objects, sum->allocs);
  smp->alloc_space = hi_add_sat (smp->alloc_space, sum->bytes);
  smp->inuse_objects = hi_add_sat (smp->inuse_objects,
                                   hi_sub0 (sum->allocs, sum->frees));
  smp->inuse_space = hi_add_sat (smp->inuse_space,
                                 hi_sub0 (sum->bytes, sum->freed));
  if (r->has_peak)
    {
      const struct hi_chain_time *ct = &a->m->chain_time[s];
      smp->peak_objects = hi_add_sat (smp->peak_objects, ct->peak_blocks);
      smp->peak_space = hi_add_sat (smp->peak_space, ct->peak_bytes);
    }
  return HI_OK;
}

hi_status
hi_samples_build (struct hi_analysis *a, struct hi_rmodel *r)
{
  const struct hi_model *m = a->m;
  struct build b;
  memset (&b, 0, sizeof b);
  b.a = a;
  b.r = r;
  hi_hash_init (&b.chains);
  /* Every sample and its locations fit in what the chains hold: one
     location per chain frame at most. */
  uint64_t n_sites = 0, longest = 0, total = 0;
  for (uint64_t s = 0; s < m->n_sites; s++)
    {
      uint64_t len = a->chain_start[s + 1] - a->chain_start[s];
      n_sites++;
      total += len;
      if (len > longest)
        longest = len;
    }
  b.loc_of_frame = calloc (a->n_frames ? a->n_frames : 1,
                           sizeof *b.loc_of_frame);
  b.mapping_of = calloc (m->n_modules ? m->n_modules : 1,
                         sizeof *b.mapping_of);
  uint32_t *locs = malloc ((longest ? longest : 1) * sizeof *locs);
  r->samples = malloc ((n_sites ? n_sites : 1) * sizeof *r->samples);
  r->sample_locs = malloc ((total ? total : 1) * sizeof *r->sample_locs);
  hi_status st = b.loc_of_frame && b.mapping_of && locs && r->samples
                 && r->sample_locs ? HI_OK : HI_E_NOMEM;
  if (st == HI_OK && hi_types_ready (a) == HI_OK && a->n_types)
    st = hi_types_group (a, NULL, 0, (uint32_t) m->n_sites, &b.tstart,
                         &b.tlist);
  /* With time data, each chain's figures at the peak too. */
  r->has_peak = m->has_time && m->chain_time;
  /* The main executable (the monitor records it first) is the first
     mapping: pprof takes the first one for the program (its "File:"
     line, and which file it symbolizes as the binary), and gperftools
     lists it first too.  The others follow in their order of use. */
  if (st == HI_OK && m->n_modules > 0
      && (m->modules[0].flags & HI_MODULE_LOADED)
      && mapping_of_module (&b, 0) == UINT32_MAX)
    st = HI_E_NOMEM;
  for (uint64_t s = 0; s < m->n_sites && st == HI_OK; s++)
    if (a->sum[s].allocs > 0 && !(hi_site_flags (a, s) & HI_SITE_FILTERED))
      st = add_sample (&b, s, locs);    /* (a chain may have no frame) */
  if (st == HI_OK && r->nomem)
    st = HI_E_NOMEM;
  r->has_samples = st == HI_OK;
  free (locs);
  free (b.loc_of_frame);
  free (b.mapping_of);
  hi_hash_free (&b.chains);
  free (b.tstart);
  free (b.tlist);
  return st;
}
