/* datasym.c - a data symbol by address, read from the ELF file. */
#define _GNU_SOURCE
#include "symbols/datasym.h"
#include "hi-reader.h"
#include "target/target.h"

#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The symbol of kind KIND (STT_OBJECT, STT_TLS) of table TYPE holding
   file address VADDR (a TLS symbol's: the offset in its TLS block). */
static int
in_table (Elf *elf, Elf64_Word type, int kind, uint64_t vaddr, char *name,
          size_t size, uint64_t *off)
{
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh;
      if (!gelf_getshdr (scn, &sh) || sh.sh_type != type
          || sh.sh_entsize == 0)
        continue;
      Elf_Data *data = elf_getdata (scn, NULL);
      size_t count = sh.sh_size / sh.sh_entsize;
      if (count > HI_DATASYM_MAX)
        count = HI_DATASYM_MAX;
      for (size_t i = 0; data && i < count; i++)
        {
          GElf_Sym sym;
          if (!gelf_getsym (data, (int) i, &sym)
              || sym.st_shndx == SHN_UNDEF
              || GELF_ST_TYPE (sym.st_info) != kind
              || vaddr < sym.st_value
              || vaddr - sym.st_value >= (sym.st_size ? sym.st_size : 1))
            continue;
          const char *s = elf_strptr (elf, sh.sh_link, sym.st_name);
          if (!s || !*s)
            continue;
          snprintf (name, size, "%s", s);
          *off = vaddr - sym.st_value;
          return 0;
        }
    }
  return -1;
}

/* PATH opened as ELF: its descriptor in *FD, or NULL. */
static Elf *
open_elf (const char *path, int *fd)
{
  *fd = hi_open_regular (path);
  if (*fd < 0)
    return NULL;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (*fd, ELF_C_READ_MMAP, NULL);
  if (elf && elf_kind (elf) == ELF_K_ELF)
    return elf;
  if (elf)
    elf_end (elf);
  close (*fd);
  return NULL;
}

static void
close_elf (Elf *elf, int fd)
{
  elf_end (elf);
  close (fd);
}

/* The symbol of KIND holding VADDR, .symtab first. */
static int
symbol_at (Elf *elf, int kind, uint64_t vaddr, char *name, size_t size,
           uint64_t *off)
{
  return in_table (elf, SHT_SYMTAB, kind, vaddr, name, size, off) == 0
         || in_table (elf, SHT_DYNSYM, kind, vaddr, name, size, off) == 0
         ? 0 : -1;
}

int
hi_data_symbol (const char *path, uint64_t load_start, uint64_t addr,
                char *name, size_t size, uint64_t *off)
{
  int fd, is_dyn, r = -1;
  Elf *elf = open_elf (path, &fd);
  uint64_t vaddr;
  if (elf && hi_elf_first_load (elf, &vaddr, &is_dyn) == 0)
    r = symbol_at (elf, STT_OBJECT,
                   is_dyn ? addr - load_start + vaddr : addr, name, size,
                   off);
  if (elf)
    close_elf (elf, fd);
  return r;
}

int
hi_tls_image (const char *path, uint64_t load_start, uint64_t *memsz,
              uint64_t *bias)
{
  int fd, is_dyn, r = -1;
  Elf *elf = open_elf (path, &fd);
  uint64_t vaddr;
  size_t n;
  if (elf && hi_elf_first_load (elf, &vaddr, &is_dyn) == 0
      && elf_getphdrnum (elf, &n) == 0)
    for (size_t i = 0; i < n && r != 0; i++)
      {
        GElf_Phdr ph;
        if (gelf_getphdr (elf, (int) i, &ph) && ph.p_type == PT_TLS
            && ph.p_memsz)
          {
            *memsz = ph.p_memsz;
            *bias = is_dyn ? load_start - vaddr : 0;
            r = 0;
          }
      }
  if (elf)
    close_elf (elf, fd);
  return r;
}

int
hi_tls_symbol (const char *path, uint64_t offset, char *name, size_t size,
               uint64_t *off)
{
  int fd, r = -1;
  Elf *elf = open_elf (path, &fd);
  if (elf)
    {
      r = symbol_at (elf, STT_TLS, offset, name, size, off);
      close_elf (elf, fd);
    }
  return r;
}
