/* emit-pprof.c - a report's samples as pprof's profile.proto, gzip-
   compressed, as `pprof` and the continuous-profiling services read it:
   built with protobuf-c's generated code (reader/profile.proto) and
   compressed with zlib while it is packed. */
#include "report/rmodel.h"
#include "reader/report/profile.pb-c.h"
#include "util/strtab.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* The profile being built and what its messages live in. */
struct pb
{
  const struct hi_rmodel *r;
  struct hi_strtab strings;  /* the string table: "" is id 0 */
  int nomem;
  /* Functions by (name, system_name, filename) string ids. */
  struct hi_hash funcs;
  Function *func;
  Function **func_ptr;
  size_t n_funcs;
};

/* String S's index in the string table (NULL is ""). */
static int64_t
str (struct pb *p, const char *s)
{
  uint32_t id = hi_strtab_intern (&p->strings, s ? s : "");
  if (id == UINT32_MAX)
    {
      p->nomem = 1;
      return 0;
    }
  return id;
}

struct func_key
{
  const struct pb *p;
  int64_t name, system_name, filename;
};

static int
same_func (const void *ctx, uint32_t id)
{
  const struct func_key *k = ctx;
  const Function *f = &k->p->func[id];
  return f->name == k->name && f->system_name == k->system_name
         && f->filename == k->filename;
}

/* The id of frame F's function, made on first use; 0 if out of memory.
   pprof's Function is one function of the source: the name the tables
   group by, the symbol, the file. */
static uint64_t
func_id (struct pb *p, const struct hi_rframe *f)
{
  const char *name = f->group ? f->group : f->function;
  const char *system = f->system_name ? f->system_name : name;
  /* pprof takes a function whose system name is its name for one it
     must demangle still, and cuts "<...>" and "::" names short ("<deeper>"
     would become ""): such a name is better left without one. */
  if (strcmp (system, name) == 0 && strpbrk (name, "<>[]:"))
    system = "";
  struct func_key k = { p, str (p, name), str (p, system),
                        str (p, f->file) };
  int64_t key[3] = { k.name, k.system_name, k.filename };
  uint64_t h = hi_hash_bytes (key, sizeof key);
  uint32_t id = hi_hash_find (&p->funcs, h, same_func, &k);
  if (id != UINT32_MAX)
    return p->func[id].id;
  Function *fn = &p->func[p->n_funcs];
  perftools__profiles__function__init (fn);
  fn->id = p->n_funcs + 1;
  fn->name = k.name;
  fn->system_name = k.system_name;
  fn->filename = k.filename;
  if (hi_hash_insert (&p->funcs, h, (uint32_t) p->n_funcs) != 0)
    {
      p->nomem = 1;
      return 0;
    }
  p->func_ptr[p->n_funcs] = fn;
  return ++p->n_funcs;
}

/* What protobuf-c packs into: zlib's gzip stream, written to F as it
   fills. */
struct gz_out
{
  ProtobufCBuffer base;      /* first: protobuf-c calls base.append */
  z_stream z;
  FILE *f;
  int failed;
  unsigned char buf[65536];
};

/* Compress LEN bytes at DATA (FLUSH: Z_NO_FLUSH, or Z_FINISH to end the
   stream) and write what zlib gives. */
static void
gz_write (struct gz_out *g, size_t len, const uint8_t *data, int flush)
{
  if (g->failed)
    return;
  do
    {
      /* zlib counts in uInt: feed a large field in parts. */
      size_t part = len > 1u << 30 ? 1u << 30 : len;
      g->z.next_in = (Bytef *) data;
      g->z.avail_in = (uInt) part;
      int last = flush == Z_FINISH && part == len;
      int zs;
      do
        {
          g->z.next_out = g->buf;
          g->z.avail_out = sizeof g->buf;
          zs = deflate (&g->z, last ? Z_FINISH : Z_NO_FLUSH);
          if (zs == Z_STREAM_ERROR)
            {
              g->failed = 1;
              return;
            }
          size_t have = sizeof g->buf - g->z.avail_out;
          if (have && fwrite (g->buf, 1, have, g->f) != have)
            {
              g->failed = 1;
              return;
            }
        }
      while (g->z.avail_out == 0 || (last && zs != Z_STREAM_END));
      /* DATA is NULL when there is nothing to add (the Z_FINISH call):
         even adding 0 to it is undefined. */
      if (part)
        data += part;
      len -= part;
    }
  while (len > 0);
}

static void
gz_append (ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
  gz_write ((struct gz_out *) b, len, data, Z_NO_FLUSH);
}

/* PROFILE packed, gzip-compressed, to F. */
static hi_status
write_gzip (const Profile *profile, FILE *f)
{
  struct gz_out *g = calloc (1, sizeof *g);
  if (!g)
    return HI_E_NOMEM;
  g->base.append = gz_append;
  g->f = f;
  /* windowBits 15 + 16: a gzip header and trailer, as pprof wants. */
  int zs = deflateInit2 (&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16,
                         8, Z_DEFAULT_STRATEGY);
  if (zs != Z_OK)
    {
      free (g);
      return zs == Z_MEM_ERROR ? HI_E_NOMEM : HI_E_WRITE;
    }
  perftools__profiles__profile__pack_to_buffer (profile, &g->base);
  gz_write (g, 0, NULL, Z_FINISH);
  deflateEnd (&g->z);
  int failed = g->failed || fflush (f) != 0 || ferror (f);
  free (g);
  return failed ? HI_E_WRITE : HI_OK;
}

