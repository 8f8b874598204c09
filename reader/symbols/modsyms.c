/* modsyms.c - one module's function symbols by address (aliases to one
   canonical name) and its functions' starts from .eh_frame_hdr. */
#define _GNU_SOURCE
#include "symbols/modsyms.h"
#include "util/vec.h"
#include "util/sort.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (the CLI links libstdc++). */
extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len,
                             int *status);

struct fsym
{
  uint64_t addr, size;
  const char *name;          /* in the module's string table */
};

/* A symbol libdwfl's address lookup considers, with a size. */
struct ssym
{
  uint64_t value;            /* its address, as libdwfl resolves it */
  GElf_Sym sym;
  const char *name;
  int global;                /* in the part libdwfl searches first */
};

/* The addresses from START up to the next segment's start are held by
   COUNT sized symbols: if one, sized[SYM]; if more, those whose indexes
   are held[SYM, SYM + COUNT), or unknown if SYM is NO_LIST. */
struct seg
{
  uint64_t start;
  uint64_t count;
  uint64_t sym;
};

#define NO_LIST UINT64_MAX
/* Symbols holding one address, at most, and all segments' lists. */
#define MAX_HOLDING 64
#define MAX_HELD(nsized) (8 * (nsized) + 1024)

struct hi_modsyms
{
  Dwfl_Module *mod;
  int syms_done, starts_done;
  struct fsym *syms;         /* function symbols by address */
  size_t nsyms;
  uint64_t *starts;          /* FDE initial locations, sorted */
  size_t nstarts;
  int index_done, index_ok;  /* the address index: built, usable */
  struct ssym *sized;
  struct seg *segs;          /* by start, disjoint */
  size_t nsegs;
  uint32_t *held;            /* the lists of segments held by several */
  size_t nheld;
  uint64_t *sizeless;        /* values of global symbols without a size,
                                sorted */
  size_t nsizeless;
};

uint64_t hi_modsyms_fallbacks;

struct hi_modsyms *
hi_modsyms_new (Dwfl_Module *mod)
{
  struct hi_modsyms *ms = calloc (1, sizeof *ms);
  if (ms)
    ms->mod = mod;
  return ms;
}

void
hi_modsyms_free (struct hi_modsyms *ms)
{
  if (!ms)
    return;
  free (ms->syms);
  free (ms->starts);
  free (ms->sized);
  free (ms->segs);
  free (ms->held);
  free (ms->sizeless);
  free (ms);
}

/* GCC's suffixes for copies and parts of a function, and LLVM's. */
static const char *const suffixes[] = {
  ".isra.", ".part.", ".constprop.", ".cold", ".localalias", ".lto_priv.",
  ".llvm.", NULL
};

/* Where RAW's first GCC suffix begins, or its end. */
static size_t
base_length (const char *raw)
{
  size_t n = strcspn (raw, "@");
  for (int i = 0; suffixes[i]; i++)
    {
      const char *at = strstr (raw, suffixes[i]);
      if (at && at != raw && (size_t) (at - raw) < n)
        n = (size_t) (at - raw);
    }
  return n ? n : strlen (raw);
}

void
hi_clean_name (const char *raw, char *out, size_t size)
{
  char base[1024];
  size_t n = base_length (raw);
  snprintf (base, sizeof base, "%.*s", (int) n, raw);
  int status = -1;
  char *dm = base[0] == '_' && base[1] == 'Z'
             ? __cxa_demangle (base, NULL, NULL, &status) : NULL;
  snprintf (out, size, "%s", status == 0 && dm ? dm : base);
  free (dm);
}

static int
by_addr (const void *x, const void *y)
{
  const struct fsym *a = x, *b = y;
  return hi_cmp_u64 (a->addr, b->addr);
}

/* Symbol I of MOD into SYM and ADDR (its address as libdwfl resolves
   it); its name, or NULL if it has none or is undefined. */
static const char *
defined_sym (Dwfl_Module *mod, int i, GElf_Sym *sym, GElf_Addr *addr)
{
  GElf_Word shndx;
  const char *name = dwfl_module_getsym_info (mod, i, sym, addr, &shndx,
                                              NULL, NULL);
  if (!name || !name[0] || sym->st_shndx == SHN_UNDEF)
    return NULL;
  return name;
}

