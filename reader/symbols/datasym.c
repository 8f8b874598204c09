/* datasym.c - a data symbol by address, read from the ELF file. */
#define _GNU_SOURCE
#include "symbols/datasym.h"
#include "hi-reader.h"

#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The lowest PT_LOAD p_vaddr, page-aligned down, and whether the file
   is position-independent (its addresses move with its load). */
static int
first_load (Elf *elf, uint64_t *vaddr, int *is_dyn)
{
  GElf_Ehdr eh;
  size_t n;
  if (!gelf_getehdr (elf, &eh) || elf_getphdrnum (elf, &n) != 0)
    return -1;
  *is_dyn = eh.e_type == ET_DYN;
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, (int) i, &ph) && ph.p_type == PT_LOAD)
        {
          *vaddr = ph.p_vaddr & ~(uint64_t) 0xfff;
          return 0;
        }
    }
  return -1;
}

/* The symbol of table TYPE holding file address VADDR. */
static int
in_table (Elf *elf, Elf64_Word type, uint64_t vaddr, char *name,
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
              || GELF_ST_TYPE (sym.st_info) != STT_OBJECT
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

int
hi_data_symbol (const char *path, uint64_t load_start, uint64_t addr,
                char *name, size_t size, uint64_t *off)
{
  int fd = hi_open_regular (path);
  if (fd < 0)
    return -1;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  uint64_t vaddr;
  int is_dyn, r = -1;
  if (elf && elf_kind (elf) == ELF_K_ELF
      && first_load (elf, &vaddr, &is_dyn) == 0)
    {
      uint64_t at = is_dyn ? addr - load_start + vaddr : addr;
      r = in_table (elf, SHT_SYMTAB, at, name, size, off);
      if (r != 0)
        r = in_table (elf, SHT_DYNSYM, at, name, size, off);
    }
  if (elf)
    elf_end (elf);
  close (fd);
  return r;
}
