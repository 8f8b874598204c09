/* hip-errors.c - print what a snapshot holds of heap errors and guards
   (format 5), read straight from the file, without the reader library:
   the root's guard fields, each entry of HI_ARENA_ERRORS and the
   quarantine's held entries, as "key: value" lines (guard.exp).

   hip-errors SNAPSHOT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapinspect/format.h"

static unsigned char *file;
static size_t file_size;
static struct hi_snap_header head;
static struct hi_snap_region *reg;

static const char *const kinds[] = { "none", "double_free", "interior_free",
  "not_heap", "header_corrupt", "write_after_free", "redzone" };
static const char *const whens[] = { "none", "free", "realloc",
  "usable_size", "evict", "snapshot" };
static const char *const wheres[] = { "unknown", "stack", "module",
  "unmapped" };
#define NAME(table, i) \
  ((i) < sizeof table / sizeof table[0] ? table[i] : "?")

static void
die (const char *what)
{
  fprintf (stderr, "hip-errors: %s\n", what);
  exit (1);
}

/* The N bytes at process address ADDR, or NULL. */
static const void *
at (uint64_t addr, uint64_t n)
{
  for (uint32_t i = 0; i < head.n_regions; i++)
    if (addr >= reg[i].addr && addr + n <= reg[i].addr + reg[i].size
        && reg[i].offset + (addr - reg[i].addr) + n <= file_size)
      return file + reg[i].offset + (addr - reg[i].addr);
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    die ("usage: hip-errors SNAPSHOT");
  FILE *f = fopen (argv[1], "rb");
  if (!f)
    die ("cannot open the snapshot");
  fseek (f, 0, SEEK_END);
  file_size = (size_t) ftell (f);
  fseek (f, 0, SEEK_SET);
  file = malloc (file_size ? file_size : 1);
  if (!file || fread (file, 1, file_size, f) != file_size)
    die ("cannot read the snapshot");
  fclose (f);
  if (file_size < sizeof head)
    die ("not a snapshot");
  memcpy (&head, file, sizeof head);
  if (head.magic != HI_SNAP_MAGIC || head.n_regions > HI_SNAP_MAX_REGIONS
      || sizeof head + head.n_regions * sizeof *reg > file_size)
    die ("not a snapshot");
  reg = (struct hi_snap_region *) (file + sizeof head);
  const struct hi_root *r = at (head.root_addr, sizeof *r);
  if (!r || r->version < 5)
    die ("no root of version 5");
  printf ("guard_flags: %" PRIu32 "\nredzone: %" PRIu32 "\n"
          "quarantine_limit: %" PRIu64 "\nquarantine_bytes: %" PRIu64 "\n"
          "quarantine_held: %" PRIu64 "\nerrors_total: %" PRIu64 "\n",
          r->guard_flags, r->redzone, r->quarantine_limit,
          r->quarantine_bytes, r->quarantine_tail - r->quarantine_head,
          r->errors_total);
  for (uint32_t i = 0; i < r->n_arenas && i < 16; i++)
    {
      const struct hi_arena_desc *a = i < HI_MAX_ARENAS ? &r->arenas[i]
                                      : &r->more_arenas[i - HI_MAX_ARENAS];
      if (a->kind == HI_ARENA_ERRORS)
        {
          printf ("errors: %" PRIu64 "\n", a->count);
          for (uint64_t k = 0; k < a->count; k++)
            {
              const struct hi_error *e = at (a->addr + k * sizeof *e,
                                             sizeof *e);
              if (!e)
                die ("an error entry is not in the snapshot");
              printf ("error%" PRIu64 ": kind %s when %s addr 0x%" PRIx64
                      " block 0x%" PRIx64 " size %" PRIu64 " where %s"
                      " offset %" PRIu64 " other 0x%" PRIx64 " other_size %"
                      PRIu64 "\n", k, NAME (kinds, e->kind),
                      NAME (whens, e->when), e->addr, e->block,
                      e->block_size, NAME (wheres, e->where_kind), e->offset,
                      e->other, e->other_size);
              printf ("error%" PRIu64 "_sites: alloc %s free %s call %s "
                      "other %s\n", k, e->alloc_site ? "yes" : "no",
                      e->free_site ? "yes" : "no",
                      e->call_site ? "yes" : "no",
                      e->other_site ? "yes" : "no");
            }
        }
      else if (a->kind == HI_ARENA_QUARANTINE)
        printf ("quarantine_entries: %" PRIu64 "\n", a->count);
    }
  return 0;
}