static void
load_syms (struct hi_modsyms *ms)
{
  ms->syms_done = 1;
  int n = dwfl_module_getsymtab (ms->mod);
  if (n <= 0 || !(ms->syms = malloc ((size_t) n * sizeof *ms->syms)))
    return;
  for (int i = 1; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr addr;
      const char *name = defined_sym (ms->mod, i, &sym, &addr);
      int type = GELF_ST_TYPE (sym.st_info);
      if (name && (type == STT_FUNC || type == STT_GNU_IFUNC))
        ms->syms[ms->nsyms++] = (struct fsym) { addr, sym.st_size, name };
    }
  qsort (ms->syms, ms->nsyms, sizeof *ms->syms, by_addr);
}

static size_t
leading_underscores (const char *s)
{
  return strspn (s, "_");
}

/* 1 if X has one of GCC's suffixes (before any version). */
static int
has_suffix (const char *x)
{
  size_t n = strcspn (x, "@");
  return base_length (x) < n;
}

/* 1 if X is a better name than Y for the same code.  Symbol versions
   (memcpy@@GLIBC_2.14) do not count. */
static int
better (const char *x, const char *y)
{
  size_t ux = leading_underscores (x), uy = leading_underscores (y);
  if (ux != uy)
    return ux < uy;
  int sx = has_suffix (x), sy = has_suffix (y);
  if (sx != sy)
    return sy;
  size_t lx = strcspn (x, "@"), ly = strcspn (y, "@");
  if (lx != ly)
    return lx < ly;
  int c = strncmp (x, y, lx);
  return c ? c < 0 : strcmp (x, y) < 0;
}

