/* modsyms.c - one module's function symbols by address (aliases to one
   canonical name) and its functions' starts from .eh_frame_hdr. */
#define _GNU_SOURCE
#include "modsyms.h"

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

struct hi_modsyms
{
  Dwfl_Module *mod;
  int syms_done, starts_done;
  struct fsym *syms;         /* function symbols by address */
  size_t nsyms;
  uint64_t *starts;          /* FDE initial locations, sorted */
  size_t nstarts;
};

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
  return a->addr < b->addr ? -1 : a->addr > b->addr;
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
      GElf_Word shndx;
      const char *name = dwfl_module_getsym_info (ms->mod, i, &sym, &addr,
                                                  &shndx, NULL, NULL);
      int type = GELF_ST_TYPE (sym.st_info);
      if (name && name[0] && sym.st_shndx != SHN_UNDEF
          && (type == STT_FUNC || type == STT_GNU_IFUNC))
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
  uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;
  return a < b ? -1 : a > b;
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
  size_t lo = 0, hi = ms->nstarts;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (ms->starts[mid] <= vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
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
