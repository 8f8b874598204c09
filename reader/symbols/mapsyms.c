/* mapsyms.c - symbols of the ELF files a target maps (mapsyms.h): every
   `_ZTV` object symbol (a vtable) and every function symbol, by
   address. */
#define _GNU_SOURCE
#include "symbols/mapsyms.h"
#include "symbols/modsyms.h"
#include "util/strtab.h"
#include "util/sort.h"
#include "util/vec.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAPS_MAX 100000u
#define SYMS_MAX 4000000u

struct sym
{
  uint64_t start, end;
  uint32_t name;                /* in names */
};

/* Symbols by start address. */
struct symvec
{
  struct sym *v;
  size_t n, cap;
};

struct hi_mapsyms
{
  unsigned what;               /* HI_MAPSYMS_* */
  struct symvec vtables, functions;
  struct hi_strtab names;
};

static int
add_sym (struct hi_mapsyms *v, struct symvec *to, uint64_t start,
         uint64_t size, const char *name)
{
  /* Names come from files a core names: control characters escaped. */
  char safe[2048];
  hi_escape (name, safe, sizeof safe);
  uint32_t id = hi_strtab_intern (&v->names, safe);
  if (id == UINT32_MAX || to->n >= SYMS_MAX
      || hi_grow ((void **) &to->v, &to->cap, to->n + 1, sizeof *to->v) != 0)
    return -1;
  to->v[to->n++] = (struct sym) { start, start + size, id };
  return 0;
}

/* "vtable for X" -> "X". */
static const char *
class_of (const char *raw, char *buf, size_t size)
{
  hi_clean_name (raw, buf, size);
  static const char prefix[] = "vtable for ";
  if (strncmp (buf, prefix, sizeof prefix - 1) == 0)
    return buf + sizeof prefix - 1;
  return buf;
}

/* The vtables and functions of ELF (.symtab if it has one, else
   .dynsym) at BIAS. */
static int
add_file (struct hi_mapsyms *v, Elf *elf, uint64_t bias)
{
  for (int pass = 0; pass < 2; pass++)
    {
      Elf_Scn *scn = NULL;
      int found = 0;
      while ((scn = elf_nextscn (elf, scn)) != NULL)
        {
          GElf_Shdr sh;
          if (!gelf_getshdr (scn, &sh)
              || sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)
              || sh.sh_entsize == 0)
            continue;
          found = 1;
          Elf_Data *data = elf_getdata (scn, NULL);
          size_t count = sh.sh_size / sh.sh_entsize;
          for (size_t i = 0; data && i < count; i++)
            {
              GElf_Sym sym;
              if (!gelf_getsym (data, (int) i, &sym)
                  || sym.st_shndx == SHN_UNDEF || sym.st_size == 0
                  || sym.st_size > ((uint64_t) 1 << 30))
                continue;
              int type = GELF_ST_TYPE (sym.st_info);
              const char *s = elf_strptr (elf, sh.sh_link, sym.st_name);
              if (!s || !s[0])
                continue;
              char buf[1024];
              if ((v->what & HI_MAPSYMS_VTABLES) && type == STT_OBJECT
                  && sym.st_size > 16 && strncmp (s, "_ZTV", 4) == 0)
                {
                  if (add_sym (v, &v->vtables, bias + sym.st_value,
                               sym.st_size, class_of (s, buf, sizeof buf)))
                    return -1;
                }
              else if ((v->what & HI_MAPSYMS_FUNCTIONS)
                       && type == STT_FUNC)
                {
                  hi_clean_name (s, buf, sizeof buf);
                  if (add_sym (v, &v->functions, bias + sym.st_value,
                               sym.st_size, buf))
                    return -1;
                }
            }
        }
      if (found)
        return 0;
    }
  return 0;
}