const char *
hi_modsyms_canonical (struct hi_modsyms *ms, uint64_t addr, uint64_t size,
                      const char *found)
{
  if (!ms->syms_done)
    load_syms (ms);
  size_t lo = 0, hi = ms->nsyms;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (ms->syms[mid].addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  const char *best = found;
  for (size_t i = lo; i < ms->nsyms && ms->syms[i].addr == addr; i++)
    if (ms->syms[i].size == size && better (ms->syms[i].name, best))
      best = ms->syms[i].name;
  return best;
}

static int
by_value (const void *x, const void *y)
{
  return hi_cmp_u64 (*(const uint64_t *) x, *(const uint64_t *) y);
}

/* A sized symbol's start (+1) or end (-1) at AT. */
struct event
{
  uint64_t at;
  uint64_t sym;
  int delta;
};

static int
by_at (const void *x, const void *y)
{
  const struct event *a = x, *b = y;
  int c = hi_cmp_u64 (a->at, b->at);
  return c ? c : a->delta - b->delta;   /* ends first: fewer open at once */
}

/* Machines whose symbol values are code addresses: libdwfl then matches
   each symbol at one address (elsewhere, a function descriptor's symbol
   at two, which the index does not model). */
static int
plain_values (Dwfl_Module *mod)
{
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf (mod, &bias);
  GElf_Ehdr eh;
  if (!elf || !gelf_getehdr (elf, &eh))
    return 0;
  switch (eh.e_machine)
    {
    case EM_X86_64: case EM_386: case EM_AARCH64: case EM_ARM:
    case EM_RISCV: case EM_S390:
      return 1;
    default:
      return 0;
    }
}

/* The symbols libdwfl's address lookup would consider (named, defined,
   not a section, file or TLS symbol), the sized ones cut into segments
   each held by the same set of them.  Unusable (every lookup goes to
   libdwfl) if the table cannot be read or memory runs out. */
static void
load_index (struct hi_modsyms *ms)
{
  ms->index_done = 1;
  int n = dwfl_module_getsymtab (ms->mod);
  int first_global = dwfl_module_getsymtab_first_global (ms->mod);
  if (n <= 0 || first_global < 0 || !plain_values (ms->mod))
    return;
  struct event *ev = malloc ((size_t) n * 2 * sizeof *ev);
  ms->sized = malloc ((size_t) n * sizeof *ms->sized);
  ms->sizeless = malloc ((size_t) n * sizeof *ms->sizeless);
  size_t nsized = 0, nev = 0;
  if (!ev || !ms->sized || !ms->sizeless)
    {
      free (ev);
      return;
    }
  for (int i = 1; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr value;
      const char *name = defined_sym (ms->mod, i, &sym, &value);
      int type = GELF_ST_TYPE (sym.st_info);
      if (!name || type == STT_SECTION || type == STT_FILE || type == STT_TLS)
        continue;
      /* libdwfl searches the globals first, all of them when the table
         has no locals apart (first_global 0). */
      int global = first_global == 0 || i >= first_global;
      if (sym.st_size == 0)
        {
          if (global)
            ms->sizeless[ms->nsizeless++] = value;
          continue;
        }
      if (value + sym.st_size < value)
        {
          free (ev);
          return;              /* past the address space: not modelled */
        }
      ms->sized[nsized] = (struct ssym) { value, sym, name, global };
      ev[nev++] = (struct event) { value, nsized, 1 };
      ev[nev++] = (struct event) { value + sym.st_size, nsized, -1 };
      nsized++;
    }
  qsort (ms->sizeless, ms->nsizeless, sizeof *ms->sizeless, by_value);
  qsort (ev, nev, sizeof *ev, by_at);
  ms->segs = malloc ((nev ? nev : 1) * sizeof *ms->segs);
  if (!ms->segs)
    {
      free (ev);
      return;
    }
  /* A sweep over the starts and ends, keeping the symbols holding the
     current segment (few: functions do not nest; aliases share one
     range). */
  uint32_t active[MAX_HOLDING];
  uint64_t count = 0;
  int lost = 0;                  /* more than MAX_HOLDING were open since
                                    count was last 0: ACTIVE is not all */
  size_t cap_held = 0;
  int ok = 1;
  for (size_t i = 0; i < nev && ok;)
    {
      uint64_t at = ev[i].at;
      for (; i < nev && ev[i].at == at; i++)
        {
          if (ev[i].delta > 0)
            {
              if (count < MAX_HOLDING && !lost)
                active[count] = (uint32_t) ev[i].sym;
              else
                lost = 1;
              count++;
              continue;
            }
          for (uint64_t k = 0; !lost && k < count; k++)
            if (active[k] == ev[i].sym)
              {
                active[k] = active[count - 1];
                break;
              }
          if (--count == 0)
            lost = 0;
        }
      struct seg sg = { at, count,
                        count == 1 && !lost ? active[0] : NO_LIST };
      if (count > 1 && !lost && ms->nheld + count <= MAX_HELD (nsized))
        {
          if (hi_grow ((void **) &ms->held, &cap_held, ms->nheld + count,
                       sizeof *ms->held) != 0)
            {
              ok = 0;
              break;
            }
          sg.sym = ms->nheld;
          memcpy (ms->held + ms->nheld, active, count * sizeof *active);
          ms->nheld += count;
        }
      ms->segs[ms->nsegs++] = sg;
    }
  free (ev);
  ms->index_ok = ok;
}

/* libdwfl's preference among symbols holding an address: GELF_ST_BIND
   as a higher-is-better number. */
static int
binding_rank (const GElf_Sym *s)
{
  switch (GELF_ST_BIND (s->st_info))
    {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

/* Of the N sized symbols sized[IDS[...]] holding an address, sorted by
   their index in the symbol table, those with GLOBAL as their part:
   the one libdwfl keeps going through them in that order (a closer
   start, a stronger binding, then at the same start the smaller
   size); NULL if none. */
static const struct ssym *
pick (const struct hi_modsyms *ms, const uint32_t *ids, uint64_t n,
      int global)
{
  const struct ssym *c = NULL;
  for (uint64_t i = 0; i < n; i++)
    {
      const struct ssym *x = &ms->sized[ids[i]];
      if (x->global != global)
        continue;
      if (!c || c->value < x->value
          || binding_rank (&c->sym) < binding_rank (&x->sym))
        c = x;
      else if (c->value == x->value
               && ((c->sym.st_size > x->sym.st_size
                    && binding_rank (&c->sym) <= binding_rank (&x->sym))
                   || (c->sym.st_size >= x->sym.st_size
                       && binding_rank (&c->sym) < binding_rank (&x->sym))))
        c = x;
    }
  return c;
}

const char *
hi_modsyms_addrinfo (struct hi_modsyms *ms, uint64_t addr, GElf_Off *off,
                     GElf_Sym *sym)
{
  if (!ms->index_done)
    load_index (ms);
  const struct ssym *found = NULL;
  if (ms->index_ok)
    {
      /* The first segment past ADDR. */
      size_t lo = hi_upper_bound_u64 (ms->segs, ms->nsegs, sizeof *ms->segs,
                                       offsetof (struct seg, start), addr);
      const struct seg *sg = lo > 0 ? &ms->segs[lo - 1] : NULL;
      if (sg && sg->count > 0 && sg->sym != NO_LIST)
        {
          /* The symbols holding ADDR in symbol table order (sized[] is
             in that order). */
          uint32_t ids[MAX_HOLDING];
          uint64_t n = sg->count;
          if (n == 1)
            ids[0] = (uint32_t) sg->sym;
          else
            memcpy (ids, ms->held + sg->sym, n * sizeof *ids);
          for (uint64_t i = 1; i < n; i++)
            for (uint64_t j = i; j > 0 && ids[j - 1] > ids[j]; j--)
              {
                uint32_t t = ids[j];
                ids[j] = ids[j - 1];
                ids[j - 1] = t;
              }
          found = pick (ms, ids, n, 1);
          if (!found)
            found = pick (ms, ids, n, 0);
        }
    }
  /* Sized symbols hold ADDR: libdwfl picks among them (a sized one
     always wins over those without a size), among the global ones in
     its first search; if all are local, in its second, which it skips
     only when a global symbol without a size lies exactly at ADDR. */
  if (found && !found->global
      && bsearch (&addr, ms->sizeless, ms->nsizeless, sizeof *ms->sizeless,
                  by_value))
    found = NULL;
  if (!found)
    {
      hi_modsyms_fallbacks++;
      return dwfl_module_addrinfo (ms->mod, addr, off, sym, NULL, NULL, NULL);
    }
  *off = addr - found->value;
  *sym = found->sym;
  return found->name;
}

static uint32_t
le32 (const unsigned char *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
         | (uint32_t) p[3] << 24;
}

/* The table of .eh_frame_hdr (PT_GNU_EH_FRAME): (initial location, FDE)
   pairs sorted by location, which the linker writes for the unwinder.
   Only its usual encoding (little-endian, datarel sdata4 pairs) is read;
   other modules name their code per call site. */
static void
load_starts (struct hi_modsyms *ms)
{
  ms->starts_done = 1;
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf (ms->mod, &bias);
  GElf_Ehdr eh;
  size_t nph;
  if (!elf || !gelf_getehdr (elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB
      || elf_getphdrnum (elf, &nph) != 0)
    return;
  for (size_t i = 0; i < nph; i++)
    {
      GElf_Phdr ph;
      if (!gelf_getphdr (elf, (int) i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
        continue;
      Elf_Data *d = elf_getdata_rawchunk (elf, (int64_t) ph.p_offset,
                                          ph.p_filesz, ELF_T_BYTE);
      const unsigned char *p = d ? d->d_buf : NULL;
      size_t len = d ? d->d_size : 0;
      /* version 1; eh_frame_ptr: 4 bytes; count: udata4; pairs: datarel
         sdata4 */
      if (!p || len < 12 || p[0] != 1 || (p[1] & 0x0f) != DW_EH_PE_sdata4
          || p[2] != DW_EH_PE_udata4
          || p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
        return;
      uint64_t count = le32 (p + 8);
      if (count > (len - 12) / 8)
        count = (len - 12) / 8;    /* never past what the file holds */
      ms->starts = malloc ((count ? count : 1) * sizeof *ms->starts);
      if (!ms->starts)
        return;
      for (uint64_t k = 0; k < count; k++)
        ms->starts[k] = ph.p_vaddr + (uint64_t) (int64_t) (int32_t)
                        le32 (p + 12 + 8 * k);
      ms->nstarts = count;
      /* The linker sorts it; a damaged file may not be. */
      for (uint64_t k = 1; k < count; k++)
        if (ms->starts[k] < ms->starts[k - 1])
          {
            qsort (ms->starts, count, sizeof *ms->starts, by_value);
            break;
          }
      return;
    }
}

int
hi_modsyms_func_start (struct hi_modsyms *ms, uint64_t vaddr,
                       uint64_t *start)
{
  if (!ms->starts_done)
    load_starts (ms);
  size_t lo = hi_upper_bound_u64 (ms->starts, ms->nstarts,
                                   sizeof *ms->starts, 0, vaddr);
  if (lo == 0)
    return 0;
  /* The last FDE starting at or below VADDR holds it only if some FDE
     does (FDEs never overlap): ask the CFI, which knows the ends. */
  Dwarf_Addr cbias;
  Dwarf_CFI *cfi = dwfl_module_eh_cfi (ms->mod, &cbias);
  GElf_Addr ebias;
  if (!cfi || !dwfl_module_getelf (ms->mod, &ebias))
    return 0;
  Dwarf_Frame *frame;
  if (dwarf_cfi_addrframe (cfi, vaddr + ebias - cbias, &frame) != 0)
    return 0;
  Dwarf_Addr rs, re;
  int ok = dwarf_frame_info (frame, &rs, &re, NULL) >= 0
           && rs + cbias - ebias >= ms->starts[lo - 1];
  free (frame);
  if (ok)
    *start = ms->starts[lo - 1];
  return ok;
}