static int64_t
clamp (uint64_t v)
{
  return v > INT64_MAX ? INT64_MAX : (int64_t) v;
}

/* The arrays the profile's messages live in, allocated at once. */
struct store
{
  ValueType vt[6], *vt_ptr[6], period_type;
  Sample *smp, **smp_ptr;
  Label *label, **label_ptr;     /* one per sample with types */
  uint64_t *loc_ids;
  int64_t *values;
  Mapping *map, **map_ptr;
  Location *loc, **loc_ptr;
  Line *line, **line_ptr;
  int64_t comments[3 + 8];
};

static void
store_free (struct store *s)
{
  free (s->smp);
  free (s->smp_ptr);
  free (s->label);
  free (s->label_ptr);
  free (s->loc_ids);
  free (s->values);
  free (s->map);
  free (s->map_ptr);
  free (s->loc);
  free (s->loc_ptr);
  free (s->line);
  free (s->line_ptr);
}

/* N elements of SIZE bytes (at least one, so NULL means out of
   memory). */
static void *
array (size_t n, size_t size)
{
  return calloc (n ? n : 1, size);
}

/* The sample types, in the order pprof's own heap profiles have them;
   then, with time data, the chains' figures at the peak. */
static const char *const types[6][2] = {
  { "alloc_objects", "count" },
  { "alloc_space", "bytes" },
  { "inuse_objects", "count" },
  { "inuse_space", "bytes" },
  { "peak_objects", "count" },
  { "peak_space", "bytes" },
};
#define NTYPES(r) ((r)->has_peak ? 6 : 4)

/* Fill PROFILE from P's report into S's arrays. */
static void
build (struct pb *p, struct store *s, const struct hi_emit_options *o,
       Profile *profile)
{
  const struct hi_rmodel *r = p->r;
  int nt = NTYPES (r);
  for (int i = 0; i < nt; i++)
    {
      perftools__profiles__value_type__init (&s->vt[i]);
      s->vt[i].type = str (p, types[i][0]);
      s->vt[i].unit = str (p, types[i][1]);
      s->vt_ptr[i] = &s->vt[i];
    }
  profile->n_sample_type = (size_t) nt;
  profile->sample_type = s->vt_ptr;
  /* pprof opens on the figure --weight names, inuse_space by default. */
  enum hi_weight dw = o->weight;
  if (!r->has_peak && (dw == HI_WEIGHT_PEAK_SPACE
                       || dw == HI_WEIGHT_PEAK_OBJECTS))
    dw = HI_WEIGHT_INUSE_SPACE;     /* a type the profile has */
  profile->default_sample_type = str (p, hi_weight_name (dw));
  perftools__profiles__value_type__init (&s->period_type);
  s->period_type.type = str (p, "space");
  s->period_type.unit = str (p, "bytes");
  profile->period_type = &s->period_type;
  profile->period = 1;      /* every allocation counted: no sampling */

  for (size_t i = 0; i < r->n_mappings; i++)
    {
      const struct hi_rmapping *rm = &r->mappings[i];
      Mapping *m = &s->map[i];
      perftools__profiles__mapping__init (m);
      m->id = i + 1;
      m->memory_start = rm->start;
      m->memory_limit = rm->limit;
      m->file_offset = rm->offset;
      m->filename = str (p, rm->path);
      m->build_id = rm->build_id ? str (p, rm->build_id) : 0;
      m->has_functions = rm->symbolized != 0;
      m->has_filenames = m->has_line_numbers = m->has_inline_frames
        = rm->lines != 0;
      s->map_ptr[i] = m;
    }
  profile->n_mapping = r->n_mappings;
  profile->mapping = s->map_ptr;

  size_t n_lines = 0;
  for (size_t i = 0; i < r->n_locations; i++)
    {
      const struct hi_rlocation *rl = &r->locations[i];
      Location *l = &s->loc[i];
      perftools__profiles__location__init (l);
      l->id = i + 1;
      l->mapping_id = rl->mapping;
      l->address = rl->address;
      l->n_line = rl->n;
      l->line = &s->line_ptr[n_lines];
      /* Our frames are outermost first; pprof's lines innermost first. */
      for (uint64_t k = rl->n; k-- > 0;)
        {
          const struct hi_rframe *f = &r->frames[rl->first + k];
          Line *ln = &s->line[n_lines];
          perftools__profiles__line__init (ln);
          ln->function_id = func_id (p, f);
          ln->line = f->line;
          s->line_ptr[n_lines++] = ln;
        }
      s->loc_ptr[i] = l;
    }
  profile->n_location = r->n_locations;
  profile->location = s->loc_ptr;
  profile->n_function = p->n_funcs;
  profile->function = p->func_ptr;

  for (size_t i = 0; i < r->n_samples; i++)
    {
      const struct hi_rsample *rs = &r->samples[i];
      Sample *sm = &s->smp[i];
      perftools__profiles__sample__init (sm);
      sm->n_location_id = rs->n;
      sm->location_id = &s->loc_ids[rs->first];
      for (uint64_t k = 0; k < rs->n; k++)
        s->loc_ids[rs->first + k] = (uint64_t) r->sample_locs[rs->first + k]
                                    + 1;
      int64_t *v = &s->values[(size_t) nt * i];
      v[0] = clamp (rs->alloc_objects);
      v[1] = clamp (rs->alloc_space);
      v[2] = clamp (rs->inuse_objects);
      v[3] = clamp (rs->inuse_space);
      if (nt == 6)
        {
          v[4] = clamp (rs->peak_objects);
          v[5] = clamp (rs->peak_space);
        }
      sm->n_value = (size_t) nt;
      sm->value = v;
      if (rs->types)
        {
          /* The client API's types: a label pprof can filter and group
             by (-tagfocus, -tags). */
          Label *lb = &s->label[i];
          perftools__profiles__label__init (lb);
          lb->key = str (p, "type");
          lb->str = str (p, rs->types);
          s->label_ptr[i] = lb;
          sm->n_label = 1;
          sm->label = &s->label_ptr[i];
        }
      s->smp_ptr[i] = sm;
    }
  profile->n_sample = r->n_samples;
  profile->sample = s->smp_ptr;

  /* What `pprof -comments` shows: where the data came from. */
  const struct hi_summary *sum = &r->summary;
  size_t nc = 0;
  char line[1024];
  snprintf (line, sizeof line, "heapinspect: %s", r->source ? r->source : "");
  s->comments[nc++] = str (p, line);
  if (r->has_summary && sum->command)
    {
      snprintf (line, sizeof line, "command: %s", sum->command);
      s->comments[nc++] = str (p, line);
    }
  if (r->has_summary && sum->pid)
    {
      snprintf (line, sizeof line, "pid: %llu", (unsigned long long) sum->pid);
      s->comments[nc++] = str (p, line);
    }
  for (size_t i = 0; r->has_summary && i < sum->n_problems && i < 8; i++)
    {
      snprintf (line, sizeof line, "problem: %s", sum->problems[i]);
      s->comments[nc++] = str (p, line);
    }
  profile->n_comment = nc;
  profile->comment = s->comments;
  if (r->has_summary)
    {
      profile->time_nanos = clamp (sum->read_ns);
      profile->duration_nanos = clamp (sum->run_ns);
    }
  profile->n_string_table = p->strings.n;
  profile->string_table = p->strings.strs;
}

