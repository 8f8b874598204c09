/* hip-tool.c - a test helper that knows the snapshot format: where each
   field of the root, a thread, a site, a node, a module, the process
   record and the time arenas (format 4) lies in a snapshot file (for the systematic damage test), and the same memory
   as a minimal ELF core or as raw dumps (seeds and regression inputs of
   the fuzz targets).

   hip-tool fields SNAPSHOT       "NAME OFFSET SIZE" per field
   hip-tool core SNAPSHOT OUT     an ELF core: one PT_LOAD per region
   hip-tool amplify SNAPSHOT OUT COPIES KIND...
                                  that core, hostile: COPIES more PT_LOAD
                                  segments, one after another from
                                  AMPLIFY_AT, each the same zeroed
                                  AMPLIFY_BYTES at the file's end; the
                                  arenas of each KIND (a number) point
                                  there and claim all of it (at most
                                  4 GiB)
   hip-tool raw SNAPSHOT OUT      fuzz-raw's input: base, length, bytes
   hip-tool split-raw IN DIR      fuzz-raw's input as files DIR/N; prints
                                  "--raw DIR/N@0xBASE" per region */
#define _GNU_SOURCE
#include <elf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapinspect/format.h"

static unsigned char *file;
static size_t file_size;
static struct hi_snap_header head;
static struct hi_snap_region reg[HI_SNAP_MAX_REGIONS];

static void
die (const char *what)
{
  fprintf (stderr, "hip-tool: %s\n", what);
  exit (1);
}

