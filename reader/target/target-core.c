/* target-core.c - an ELF core file as a target: memory from its PT_LOAD
   segments, mapped files from its NT_FILE note, threads from its
   NT_PRSTATUS notes. */
#define _GNU_SOURCE
#include "util/errors.h"
#include "util/vec.h"
#include "util/sort.h"
#include "target/target.h"
#include "hi-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_FILE
# define NT_FILE 0x46494c45
#endif
#ifndef NT_PRSTATUS
# define NT_PRSTATUS 1
#endif

/* x86-64's struct elf_prstatus: the thread id at 32, then the 27 words
   of user_regs_struct at 112 (rsp is word 19, fs_base word 21). */
#define PRSTATUS_PID 32
#define PRSTATUS_REGS 112
#define PRSTATUS_NREGS 27
#define REG_RSP 19
#define REG_FS_BASE 21
#define THREADS_MAX 100000

/* A PT_LOAD segment as a mapping of the process: all of it, with the
   bytes the file holds (HELD, from its start) and its protection. */
struct cmap
{
  uint64_t start, end, held;
  uint32_t prot;
};

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
  struct segment *seg;        /* sorted by address, none overlapping */
  size_t nseg;
  size_t *writable;           /* indexes in seg of the writable ones */
  size_t nwritable;
  uint64_t missing;           /* bytes the segments claim past the end */
  uint64_t backed;            /* the bytes the segments hold in the file */
  struct hi_mapping *maps;
  size_t nmaps;
  char *note;                 /* the NT_FILE descriptor (strings point in) */
  struct cmap *cmap;          /* every PT_LOAD, by address, none overlapping */
  size_t ncmap;
  struct hi_map_entry *mapv;  /* the mappings the `mapping` op gives:
                                 each cmap's held part and the rest */
  size_t nmapv;
  struct hi_thread_regs *threads; /* one per NT_PRSTATUS, in note order */
  size_t nthreads, cap_threads;
  int x86_64;                 /* registers are only read for x86-64 */
  const char *image;          /* the file as libelf mapped it, or NULL */
  size_t image_size;
  const char *exe;
  uint64_t mtime_ns;          /* the file's modification time, 0 if none */
};

/* The segment holding ADDR, or NULL: a binary search, since a core may
   have many thousands of segments and every read looks one up. */
static const struct segment *
find_segment (const struct core *c, uint64_t addr)
{
  size_t lo = hi_upper_bound_u64 (c->seg, c->nseg, sizeof *c->seg,
                                   offsetof (struct segment, vaddr), addr);
  if (lo == 0)
    return NULL;
  const struct segment *s = &c->seg[lo - 1];
  return addr - s->vaddr < s->filesz ? s : NULL;
}

static int
core_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct core *c = ctx;
  char *out = buf;
  while (len > 0)
    {
      const struct segment *s = find_segment (c, addr);
      if (!s)
        return -1;
      uint64_t off = addr - s->vaddr;
      size_t n = s->filesz - off < len ? (size_t) (s->filesz - off) : len;
      if (pread (c->fd, out, n, (off_t) (s->offset + off)) != (ssize_t) n)
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
  if (i >= c->nwritable)
    return -1;
  *addr = c->seg[c->writable[i]].vaddr;
  *size = c->seg[c->writable[i]].filesz;
  return 0;
}

static void
core_close (void *ctx)
{
  struct core *c = ctx;
  if (c->elf)
    elf_end (c->elf);
  close (c->fd);
  free (c->seg);
  free (c->writable);
  free (c->maps);
  free (c->note);
  free (c->cmap);
  free (c->mapv);
  free (c->threads);
  free (c);
}

static int
core_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  struct core *c = ctx;
  if (i >= c->nmapv)
    return -1;
  *out = c->mapv[i];
  return 0;
}

static int
core_thread_regs (void *ctx, size_t i, struct hi_thread_regs *out)
{
  struct core *c = ctx;
  if (i >= c->nthreads)
    return -1;
  *out = c->threads[i];
  return 0;
}

static const struct hi_target_ops core_ops = {
  core_read, core_symbol, core_close, core_region, NULL, core_mapping,
  core_thread_regs
};

const void *
hi_target_core_view (const struct hi_target *t, uint64_t addr, size_t len)
{
  if (t->ops != &core_ops)
    return NULL;
  const struct core *c = t->ctx;
  const struct segment *s = c->image ? find_segment (c, addr) : NULL;
  if (!s || len > s->filesz - (addr - s->vaddr)
      || s->offset + (addr - s->vaddr) + len > c->image_size)
    return NULL;
  return c->image + s->offset + (addr - s->vaddr);
}

