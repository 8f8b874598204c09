/* symbolize.c - code addresses to function, module and line, and sizes to
   type names, from the monitor's module list with libdwfl. */
#define _GNU_SOURCE
#include "symbolize.h"
#include "strtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (the CLI links libstdc++). */
extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len,
                             int *status);

struct hi_symbolizer
{
  Dwfl *dwfl;
  Dwfl_Module *main_module;
  struct hi_strtab names;      /* owns every string handed out */
  unsigned missing;
  int types_done;
  uint32_t type_names[HI_BIN_MAX + 1];   /* strtab id + 1, 0 = none */
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .debuginfo_path = &debuginfo_path,
};

static const char *
keep (struct hi_symbolizer *s, const char *str)
{
  uint32_t id = hi_strtab_intern (&s->names, str);
  return id == UINT32_MAX ? NULL : s->names.strs[id];
}

/* 1 if the file at PATH is the one recorded (or nothing was recorded);
   a file rebuilt since the run would name the wrong functions. */
static int
same_build_id (const char *path, const struct hi_module *rec)
{
  if (rec->build_id_len == 0)
    return 1;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  const void *id = NULL;
  ssize_t n = elf ? dwelf_elf_gnu_build_id (elf, &id) : -1;
  int same = n <= 0 || ((size_t) n == rec->build_id_len
                        && memcmp (id, rec->build_id, (size_t) n) == 0);
  if (elf)
    elf_end (elf);
  close (fd);
  return same;
}

struct hi_symbolizer *
hi_symbolizer_new (const struct hi_model *m, const char *exe)
{
  struct hi_symbolizer *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  hi_strtab_init (&s->names);
  s->dwfl = dwfl_begin (&callbacks);
  if (!s->dwfl)
    {
      free (s);
      return NULL;
    }
  dwfl_report_begin (s->dwfl);
  for (uint64_t i = 0; i < m->n_modules; i++)
    {
      const struct hi_module *rec = &m->modules[i];
      const char *path = i == 0 && exe ? exe : rec->path;
      if (path[0] != '/' || (rec->flags & HI_MODULE_PATH_CUT))
        {
          s->missing += path[0] == '/';   /* the vdso is no file */
          continue;
        }
      /* Modules may overlap when one was unloaded and another loaded at
         its place: the loaded one wins, reported last. */
      if (!(rec->flags & HI_MODULE_LOADED))
        continue;
      if (!same_build_id (path, rec))
        {
          s->missing++;
          continue;
        }
      Dwfl_Module *mod = dwfl_report_elf (s->dwfl, path, path, -1,
                                          rec->bias, true);
      if (!mod)
        {
          s->missing++;
          continue;
        }
      if (i == 0)
        s->main_module = mod;
    }
  dwfl_report_end (s->dwfl, NULL, NULL);
  return s;
}

void
hi_symbolizer_free (struct hi_symbolizer *s)
{
  if (!s)
    return;
  dwfl_end (s->dwfl);
  hi_strtab_free (&s->names);
  free (s);
}

unsigned
hi_symbolizer_missing (const struct hi_symbolizer *s)
{
  return s->missing;
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash ? slash + 1 : path;
}

void
hi_symbolize (struct hi_symbolizer *s, uint64_t addr, struct hi_code *out)
{
  memset (out, 0, sizeof *out);
  Dwfl_Module *mod = dwfl_addrmodule (s->dwfl, addr);
  if (!mod)
    return;
  Dwarf_Addr start;
  const char *mname = dwfl_module_info (mod, NULL, &start, NULL, NULL, NULL,
                                        NULL, NULL);
  out->module = mname ? keep (s, base_name (mname)) : NULL;
  Dwarf_Addr bias = 0;
  dwfl_module_getelf (mod, &bias);
  out->module_offset = addr - bias;
  GElf_Off off;
  GElf_Sym sym;
  const char *name = dwfl_module_addrinfo (mod, addr, &off, &sym, NULL, NULL,
                                           NULL);
  if (name)
    {
      int status = -1;
      char *dm = name[0] == '_' && name[1] == 'Z'
                 ? __cxa_demangle (name, NULL, NULL, &status) : NULL;
      out->function = keep (s, status == 0 && dm ? dm : name);
      out->function_offset = off;
      free (dm);
    }
}