/* The file at PATH mapped with its first page at START. */
static int
add_path (struct hi_mapsyms *v, const char *path, uint64_t start)
{
  int fd = hi_open_regular (path);
  if (fd < 0)
    return 0;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr eh;
  size_t nph;
  int r = 0;
  if (elf && elf_kind (elf) == ELF_K_ELF && gelf_getehdr (elf, &eh)
      && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)
      && elf_getphdrnum (elf, &nph) == 0)
    for (size_t i = 0; i < nph; i++)
      {
        GElf_Phdr ph;
        if (gelf_getphdr (elf, (int) i, &ph) && ph.p_type == PT_LOAD)
          {
            uint64_t bias = eh.e_type == ET_DYN
                            ? start - (ph.p_vaddr & ~(uint64_t) 0xfff) : 0;
            r = add_file (v, elf, bias);
            break;
          }
      }
  if (elf)
    elf_end (elf);
  close (fd);
  return r;
}

static int
by_start (const void *x, const void *y)
{
  const struct sym *a = x, *b = y;
  return hi_cmp_u64 (a->start, b->start);
}

struct hi_mapsyms *
hi_mapsyms_new (const struct hi_target *t, unsigned what)
{
  struct hi_mapsyms *v = calloc (1, sizeof *v);
  if (!v)
    return NULL;
  v->what = what;
  hi_strtab_init (&v->names);
  struct hi_map_entry e;
  /* Each file once: the paths of its first mappings seen. */
  struct hi_strtab seen;
  hi_strtab_init (&seen);
  int failed = 0;
  for (size_t i = 0; !failed && t->ops->mapping && i < MAPS_MAX
       && t->ops->mapping (t->ctx, i, &e) == 0; i++)
    {
      e.path[HI_MAP_PATH_MAX - 1] = '\0';
      if (e.file_offset != 0 || e.path[0] != '/')
        continue;
      uint32_t before = seen.n;
      if (hi_strtab_intern (&seen, e.path) == UINT32_MAX)
        failed = 1;
      else if (seen.n != before && add_path (v, e.path, e.start) != 0)
        failed = 1;
    }
  hi_strtab_free (&seen);
  if (failed)
    {
      hi_mapsyms_free (v);
      return NULL;
    }
  if (v->vtables.n)
    qsort (v->vtables.v, v->vtables.n, sizeof *v->vtables.v, by_start);
  if (v->functions.n)
    qsort (v->functions.v, v->functions.n, sizeof *v->functions.v,
           by_start);
  return v;
}

void
hi_mapsyms_free (struct hi_mapsyms *v)
{
  if (!v)
    return;
  free (v->vtables.v);
  free (v->functions.v);
  hi_strtab_free (&v->names);
  free (v);
}

/* The symbol of TO holding ADDR (the last starting at or before it:
   neither vtables nor functions overlap), or NULL. */
static const struct sym *
holding (const struct symvec *to, uint64_t addr)
{
  size_t lo = hi_upper_bound_u64 (to->v, to->n, sizeof *to->v,
                                   offsetof (struct sym, start), addr);
  return lo && addr < to->v[lo - 1].end ? &to->v[lo - 1] : NULL;
}

const char *
hi_mapsyms_class (const struct hi_mapsyms *v, uint64_t addr)
{
  /* The vtable starting at or before ADDR - 16 (past its offset-to-top
     and typeinfo words). */
  if (!v || addr % 8 || addr < 16)
    return NULL;
  const struct sym *vt = holding (&v->vtables, addr - 16);
  return vt && addr < vt->end ? v->names.strs[vt->name] : NULL;
}

const char *
hi_mapsyms_class_at (const struct hi_mapsyms *v, const struct hi_target *t,
                     uint64_t user)
{
  uint64_t word;
  if (!v || !v->vtables.n
      || t->ops->read_memory (t->ctx, user, &word, 8) != 0)
    return NULL;
  return hi_mapsyms_class (v, word);
}

const char *
hi_mapsyms_function (const struct hi_mapsyms *v, uint64_t addr)
{
  const struct sym *f = v ? holding (&v->functions, addr) : NULL;
  return f ? v->names.strs[f->name] : NULL;
}