int
hi_target_core_backed (const struct hi_target *t, uint64_t *bytes)
{
  if (t->ops != &core_ops)
    return -1;
  *bytes = ((const struct core *) t->ctx)->backed;
  return 0;
}

uint64_t
hi_target_missing (const struct hi_target *t)
{
  return t->ops == &core_ops ? ((const struct core *) t->ctx)->missing : 0;
}

int
hi_target_core_time (const struct hi_target *t, uint64_t *realtime_ns)
{
  if (t->ops != &core_ops || !((const struct core *) t->ctx)->mtime_ns)
    return -1;
  *realtime_ns = ((const struct core *) t->ctx)->mtime_ns;
  return 0;
}

static int
by_address (const void *x, const void *y)
{
  const struct segment *a = x, *b = y;
  return hi_cmp_u64 (a->vaddr, b->vaddr);
}

/* Add PT_LOAD PH, cut to the bytes the file really holds (the rest is
   counted as missing): no read ever goes past the file, and no scan
   covers more than the file. */
static void
add_segment (struct core *c, const GElf_Phdr *ph)
{
  uint64_t size = ph->p_filesz;
  if (ph->p_offset >= c->file_size)
    {
      c->missing += size;
      return;
    }
  if (size > c->file_size - ph->p_offset)
    {
      c->missing += size - (c->file_size - ph->p_offset);
      size = c->file_size - ph->p_offset;
    }
  if (ph->p_vaddr + size < ph->p_vaddr)
    size = UINT64_MAX - ph->p_vaddr;
  if (size)
    c->seg[c->nseg++] = (struct segment) {
      ph->p_vaddr, size, ph->p_offset, (ph->p_flags & PF_W) != 0 };
}

/* Sort the segments; where a damaged core makes two overlap, the first
   ends where the next begins.  Index the writable ones (the regions a
   scan for the root reads, one by one), and count the bytes they hold.
   -1 if out of memory. */
static int
sort_segments (struct core *c)
{
  qsort (c->seg, c->nseg, sizeof *c->seg, by_address);
  for (size_t i = 0; i + 1 < c->nseg; i++)
    if (c->seg[i].filesz > c->seg[i + 1].vaddr - c->seg[i].vaddr)
      c->seg[i].filesz = c->seg[i + 1].vaddr - c->seg[i].vaddr;
  size_t n = 0;
  for (size_t i = 0; i < c->nseg; i++)
    if (c->seg[i].filesz)
      c->seg[n++] = c->seg[i];
  c->nseg = n;
  c->writable = malloc ((n + 1) * sizeof *c->writable);
  if (!c->writable)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (c->seg[i].writable)
      c->writable[c->nwritable++] = i;
  /* What they hold, never more than the file: a hostile core's segments
     may share its bytes (one page mapped a thousand times). */
  for (size_t i = 0; i < n && c->backed < c->file_size; i++)
    c->backed += c->seg[i].filesz;
  if (c->backed > c->file_size)
    c->backed = c->file_size;
  return 0;
}

static int
cmap_by_address (const void *x, const void *y)
{
  const struct cmap *a = x, *b = y;
  return hi_cmp_u64 (a->start, b->start);
}

/* The NT_FILE entry holding ADDR, or NULL. */
static const struct hi_mapping *
file_of (const struct core *c, uint64_t addr)
{
  for (size_t i = 0; i < c->nmaps; i++)
    if (addr >= c->maps[i].start && addr < c->maps[i].end)
      return &c->maps[i];
  return NULL;
}

static int
mapping_by_address (const void *x, const void *y)
{
  const struct hi_mapping *a = x, *b = y;
  return hi_cmp_u64 (a->start, b->start);
}

static int
entry_by_address (const void *x, const void *y)
{
  const struct hi_map_entry *a = x, *b = y;
  return hi_cmp_u64 (a->start, b->start);
}

/* The parts of NT_FILE's mappings that no PT_LOAD covers, as mappings
   whose bytes the core does not hold, read-only, named by the file:
   gdb's gcore writes no segment at all for a library's unmodified
   read-only data (libc's .rodata, where libthread_db reads glibc's
   version and its layout descriptions), and its bytes are the file's.
   NT_FILE's entries in address order, each from where the previous one
   ended (a hostile note's overlaps cut), against the sorted cmaps: one
   pass over each.  Into c->mapv, which has room for ncmap + nmaps
   more.  -1 if out of memory. */