hi_status
hi_emit_pprof (const struct hi_rmodel *r, const struct hi_emit_options *o,
               FILE *f)
{
  size_t n_lines = 0;
  for (size_t i = 0; i < r->n_locations; i++)
    n_lines += r->locations[i].n;
  struct pb p;
  memset (&p, 0, sizeof p);
  p.r = r;
  hi_strtab_init (&p.strings);
  hi_hash_init (&p.funcs);
  struct store s;
  memset (&s, 0, sizeof s);
  s.smp = array (r->n_samples, sizeof *s.smp);
  s.smp_ptr = array (r->n_samples, sizeof *s.smp_ptr);
  s.label = array (r->n_samples, sizeof *s.label);
  s.label_ptr = array (r->n_samples, sizeof *s.label_ptr);
  s.loc_ids = array (r->n_sample_locs, sizeof *s.loc_ids);
  s.values = array (r->n_samples, (size_t) NTYPES (r) * sizeof *s.values);
  s.map = array (r->n_mappings, sizeof *s.map);
  s.map_ptr = array (r->n_mappings, sizeof *s.map_ptr);
  s.loc = array (r->n_locations, sizeof *s.loc);
  s.loc_ptr = array (r->n_locations, sizeof *s.loc_ptr);
  s.line = array (n_lines, sizeof *s.line);
  s.line_ptr = array (n_lines, sizeof *s.line_ptr);
  p.func = array (n_lines, sizeof *p.func);
  p.func_ptr = array (n_lines, sizeof *p.func_ptr);
  hi_status st = HI_E_NOMEM;
  /* The string table's first entry must be "". */
  if (s.smp && s.smp_ptr && s.label && s.label_ptr && s.loc_ids && s.values && s.map && s.map_ptr
      && s.loc && s.loc_ptr && s.line && s.line_ptr && p.func && p.func_ptr
      && str (&p, "") == 0 && !p.nomem)
    {
      Profile profile;
      perftools__profiles__profile__init (&profile);
      build (&p, &s, o, &profile);
      st = p.nomem ? HI_E_NOMEM : write_gzip (&profile, f);
    }
  store_free (&s);
  free (p.func);
  free (p.func_ptr);
  hi_hash_free (&p.funcs);
  hi_strtab_free (&p.strings);
  return st;
}