static unsigned char *
slurp (const char *path, size_t *size)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    die ("cannot open the input");
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc (cap);
  size_t got;
  while (buf && (got = fread (buf + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap)
      buf = realloc (buf, cap *= 2);
  fclose (f);
  if (!buf)
    die ("out of memory");
  *size = n;
  return buf;
}

static void
load_snapshot (const char *path)
{
  file = slurp (path, &file_size);
  if (file_size < sizeof head)
    die ("not a snapshot");
  memcpy (&head, file, sizeof head);
  if (head.magic != HI_SNAP_MAGIC || head.n_regions == 0
      || head.n_regions > HI_SNAP_MAX_REGIONS
      || sizeof head + head.n_regions * sizeof reg[0] > file_size)
    die ("not a snapshot");
  memcpy (reg, file + sizeof head, head.n_regions * sizeof reg[0]);
  for (uint32_t i = 0; i < head.n_regions; i++)
    if (reg[i].offset > file_size || reg[i].size > file_size - reg[i].offset)
      die ("a region lies past the end of the file");
}

/* File offset of the LEN bytes at process address ADDR. */
static uint64_t
offset_of (uint64_t addr, uint64_t len)
{
  for (uint32_t i = 0; i < head.n_regions; i++)
    if (addr >= reg[i].addr && addr - reg[i].addr + len <= reg[i].size)
      return reg[i].offset + (addr - reg[i].addr);
  die ("an address the snapshot does not hold");
  return 0;
}

static void *
at (uint64_t addr, uint64_t len)
{
  return file + offset_of (addr, len);
}

static void
field (const char *record, const char *name, uint64_t base, size_t off,
       size_t size)
{
  printf ("%s.%s %" PRIu64 " %zu\n", record, name, offset_of (base + off, size),
          size);
}

#define F(rec, base, type, member) \
  field (rec, #member, base, offsetof (type, member), \
         sizeof ((type *) 0)->member)
#define FI(rec, base, type, member, i) \
  do { char n_[64]; snprintf (n_, sizeof n_, #member "[%d]", (int) (i)); \
       field (rec, n_, base, offsetof (type, member[0]) \
              + (size_t) (i) * sizeof ((type *) 0)->member[0], \
              sizeof ((type *) 0)->member[0]); } while (0)

/* Arena descriptor I of R: root.arenas, then (format 4) more_arenas. */
static const struct hi_arena_desc *
arena_at (const struct hi_root *r, uint32_t i)
{
  return i < HI_MAX_ARENAS ? &r->arenas[i] : &r->more_arenas[i - HI_MAX_ARENAS];
}

static const struct hi_arena_desc *
find_arena (const struct hi_root *r, uint32_t kind)
{
  for (uint32_t i = 0; i < r->n_arenas && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS;
       i++)
    if (arena_at (r, i)->kind == kind)
      return arena_at (r, i);
  return NULL;
}

static const struct hi_arena_desc *
arena (const struct hi_root *r, uint32_t kind)
{
  const struct hi_arena_desc *a = find_arena (r, kind);
  if (!a)
    die ("an arena is missing");
  return a;
}

/* The fields of a peak share at A. */
static void
share_fields (const char *rec, uint64_t a)
{
  F (rec, a, struct hi_peak_share, live_bytes);
  F (rec, a, struct hi_peak_share, live_blocks);
  F (rec, a, struct hi_peak_share, peak_bytes);
  F (rec, a, struct hi_peak_share, peak_blocks);
  F (rec, a, struct hi_peak_share, peak_gen);
  F (rec, a, struct hi_peak_share, temporaries);
}

static void
point_fields (const char *rec, uint64_t a)
{
  F (rec, a, struct hi_tpoint, time_ns);
  F (rec, a, struct hi_tpoint, clock);
  F (rec, a, struct hi_tpoint, live_bytes);
  F (rec, a, struct hi_tpoint, live_blocks);
}

/* Format 4's time: the root's fields, site 1's time entry, thread 0's
   first site share, the timeline's head, its first and last points and
   its first detailed point. */
static void
time_fields (const struct hi_root *r, uint64_t ra)
{
  if (r->version < 4)
    return;
  F ("root", ra, struct hi_root, alloc_clock);
  F ("root", ra, struct hi_root, peak_gen);
  F ("root", ra, struct hi_root, peak_clock);
  F ("root", ra, struct hi_root, time_flags);
  F ("root", ra, struct hi_root, birth_size);
  for (uint32_t i = HI_MAX_ARENAS;
       i < r->n_arenas && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    {
      char rec[40];
      uint64_t a = ra + offsetof (struct hi_root, more_arenas[0])
                   + (i - HI_MAX_ARENAS) * sizeof (struct hi_arena_desc);
      snprintf (rec, sizeof rec, "root.more_arenas[%u]", i - HI_MAX_ARENAS);
      F (rec, a, struct hi_arena_desc, addr);
      F (rec, a, struct hi_arena_desc, capacity);
      F (rec, a, struct hi_arena_desc, count);
      F (rec, a, struct hi_arena_desc, kind);
      F (rec, a, struct hi_arena_desc, entry_size);
    }
  const struct hi_arena_desc *st = find_arena (r, HI_ARENA_SITE_TIME);
  if (st && st->count > 1)
    {
      uint64_t a = st->addr + st->entry_size;
      share_fields ("site_time", a);
      if (st->entry_size == sizeof (struct hi_site_life))
        {
          FI ("site_time", a, struct hi_site_life, life, 0);
          FI ("site_time", a, struct hi_site_life, life, HI_LIFE_BUCKETS - 1);
          F ("site_time", a, struct hi_site_life, freed);
          F ("site_time", a, struct hi_site_life, freed_ns);
          F ("site_time", a, struct hi_site_life, live);
          F ("site_time", a, struct hi_site_life, live_clock_sum);
          F ("site_time", a, struct hi_site_life, live_ns_sum);
        }
    }
  const struct hi_arena_desc *tt = find_arena (r, HI_ARENA_THREAD_TIME);
  if (tt && tt->count > 0)
    share_fields ("thread_time.sites[0]", tt->addr);
  const struct hi_arena_desc *tl = find_arena (r, HI_ARENA_TIMELINE);
  if (tl && tl->count > 0)
    {
      uint64_t a = tl->addr;
      const struct hi_timeline *t = at (a, sizeof *t);
      F ("timeline", a, struct hi_timeline, interval);
      F ("timeline", a, struct hi_timeline, next_clock);
      F ("timeline", a, struct hi_timeline, n_points);
      F ("timeline", a, struct hi_timeline, n_detailed);
      F ("timeline", a, struct hi_timeline, points_taken);
      if (t->n_points > 0 && t->n_points <= HI_TIMELINE_POINTS)
        {
          point_fields ("timeline.points[0]", a + offsetof (struct hi_timeline,
                                                           points[0]));
          point_fields ("timeline.points[last]",
                        a + offsetof (struct hi_timeline, points[0])
                        + (t->n_points - 1) * sizeof (struct hi_tpoint));
        }
      if (t->n_detailed > 0 && t->n_detailed <= HI_TIMELINE_DETAILED)
        {
          uint64_t d = a + offsetof (struct hi_timeline, detailed[0]);
          point_fields ("timeline.detailed[0].at", d);
          F ("timeline.detailed[0]", d, struct hi_tdetail, n_chains);
          if (t->detailed[0].n_chains > 0)
            {
              uint64_t c = d + offsetof (struct hi_tdetail, chains[0]);
              F ("timeline.detailed[0].chains[0]", c, struct hi_tchain, site);
              F ("timeline.detailed[0].chains[0]", c, struct hi_tchain,
                 live_bytes);
              F ("timeline.detailed[0].chains[0]", c, struct hi_tchain,
                 live_blocks);
            }
        }
    }
}

static void
fields (void)
{
  uint64_t ra = head.root_addr;
  const struct hi_root *r = at (ra, sizeof *r);
  F ("root", ra, struct hi_root, magic);
  F ("root", ra, struct hi_root, version);
  F ("root", ra, struct hi_root, root_size);
  F ("root", ra, struct hi_root, pointer_size);
  F ("root", ra, struct hi_root, byte_order);
  F ("root", ra, struct hi_root, max_depth);
  F ("root", ra, struct hi_root, header_salt);
  F ("root", ra, struct hi_root, pid);
  F ("root", ra, struct hi_root, ready);
  F ("root", ra, struct hi_root, n_arenas);
  for (uint32_t i = 0; i < r->n_arenas && i < HI_MAX_ARENAS; i++)
    {
      char rec[32];
      uint64_t a = ra + offsetof (struct hi_root, arenas[0])
                   + i * sizeof (struct hi_arena_desc);
      snprintf (rec, sizeof rec, "root.arenas[%u]", i);
      F (rec, a, struct hi_arena_desc, addr);
      F (rec, a, struct hi_arena_desc, capacity);
      F (rec, a, struct hi_arena_desc, count);
      F (rec, a, struct hi_arena_desc, kind);
      F (rec, a, struct hi_arena_desc, entry_size);
    }
  uint64_t ta = ra + offsetof (struct hi_root, totals);
#define T(member) F ("root.totals", ta, struct hi_totals, member)
  T (live_bytes); T (peak_bytes); T (live_blocks); T (peak_blocks);
  T (foreign_frees); T (chains_truncated); T (chains_dropped);
  T (internal_allocs); T (snapshots); T (unwind_fallbacks);
  T (unwind_checked); T (unwind_mismatches);
#undef T
  F ("root", ra, struct hi_root, snapshot_realtime_ns);
  F ("root", ra, struct hi_root, snapshot_monotonic_ns);
  time_fields (r, ra);

  /* Thread 0; its bins of size 0, the first size it used and >1024;
     its first site slot. */
  uint64_t th = arena (r, HI_ARENA_THREADS)->addr;
  const struct hi_thread *t = at (th, sizeof *t);
  const char *tr = "thread";
  F (tr, th, struct hi_thread, tid);
  F (tr, th, struct hi_thread, chains);
  F (tr, th, struct hi_thread, frames);
  F (tr, th, struct hi_thread, frames_cached);
  F (tr, th, struct hi_thread, allocations);
  F (tr, th, struct hi_thread, frees);
  F (tr, th, struct hi_thread, bytes_allocated);
  F (tr, th, struct hi_thread, bytes_freed);
  /* calls: the first and the last (the others take the same path). */
  FI (tr, th, struct hi_thread, calls, 0);
  FI (tr, th, struct hi_thread, calls, HI_NCALLS - 1);
  unsigned used = 1;
  while (used < HI_BIN_MAX && t->bins[used].allocs == 0)
    used++;
  const unsigned bins[] = { 0, used, HI_NBINS - 1 };
  const char *bin_names[] = { "bins[0]", "bins[first used]", "bins[>1024]" };
  for (int k = 0; k < 3; k++)
    {
      char rec[64];
      uint64_t b = th + offsetof (struct hi_thread, bins[0])
                   + bins[k] * sizeof (struct hi_bin);
      snprintf (rec, sizeof rec, "thread.%s", bin_names[k]);
      F (rec, b, struct hi_bin, allocs);
      F (rec, b, struct hi_bin, frees);
      F (rec, b, struct hi_bin, bytes);
      F (rec, b, struct hi_bin, bytes_freed);
    }
  uint64_t ts = th + offsetof (struct hi_thread, sites[0]);
  F ("thread.sites[0]", ts, struct hi_thread_site, site);
  F ("thread.sites[0]", ts, struct hi_thread_site, unused);
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    {
      FI ("thread.sites[0]", ts, struct hi_thread_site, allocs, c);
      FI ("thread.sites[0]", ts, struct hi_thread_site, frees, c);
      FI ("thread.sites[0]", ts, struct hi_thread_site, bytes, c);
      FI ("thread.sites[0]", ts, struct hi_thread_site, bytes_freed, c);
    }

  /* Site 1 (the first real one), and the leaf node of its chain and
     that node's parent. */
  uint64_t sa = arena (r, HI_ARENA_SITES)->addr + sizeof (struct hi_site);
  const struct hi_site *s = at (sa, sizeof *s);
  F ("site", sa, struct hi_site, node);
  F ("site", sa, struct hi_site, depth);
  for (int c = 0; c < HI_NSIZE_CLASSES; c++)
    {
      FI ("site", sa, struct hi_site, allocs, c);
      FI ("site", sa, struct hi_site, frees, c);
      FI ("site", sa, struct hi_site, bytes, c);
      FI ("site", sa, struct hi_site, bytes_freed, c);
    }
  uint64_t nodes = arena (r, HI_ARENA_NODES)->addr;
  uint64_t leaf = nodes + s->node * sizeof (struct hi_node);
  const struct hi_node *n = at (leaf, sizeof *n);
  uint64_t up = nodes + n->parent * sizeof (struct hi_node);
  F ("leaf node", leaf, struct hi_node, ret);
  F ("leaf node", leaf, struct hi_node, parent);
  F ("leaf node", leaf, struct hi_node, site);
  F ("parent node", up, struct hi_node, ret);
  F ("parent node", up, struct hi_node, parent);
  F ("parent node", up, struct hi_node, site);

  uint64_t ma = arena (r, HI_ARENA_MODULES)->addr;
  F ("module", ma, struct hi_module, bias);
  F ("module", ma, struct hi_module, start);
  F ("module", ma, struct hi_module, end);
  F ("module", ma, struct hi_module, flags);
  F ("module", ma, struct hi_module, build_id_len);
  FI ("module", ma, struct hi_module, path, 0);

  /* The process record: its fields, the first byte of the command line
     and the last one in use. */
  for (uint32_t i = 0; i < r->n_arenas && i < HI_MAX_ARENAS; i++)
    if (r->arenas[i].kind == HI_ARENA_PROCESS && r->arenas[i].count)
      {
        uint64_t pa = r->arenas[i].addr;
        const struct hi_process *p = at (pa, sizeof *p);
        F ("process", pa, struct hi_process, start_realtime_ns);
        F ("process", pa, struct hi_process, start_monotonic_ns);
        F ("process", pa, struct hi_process, flags);
        F ("process", pa, struct hi_process, cmdline_len);
        FI ("process", pa, struct hi_process, cmdline, 0);
        if (p->cmdline_len > 1 && p->cmdline_len <= HI_CMDLINE_MAX)
          {
            uint64_t last = pa + offsetof (struct hi_process, cmdline)
                            + p->cmdline_len - 1;
            field ("process", "cmdline[last]", last, 0, 1);
          }
      }
}

static void
write_file (const char *path, const void *data, size_t size)
{
  FILE *f = fopen (path, "wb");
  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    die ("cannot write the output");
}

#define AMPLIFY_AT    UINT64_C(0x100000000000)
#define AMPLIFY_BYTES 65536u

/* Point the arenas of ROOT of the kinds in MASK to AMPLIFY_AT, each
   claiming the BYTES mapped there. */
static void
amplify_root (struct hi_root *root, uint32_t mask, uint64_t bytes)
{
  if (bytes > (UINT64_C(1) << 32) - 1)
    bytes = (UINT64_C(1) << 32) - 1;
  for (uint32_t i = 0; i < root->n_arenas
                       && i < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS; i++)
    {
      struct hi_arena_desc *a = (struct hi_arena_desc *) arena_at (root, i);
      if (a->kind < 32 && (mask & (UINT32_C(1) << a->kind)) && a->entry_size)
        {
          a->addr = AMPLIFY_AT;
          a->count = a->capacity = bytes / a->entry_size;
        }
    }
}

/* The snapshot's regions as a core: ELF header, a PT_NOTE with an
   NT_FILE naming one file that does not exist, one writable PT_LOAD
   per region; with COPIES, that many more (see amplify in the usage),
   for the arenas of the kinds in MASK. */
static void
core (const char *out, uint32_t copies, uint32_t mask)
{
  static const char path[] = "/nonexistent/hip-tool";
  uint32_t n = head.n_regions;
  size_t phoff = sizeof (Elf64_Ehdr), nph = n + 1 + copies;
  size_t desc = 16 + 24 + sizeof path;
  size_t note = sizeof (Elf64_Nhdr) + 8 + ((desc + 3) & ~(size_t) 3);
  size_t data = phoff + nph * sizeof (Elf64_Phdr) + note;
  size_t size = data;
  for (uint32_t i = 0; i < n; i++)
    size += (reg[i].size + 15) & ~(uint64_t) 15;
  size_t zeros = size;
  if (copies)
    size += AMPLIFY_BYTES;
  unsigned char *buf = calloc (1, size);
  if (!buf)
    die ("out of memory");
  Elf64_Ehdr *eh = (Elf64_Ehdr *) buf;
  memcpy (eh->e_ident, ELFMAG, SELFMAG);
  eh->e_ident[EI_CLASS] = ELFCLASS64;
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_VERSION] = EV_CURRENT;
  eh->e_type = ET_CORE;
  eh->e_machine = EM_X86_64;
  eh->e_version = EV_CURRENT;
  eh->e_phoff = phoff;
  eh->e_ehsize = sizeof *eh;
  eh->e_phentsize = sizeof (Elf64_Phdr);
  eh->e_phnum = (Elf64_Half) nph;
  Elf64_Phdr *ph = (Elf64_Phdr *) (buf + phoff);
  size_t noff = phoff + nph * sizeof *ph;
  ph[0] = (Elf64_Phdr) { .p_type = PT_NOTE, .p_offset = noff,
                         .p_filesz = note, .p_align = 4 };
  Elf64_Nhdr *nh = (Elf64_Nhdr *) (buf + noff);
  *nh = (Elf64_Nhdr) { 5, (Elf64_Word) desc, 0x46494c45 /* NT_FILE */ };
  memcpy (buf + noff + sizeof *nh, "CORE", 5);
  uint64_t w[5] = { 1, 4096, reg[0].addr, reg[0].addr + 4096, 0 };
  memcpy (buf + noff + sizeof *nh + 8, w, sizeof w);
  memcpy (buf + noff + sizeof *nh + 8 + sizeof w, path, sizeof path);
  size_t off = data;
  for (uint32_t i = 0; i < n; i++)
    {
      ph[i + 1] = (Elf64_Phdr) { .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
                                 .p_offset = off, .p_vaddr = reg[i].addr,
                                 .p_filesz = reg[i].size,
                                 .p_memsz = reg[i].size, .p_align = 1 };
      memcpy (buf + off, file + reg[i].offset, reg[i].size);
      if (copies && reg[i].addr == head.root_addr
          && reg[i].size >= sizeof (struct hi_root))
        {
          struct hi_root root;
          memcpy (&root, buf + off, sizeof root);
          amplify_root (&root, mask, (uint64_t) copies * AMPLIFY_BYTES);
          memcpy (buf + off, &root, sizeof root);
        }
      off += (reg[i].size + 15) & ~(uint64_t) 15;
    }
  for (uint32_t k = 0; k < copies; k++)
    ph[n + 1 + k] = (Elf64_Phdr) { .p_type = PT_LOAD,
                                   .p_flags = PF_R | PF_W,
                                   .p_offset = zeros,
                                   .p_vaddr = AMPLIFY_AT
                                              + (uint64_t) k * AMPLIFY_BYTES,
                                   .p_filesz = AMPLIFY_BYTES,
                                   .p_memsz = AMPLIFY_BYTES, .p_align = 1 };
  write_file (out, buf, size);
  free (buf);
}

static void
raw (const char *out)
{
  FILE *f = fopen (out, "wb");
  if (!f)
    die ("cannot write the output");
  for (uint32_t i = 0; i < head.n_regions; i++)
    {
      uint32_t len = (uint32_t) reg[i].size;
      fwrite (&reg[i].addr, 8, 1, f);
      fwrite (&len, 4, 1, f);
      fwrite (file + reg[i].offset, 1, len, f);
    }
  if (fclose (f) != 0)
    die ("cannot write the output");
}

/* Exactly fuzz-raw.c's reading of its input. */
static void
split_raw (const char *in, const char *dir)
{
  size_t size;
  unsigned char *data = slurp (in, &size), *p = data;
  for (int n = 0; n < 16 && size >= 12; n++)
    {
      uint64_t base;
      uint32_t len;
      memcpy (&base, p, 8);
      memcpy (&len, p + 8, 4);
      p += 12, size -= 12;
      if (len > size)
        len = (uint32_t) size;
      char path[4096];
      snprintf (path, sizeof path, "%s/%d", dir, n);
      write_file (path, p, len);
      printf ("--raw %s@0x%" PRIx64 "\n", path, base);
      p += len, size -= len;
    }
  free (data);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "fields") == 0)
    load_snapshot (argv[2]), fields ();
  else if (argc == 4 && strcmp (argv[1], "core") == 0)
    load_snapshot (argv[2]), core (argv[3], 0, 0);
  else if (argc >= 6 && strcmp (argv[1], "amplify") == 0)
    {
      uint32_t mask = 0;
      for (int i = 5; i < argc; i++)
        mask |= UINT32_C(1) << (strtoul (argv[i], NULL, 0) & 31);
      load_snapshot (argv[2]);
      core (argv[3], (uint32_t) strtoul (argv[4], NULL, 0), mask);
    }
  else if (argc == 4 && strcmp (argv[1], "raw") == 0)
    load_snapshot (argv[2]), raw (argv[3]);
  else if (argc == 4 && strcmp (argv[1], "split-raw") == 0)
    split_raw (argv[2], argv[3]);
  else
    die ("usage: hip-tool fields|core|raw SNAPSHOT [OUT] | split-raw IN DIR"
         " | amplify SNAPSHOT OUT COPIES KIND...");
  return 0;
}