static int
add_file_gaps (struct core *c)
{
  if (!c->nmaps)
    return 0;
  struct hi_mapping *f = malloc (c->nmaps * sizeof *f);
  if (!f)
    return -1;
  memcpy (f, c->maps, c->nmaps * sizeof *f);
  qsort (f, c->nmaps, sizeof *f, mapping_by_address);
  size_t k = 0, room = c->ncmap + c->nmaps;
  uint64_t done = 0;
  for (size_t i = 0; i < c->nmaps && room; i++)
    {
      uint64_t at = f[i].start > done ? f[i].start : done;
      if (!f[i].path || at >= f[i].end)
        continue;
      while (k < c->ncmap && c->cmap[k].end <= at)
        k++;
      while (at < f[i].end && room)
        {
          uint64_t to = f[i].end;
          if (k < c->ncmap && c->cmap[k].start < to)
            to = c->cmap[k].start > at ? c->cmap[k].start : at;
          if (to > at)
            {
              struct hi_map_entry *e = &c->mapv[c->nmapv++];
              room--;
              e->start = at;
              e->end = to;
              e->prot = HI_MAP_READ;
              e->in_target = 0;
              e->file_offset = f[i].offset + (at - f[i].start);
              size_t len = strlen (f[i].path);
              if (len >= HI_MAP_PATH_MAX)
                len = HI_MAP_PATH_MAX - 1;
              memcpy (e->path, f[i].path, len);
              e->path[len] = '\0';
            }
          if (k < c->ncmap && c->cmap[k].start < f[i].end)
            {
              at = c->cmap[k].end;
              k++;
            }
          else
            at = f[i].end;
        }
      done = at > done ? at : done;
    }
  free (f);
  return 0;
}

/* Make the mappings the `mapping` op gives from the PT_LOAD segments
   (sorted; a damaged core's overlaps cut as the segments' are): each
   segment's held bytes, then the part the file does not hold, named by
   NT_FILE where it names them.  -1 if out of memory. */
static int
make_mappings (struct core *c)
{
  qsort (c->cmap, c->ncmap, sizeof *c->cmap, cmap_by_address);
  size_t n = 0;
  for (size_t i = 0; i < c->ncmap; i++)
    {
      struct cmap m = c->cmap[i];
      if (n && m.start < c->cmap[n - 1].end)
        {
          struct cmap *prev = &c->cmap[n - 1];
          prev->end = m.start > prev->start ? m.start : prev->start;
          if (prev->held > prev->end - prev->start)
            prev->held = prev->end - prev->start;
          if (prev->end == prev->start)
            n--;
        }
      if (m.end > m.start)
        c->cmap[n++] = m;
    }
  c->ncmap = n;
  /* Each cmap gives two entries at most; the NT_FILE gaps one per file
     entry and one per cmap (add_file_gaps). */
  c->mapv = calloc (3 * n + c->nmaps + 1, sizeof *c->mapv);
  if (!c->mapv)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      const struct cmap *m = &c->cmap[i];
      /* The held bytes are where the file has them: a segment cut by the
         file's end holds less than its filesz. */
      uint64_t held = 0;
      const struct segment *s = find_segment (c, m->start);
      if (s && s->vaddr == m->start)
        held = s->filesz < m->held ? s->filesz : m->held;
      if (held > m->end - m->start)
        held = m->end - m->start;
      uint64_t cut[3] = { m->start, m->start + held, m->end };
      for (int part = 0; part < 2; part++)
        {
          if (cut[part + 1] == cut[part])
            continue;
          struct hi_map_entry *e = &c->mapv[c->nmapv++];
          e->start = cut[part];
          e->end = cut[part + 1];
          e->prot = m->prot;
          e->in_target = part == 0;
          const struct hi_mapping *f = file_of (c, e->start);
          if (f && f->path)
            {
              e->file_offset = f->offset + (e->start - f->start);
              size_t len = strlen (f->path);
              if (len >= HI_MAP_PATH_MAX)
                len = HI_MAP_PATH_MAX - 1;
              memcpy (e->path, f->path, len);
              e->path[len] = '\0';
            }
        }
    }
  if (add_file_gaps (c) != 0)
    return -1;
  qsort (c->mapv, c->nmapv, sizeof *c->mapv, entry_by_address);
  return 0;
}

