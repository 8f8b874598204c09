/* elfsym.c - finding a data symbol of a process in the ELF files it has
   mapped (from a core's NT_FILE note or /proc/PID/maps), or in their
   separate debug files. */
#define _GNU_SOURCE
#include "target/target.h"
#include "hi-reader.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <gelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Value of symbol NAME in ELF (.dynsym, then .symtab); 0 if found. */
static int
elf_symbol (Elf *elf, const char *name, uint64_t *value)
{
  Elf_Scn *scn = NULL;
  for (int pass = 0; pass < 2; pass++)
    while ((scn = elf_nextscn (elf, scn)) != NULL)
      {
        GElf_Shdr sh;
        if (!gelf_getshdr (scn, &sh)
            || sh.sh_type != (pass == 0 ? SHT_DYNSYM : SHT_SYMTAB)
            || sh.sh_entsize == 0)
          continue;
        Elf_Data *data = elf_getdata (scn, NULL);
        size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; data && i < count; i++)
          {
            GElf_Sym sym;
            if (!gelf_getsym (data, (int) i, &sym) || sym.st_shndx == SHN_UNDEF)
              continue;
            const char *s = elf_strptr (elf, sh.sh_link, sym.st_name);
            if (s && strcmp (s, name) == 0)
              {
                *value = sym.st_value;
                return 0;
              }
          }
      }
  return -1;
}

int
hi_elf_first_load (Elf *elf, uint64_t *vaddr, int *is_dyn)
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

/* The answers of lookup_in_file for the files last asked about, found
   or not, by the file's identity (device, inode, size, modification
   time) and the name: a reader of many processes (`heapinspect serve`)
   asks the same question of the same libheapinspect.so and programs
   again and again, and reading a symbol table is most of opening a
   process.  A few entries, replaced in turn; thread-safe. */
#define LOOKUP_CACHE 32
#define LOOKUP_NAME_MAX 64
static struct lookup_answer
{
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  char name[LOOKUP_NAME_MAX];
  int r, is_dyn;
  uint64_t value, vaddr;
} lookup_cache[LOOKUP_CACHE];
static unsigned lookup_next;
static pthread_mutex_t lookup_lock = PTHREAD_MUTEX_INITIALIZER;

static int
same_file (const struct lookup_answer *a, const struct stat *st,
           const char *name)
{
  return a->name[0] && a->dev == st->st_dev && a->ino == st->st_ino
         && a->size == st->st_size && a->mtime.tv_sec == st->st_mtim.tv_sec
         && a->mtime.tv_nsec == st->st_mtim.tv_nsec
         && strcmp (a->name, name) == 0;
}

static int
lookup_in_file (const char *path, const char *name, uint64_t *value,
                uint64_t *vaddr, int *is_dyn)
{
  int fd = hi_open_regular (path);
  if (fd < 0)
    return -1;
  struct stat st;
  int known = fstat (fd, &st) == 0 && strlen (name) < LOOKUP_NAME_MAX;
  if (known)
    {
      pthread_mutex_lock (&lookup_lock);
      for (unsigned i = 0; i < LOOKUP_CACHE; i++)
        if (same_file (&lookup_cache[i], &st, name))
          {
            const struct lookup_answer *a = &lookup_cache[i];
            int r = a->r;
            *value = a->value;
            *vaddr = a->vaddr;
            *is_dyn = a->is_dyn;
            pthread_mutex_unlock (&lookup_lock);
            close (fd);
            return r;
          }
      pthread_mutex_unlock (&lookup_lock);
    }
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  uint64_t v = 0, va = 0;
  int dyn = 0;
  int r = elf && elf_kind (elf) == ELF_K_ELF
          && hi_elf_first_load (elf, &va, &dyn) == 0
          && elf_symbol (elf, name, &v) == 0 ? 0 : -1;
  if (elf)
    elf_end (elf);
  close (fd);
  *value = v;
  *vaddr = va;
  *is_dyn = dyn;
  if (known)
    {
      pthread_mutex_lock (&lookup_lock);
      struct lookup_answer *a = &lookup_cache[lookup_next++ % LOOKUP_CACHE];
      *a = (struct lookup_answer) { st.st_dev, st.st_ino, st.st_size,
                                    st.st_mtim, "", r, dyn, v, va };
      snprintf (a->name, sizeof a->name, "%s", name);
      pthread_mutex_unlock (&lookup_lock);
    }
  return r;
}

int
hi_find_symbol_in_mappings (const struct hi_mapping *maps, size_t n,
                            const char *exe, const char *name,
                            uint64_t *addr)
{
  uint64_t value, vaddr;
  int is_dyn;
  for (size_t i = 0; i < n; i++)
    {
      /* The mapping of each file's start gives its load bias. */
      if (maps[i].offset != 0 || !maps[i].path || maps[i].path[0] != '/')
        continue;
      int seen = 0;
      for (size_t k = 0; k < i && !seen; k++)
        seen = maps[k].offset == 0 && maps[k].path
               && strcmp (maps[k].path, maps[i].path) == 0;
      if (seen || lookup_in_file (maps[i].path, name, &value, &vaddr,
                                  &is_dyn) != 0)
        continue;
      *addr = is_dyn ? maps[i].start - vaddr + value : value;
      return 0;
    }
  if (exe && lookup_in_file (exe, name, &value, &vaddr, &is_dyn) == 0
      && !is_dyn)
    {
      *addr = value;
      return 0;
    }
  return -1;
}

/* The build-id of ELF, as lowercase hex in HEX (at least 2 * 64 + 1
   bytes).  0, or -1 if it has none. */
