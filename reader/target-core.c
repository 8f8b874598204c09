/* target-core.c - an ELF core file as a target: memory from its PT_LOAD
   segments, mapped files from its NT_FILE note. */
#define _GNU_SOURCE
#include "hi-reader.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_FILE
# define NT_FILE 0x46494c45
#endif

struct segment
{
  uint64_t vaddr, filesz, offset;
  int writable;
};

struct core
{
  int fd;
  Elf *elf;
  uint64_t file_size;
  struct segment *seg;
  size_t nseg;
  struct hi_mapping *maps;
  size_t nmaps;
  char *note;                 /* the NT_FILE descriptor (strings point in) */
  const char *exe;
};

static int
core_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct core *c = ctx;
  char *out = buf;
  while (len > 0)
    {
      const struct segment *s = NULL;
      for (size_t i = 0; i < c->nseg && !s; i++)
        if (addr >= c->seg[i].vaddr && addr - c->seg[i].vaddr < c->seg[i].filesz)
          s = &c->seg[i];
      if (!s)
        return -1;
      uint64_t off = addr - s->vaddr;
      size_t n = s->filesz - off < len ? (size_t) (s->filesz - off) : len;
      if (s->offset + off + n > c->file_size
          || pread (c->fd, out, n, (off_t) (s->offset + off)) != (ssize_t) n)
        return -1;
      out += n;
      addr += n;
      len -= n;
    }
  return 0;
}

static int
core_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct core *c = ctx;
  return hi_find_symbol_in_mappings (c->maps, c->nmaps, c->exe, name, addr);
}

static int
core_region (void *ctx, size_t i, uint64_t *addr, uint64_t *size)
{
  struct core *c = ctx;
  for (size_t k = 0; k < c->nseg; k++)
    if (c->seg[k].writable && i-- == 0)
      {
        *addr = c->seg[k].vaddr;
        *size = c->seg[k].filesz;
        return 0;
      }
  return -1;
}

static void
core_close (void *ctx)
{
  struct core *c = ctx;
  if (c->elf)
    elf_end (c->elf);
  close (c->fd);
  free (c->seg);
  free (c->maps);
  free (c->note);
  free (c);
}

static const struct hi_target_ops core_ops = {
  core_read, core_symbol, core_close, core_region, NULL
};

/* Parse an NT_FILE descriptor: count, page size, count triples, count
   strings; everything bounded by the descriptor's size. */
static void
parse_nt_file (struct core *c, const char *desc, size_t size)
{
  uint64_t head[2];
  if (size < sizeof head)
    return;
  memcpy (head, desc, sizeof head);     /* notes are only 4-aligned */
  uint64_t count = head[0], page = head[1];
  if (count == 0 || count > (size - 16) / 24)
    return;
  c->note = malloc (size + 1);
  c->maps = calloc (count, sizeof *c->maps);
  if (!c->note || !c->maps)
    return;
  memcpy (c->note, desc, size);         /* malloc's memory is aligned */
  c->note[size] = '\0';
  const uint64_t *w = (const void *) c->note;
  const char *str = c->note + 16 + count * 24, *end = c->note + size;
  for (uint64_t i = 0; i < count && str < end; i++)
    {
      c->maps[i].start = w[2 + 3 * i];
      c->maps[i].end = w[3 + 3 * i];
      c->maps[i].offset = w[4 + 3 * i] * page;
      c->maps[i].path = str;
      str += strlen (str) + 1;
      c->nmaps = i + 1;
    }
}

hi_status
hi_target_open_core (const char *path, const char *exe, struct hi_target *out)
{
  struct core *c = calloc (1, sizeof *c);
  if (!c)
    return HI_E_NOMEM;
  c->exe = exe;
  c->fd = open (path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (c->fd < 0 || fstat (c->fd, &st) != 0)
    {
      free (c);
      return HI_E_IO;
    }
  c->file_size = (uint64_t) st.st_size;
  elf_version (EV_CURRENT);
  c->elf = elf_begin (c->fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr eh;
  size_t n;
  hi_status err = HI_E_NOT_CORE;
  if (!c->elf || elf_kind (c->elf) != ELF_K_ELF || !gelf_getehdr (c->elf, &eh)
      || eh.e_type != ET_CORE)
    goto fail;
  err = HI_E_TRUNCATED;
  if (elf_getphdrnum (c->elf, &n) != 0 || n == 0 || n > 1000000)
    goto fail;
  c->seg = calloc (n, sizeof *c->seg);
  if (!c->seg)
    {
      err = HI_E_NOMEM;
      goto fail;
    }
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph;
      if (!gelf_getphdr (c->elf, (int) i, &ph))
        goto fail;
      if (ph.p_type == PT_LOAD && ph.p_filesz > 0)
        c->seg[c->nseg++] = (struct segment) {
          ph.p_vaddr, ph.p_filesz, ph.p_offset, (ph.p_flags & PF_W) != 0 };
      if (ph.p_type != PT_NOTE || ph.p_offset > c->file_size
          || ph.p_filesz > c->file_size - ph.p_offset || c->maps)
        continue;
      Elf_Data *data = elf_getdata_rawchunk (c->elf, (int64_t) ph.p_offset,
                                             ph.p_filesz, ELF_T_NHDR);
      size_t off = 0, name_off, desc_off;
      GElf_Nhdr nh;
      while (data && (off = gelf_getnote (data, off, &nh, &name_off,
                                          &desc_off)) > 0)
        if (nh.n_type == NT_FILE && nh.n_namesz == 5
            && memcmp ((char *) data->d_buf + name_off, "CORE", 5) == 0)
          parse_nt_file (c, (char *) data->d_buf + desc_off, nh.n_descsz);
    }
  out->ops = &core_ops;
  out->ctx = c;
  return HI_OK;
fail:
  core_close (c);
  return err;
}