/* Add the thread of an NT_PRSTATUS descriptor DESC of SIZE bytes. */
static void
add_thread (struct core *c, const char *desc, size_t size)
{
  if (!c->x86_64 || size < PRSTATUS_REGS + PRSTATUS_NREGS * 8
      || c->nthreads >= THREADS_MAX)
    return;
  if (hi_grow ((void **) &c->threads, &c->cap_threads, c->nthreads + 1,
               sizeof *c->threads) != 0)
    return;
  struct hi_thread_regs *t = &c->threads[c->nthreads++];
  memset (t, 0, sizeof *t);
  int32_t pid;
  memcpy (&pid, desc + PRSTATUS_PID, sizeof pid);
  t->tid = pid > 0 ? (uint64_t) pid : 0;
  t->n_regs = PRSTATUS_NREGS;
  memcpy (t->regs, desc + PRSTATUS_REGS, PRSTATUS_NREGS * 8);
  t->sp = t->regs[REG_RSP];
  t->fs_base = t->regs[REG_FS_BASE];
}

/* Parse an NT_FILE descriptor: count, page size, count triples, count
   strings; everything bounded by the descriptor's size. */
static void
parse_nt_file (struct core *c, const char *desc, size_t size)
{
  uint64_t head[2];
  if (size < sizeof head || c->note)
    return;                   /* a second NT_FILE note is ignored */
  memcpy (head, desc, sizeof head);     /* notes are only 4-aligned */
  uint64_t count = head[0], page = head[1];
  if (count == 0 || count > (size - 16) / 24)
    return;
  c->note = malloc (size + 1);
  c->maps = calloc (count, sizeof *c->maps);
  if (!c->note || !c->maps)
    {
      free (c->note);
      free (c->maps);
      c->note = NULL;
      c->maps = NULL;
      return;
    }
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
  hi_error_reset ();
  c->exe = exe;
  c->fd = hi_open_regular (path);
  struct stat st;
  if (c->fd < 0 || fstat (c->fd, &st) != 0)
    {
      int err = errno;
      if (c->fd >= 0)
        close (c->fd);
      free (c);
      return hi_fail (HI_E_IO, err);
    }
  c->file_size = (uint64_t) st.st_size;
  if (st.st_mtim.tv_sec > 0)
    c->mtime_ns = (uint64_t) st.st_mtim.tv_sec * 1000000000u
                  + (uint64_t) st.st_mtim.tv_nsec;
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
  c->x86_64 = eh.e_machine == EM_X86_64
               && eh.e_ident[EI_CLASS] == ELFCLASS64;
  c->cmap = calloc (n, sizeof *c->cmap);
  if (!c->cmap)
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
        add_segment (c, &ph);
      if (ph.p_type == PT_LOAD && ph.p_memsz > 0)
        {
          uint64_t end = ph.p_vaddr + ph.p_memsz < ph.p_vaddr
                         ? UINT64_MAX : ph.p_vaddr + ph.p_memsz;
          c->cmap[c->ncmap++] = (struct cmap) {
            ph.p_vaddr, end, ph.p_filesz,
            ((ph.p_flags & PF_R) ? HI_MAP_READ : 0)
            | ((ph.p_flags & PF_W) ? HI_MAP_WRITE : 0)
            | ((ph.p_flags & PF_X) ? HI_MAP_EXEC : 0) };
        }
      if (ph.p_type == PT_NOTE && (ph.p_offset > c->file_size
                                   || ph.p_filesz > c->file_size - ph.p_offset))
        c->missing += ph.p_offset > c->file_size
                      ? ph.p_filesz
                      : ph.p_filesz - (c->file_size - ph.p_offset);
      if (ph.p_type != PT_NOTE || ph.p_offset > c->file_size
          || ph.p_filesz > c->file_size - ph.p_offset)
        continue;
      Elf_Data *data = elf_getdata_rawchunk (c->elf, (int64_t) ph.p_offset,
                                             ph.p_filesz, ELF_T_NHDR);
      size_t off = 0, name_off, desc_off;
      GElf_Nhdr nh;
      while (data && (off = gelf_getnote (data, off, &nh, &name_off,
                                          &desc_off)) > 0)
        if (nh.n_namesz == 5
            && memcmp ((char *) data->d_buf + name_off, "CORE", 5) == 0)
          {
            if (nh.n_type == NT_FILE)
              parse_nt_file (c, (char *) data->d_buf + desc_off, nh.n_descsz);
            else if (nh.n_type == NT_PRSTATUS)
              add_thread (c, (char *) data->d_buf + desc_off, nh.n_descsz);
          }
    }
  c->image = elf_rawfile (c->elf, &c->image_size);
  if (c->image_size > c->file_size)
    c->image_size = (size_t) c->file_size;
  if (sort_segments (c) != 0 || make_mappings (c) != 0)
    {
      err = HI_E_NOMEM;
      goto fail;
    }
  out->ops = &core_ops;
  out->ctx = c;
  out->thread_db = 1;
  return HI_OK;
fail:
  core_close (c);
  return err;
}
