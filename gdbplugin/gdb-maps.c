/* gdb-maps.c - the inferior's memory map as gdb printed it (`info proc
   mappings`, which heap-run.gdb writes into the map file): on a remote
   target the plugin has no other, and gdb reads it through the target
   (gdbserver's /proc/PID/maps), wherever the process runs. */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

/* Parse a hexadecimal "0x..." at *P into *OUT, moving *P past it and the
   blanks after it: 0, or -1. */
static int
hex (const char **p, uint64_t *out)
{
  const char *s = *p;
  if (s[0] != '0' || s[1] != 'x')
    return -1;
  char *end;
  unsigned long long v = strtoull (s + 2, &end, 16);
  if (end == s + 2)
    return -1;
  *out = v;
  while (*end == ' ' || *end == '\t')
    end++;
  *p = end;
  return 0;
}

/* One line of the table: "START END SIZE OFFSET PERMS [PATH]" (gdb 12 and
   later print PERMS).  0 with *E filled, or -1 for any other line. */
static int
parse_line (const char *line, size_t len, struct hi_map_entry *e)
{
  char buf[HI_MAP_PATH_MAX + 128];
  if (len >= sizeof buf)
    len = sizeof buf - 1;
  memcpy (buf, line, len);
  buf[len] = '\0';
  const char *p = buf;
  while (*p == ' ' || *p == '\t')
    p++;
  uint64_t start, end, size, offset;
  if (hex (&p, &start) != 0 || hex (&p, &end) != 0 || hex (&p, &size) != 0
      || hex (&p, &offset) != 0 || end <= start || size != end - start)
    return -1;
  if (strspn (p, "-rwxps") != 4 || (p[4] != ' ' && p[4] != '\t' && p[4]))
    return -1;
  memset (e, 0, sizeof *e);
  e->start = start;
  e->end = end;
  e->prot = (p[0] == 'r' ? HI_MAP_READ : 0) | (p[1] == 'w' ? HI_MAP_WRITE : 0)
            | (p[2] == 'x' ? HI_MAP_EXEC : 0);
  p += 4;
  while (*p == ' ' || *p == '\t')
    p++;
  size_t n = strlen (p);
  while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
    n--;
  if (n >= sizeof e->path)
    n = sizeof e->path - 1;
  memcpy (e->path, p, n);
  e->path[n] = '\0';
  /* As target-process.c: a file's offset, and the kernel's own pages,
     which no read reaches. */
  e->file_offset = e->path[0] == '/' ? offset : 0;
  e->in_target = strncmp (e->path, "[vvar", 5) != 0
                 && strcmp (e->path, "[vsyscall]") != 0;
  return 0;
}

static int
by_start (const void *x, const void *y)
{
  const struct hi_map_entry *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

int
hi_gdb_parse_maps (const char *text, struct hi_map_entry **out, size_t *n)
{
  struct hi_map_entry *v = NULL;
  size_t count = 0, cap = 0;
  *out = NULL;
  *n = 0;
  for (const char *line = text; line && *line; )
    {
      const char *nl = strchr (line, '\n');
      size_t len = nl ? (size_t) (nl - line) : strlen (line);
      struct hi_map_entry e;
      if (parse_line (line, len, &e) == 0)
        {
          if (count == cap)
            {
              size_t c = cap ? 2 * cap : 64;
              struct hi_map_entry *g = realloc (v, c * sizeof *g);
              if (!g)
                break;
              v = g;
              cap = c;
            }
          v[count++] = e;
        }
      line = nl ? nl + 1 : NULL;
    }
  if (count == 0)
    {
      free (v);
      return -1;
    }
  qsort (v, count, sizeof *v, by_start);
  *out = v;
  *n = count;
  return 0;
}