void
hi_symbolize_line (struct hi_symbolizer *s, uint64_t addr, struct hi_code *out)
{
  hi_symbolize (s, addr, out);
  Dwfl_Module *mod = dwfl_addrmodule (s->dwfl, addr);
  Dwfl_Line *line = mod ? dwfl_module_getsrc (mod, addr) : NULL;
  if (line)
    {
      int lineno = 0;
      const char *file = dwfl_lineinfo (line, NULL, &lineno, NULL, NULL, NULL);
      if (file)
        {
          out->file = keep (s, file);
          out->line = lineno;
        }
    }
}

static void
note_type (struct hi_symbolizer *s, Dwarf_Die *die, struct hi_strtab *seen)
{
  static const struct { int tag; const char *kw; } kinds[] = {
    { DW_TAG_structure_type, "struct " }, { DW_TAG_union_type, "union " },
    { DW_TAG_class_type, "class " }, { DW_TAG_typedef, "" },
  };
  int tag = dwarf_tag (die);
  const char *kw = NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (kinds[i].tag == tag)
      kw = kinds[i].kw;
  const char *name = kw ? dwarf_diename (die) : NULL;
  Dwarf_Word size;
  if (!name || dwarf_hasattr (die, DW_AT_declaration)
      || dwarf_aggregate_size (die, &size) != 0 || size > HI_BIN_MAX)
    return;
  char buf[512];
  snprintf (buf, sizeof buf, "%s%s", kw, name);
  uint32_t n = seen->n;
  uint32_t id = hi_strtab_intern (seen, buf);
  if (id == UINT32_MAX || seen->n == n)
    return;      /* already listed */
  uint32_t old = s->type_names[size];
  char joined[2048];
  const char *prev = old ? s->names.strs[old - 1] : NULL;
  if (prev && strlen (prev) + strlen (buf) + 3 >= sizeof joined)
    return;
  snprintf (joined, sizeof joined, "%s%s%s", prev ? prev : "",
            prev ? ", " : "", buf);
  uint32_t j = hi_strtab_intern (&s->names, joined);
  if (j != UINT32_MAX)
    s->type_names[size] = j + 1;
}

/* Top-level types of each unit, and those inside C++ namespaces. */
static void
scan_types (struct hi_symbolizer *s, Dwarf_Die *parent,
            struct hi_strtab *seen, int depth)
{
  Dwarf_Die child;
  if (depth > 8 || dwarf_child (parent, &child) != 0)
    return;
  do
    {
      if (dwarf_tag (&child) == DW_TAG_namespace)
        scan_types (s, &child, seen, depth + 1);
      else
        note_type (s, &child, seen);
    }
  while (dwarf_siblingof (&child, &child) == 0);
}

const char *
hi_types_of_size (struct hi_symbolizer *s, uint64_t size)
{
  if (!s->types_done)
    {
      s->types_done = 1;
      Dwarf_Addr bias;
      Dwarf *dw = s->main_module ? dwfl_module_getdwarf (s->main_module, &bias)
                                 : NULL;
      struct hi_strtab seen;
      hi_strtab_init (&seen);
      Dwarf_Off off = 0, next;
      size_t hsize;
      while (dw && dwarf_nextcu (dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
        {
          Dwarf_Die cu;
          if (dwarf_offdie (dw, off + hsize, &cu))
            scan_types (s, &cu, &seen, 0);
          off = next;
        }
      hi_strtab_free (&seen);
    }
  if (size > HI_BIN_MAX || !s->type_names[size])
    return NULL;
  return s->names.strs[s->type_names[size] - 1];
}