static int
build_id (Elf *elf, char *hex)
{
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh;
      if (!gelf_getshdr (scn, &sh) || sh.sh_type != SHT_NOTE)
        continue;
      Elf_Data *data = elf_getdata (scn, NULL);
      size_t off = 0, name_off, desc_off;
      GElf_Nhdr nh;
      while (data && (off = gelf_getnote (data, off, &nh, &name_off,
                                          &desc_off)) > 0)
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4
            && memcmp ((char *) data->d_buf + name_off, "GNU", 4) == 0
            && nh.n_descsz >= 2 && nh.n_descsz <= 64)
          {
            const unsigned char *d = (const unsigned char *) data->d_buf
                                     + desc_off;
            for (size_t i = 0; i < nh.n_descsz; i++)
              sprintf (hex + 2 * i, "%02x", d[i]);
            return 0;
          }
    }
  return -1;
}

/* The build-id notes in the target's memory of the ELF object whose
   first page is at LOAD (its ELF header and program headers, which a
   core keeps for every mapped ELF file), as lowercase hex in HEX.  0, or
   -1 if the memory does not hold them. */
static int
target_build_id (const struct hi_target *t, uint64_t load, char *hex)
{
  Elf64_Ehdr eh;
  if (t->ops->read_memory (t->ctx, load, &eh, sizeof eh) != 0
      || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phnum > 64
      || eh.e_phentsize != sizeof (Elf64_Phdr) || eh.e_phoff > 4096)
    return -1;
  Elf64_Phdr ph[64];
  if (t->ops->read_memory (t->ctx, load + eh.e_phoff, ph,
                           eh.e_phnum * sizeof *ph) != 0)
    return -1;
  uint64_t first = UINT64_MAX;
  for (int i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < first)
      first = ph[i].p_vaddr & ~(uint64_t) 0xfff;
  for (int i = 0; i < eh.e_phnum && first != UINT64_MAX; i++)
    {
      unsigned char note[256];
      uint64_t size = ph[i].p_memsz;
      if (ph[i].p_type != PT_NOTE || size > sizeof note || size < 12
          || ph[i].p_vaddr < first
          || t->ops->read_memory (t->ctx, load + ph[i].p_vaddr - first, note,
                                  size) != 0)
        continue;
      for (uint64_t off = 0; off + 12 <= size;)
        {
          uint32_t nh[3];       /* namesz, descsz, type */
          memcpy (nh, note + off, sizeof nh);
          uint64_t name = off + 12, desc = name + ((nh[0] + 3) & ~3u);
          uint64_t end = desc + ((nh[1] + 3) & ~3u);
          if (nh[0] > size || nh[1] > size || end > size)
            break;
          if (nh[2] == NT_GNU_BUILD_ID && nh[0] == 4
              && memcmp (note + name, "GNU", 4) == 0 && nh[1] >= 2
              && nh[1] <= 64)
            {
              for (uint32_t k = 0; k < nh[1]; k++)
                sprintf (hex + 2 * k, "%02x", note[desc + k]);
              return 0;
            }
          off = end;
        }
    }
  return -1;
}

int
hi_target_file_differs (const struct hi_target *t, uint64_t load,
                        const char *path)
{
  char mine[2 * 64 + 1], theirs[2 * 64 + 1];
  if (target_build_id (t, load, theirs) != 0)
    return 0;                   /* the target does not say: trust it */
  int fd = hi_open_regular (path);
  if (fd < 0)
    return 0;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  int have = elf && elf_kind (elf) == ELF_K_ELF && build_id (elf, mine) == 0;
  if (elf)
    elf_end (elf);
  close (fd);
  return have && strcmp (mine, theirs) != 0;
}

int
hi_find_debug_symbol (const char *path, uint64_t load_start,
                      const char *name, uint64_t *addr, uint64_t *value)
{
  int fd = hi_open_regular (path);
  if (fd < 0)
    return -1;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  char hex[2 * 64 + 1];
  int have = elf && elf_kind (elf) == ELF_K_ELF && build_id (elf, hex) == 0;
  if (elf)
    elf_end (elf);
  close (fd);
  if (!have)
    return -1;
  /* Where debug files are: HEAPINSPECT_DEBUGINFO_DIR, as gdb's
     debug-file-directory, else Debian's. */
  const char *root = getenv ("HEAPINSPECT_DEBUGINFO_DIR");
  char debug[4096];
  snprintf (debug, sizeof debug, "%s/.build-id/%.2s/%s.debug",
            root && *root ? root : "/usr/lib/debug", hex, hex + 2);
  uint64_t vaddr;
  int is_dyn;
  if (lookup_in_file (debug, name, value, &vaddr, &is_dyn) != 0)
    return -1;
  *addr = is_dyn ? load_start - vaddr + *value : *value;
  return 0;
}

int
hi_elf_read_vaddr (const char *path, uint64_t vaddr, void *buf, size_t len)
{
  int fd = hi_open_regular (path);
  if (fd < 0)
    return -1;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  size_t n = 0;
  int r = -1;
  if (elf && elf_kind (elf) == ELF_K_ELF && elf_getphdrnum (elf, &n) == 0)
    for (size_t i = 0; i < n && r != 0; i++)
      {
        GElf_Phdr ph;
        if (gelf_getphdr (elf, (int) i, &ph) && ph.p_type == PT_LOAD
            && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz
            && len <= ph.p_filesz - (vaddr - ph.p_vaddr)
            && pread (fd, buf, len, (off_t) (ph.p_offset
                                             + (vaddr - ph.p_vaddr)))
               == (ssize_t) len)
          r = 0;
      }
  if (elf)
    elf_end (elf);
  close (fd);
  return r;
}
