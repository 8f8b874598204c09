/* symbolize.c - code addresses to function, module and line, and sizes to
   type names, from the monitor's module list with libdwfl. */
#define _GNU_SOURCE
#include "symbolize.h"
#include "strtab.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
  /* Loaded modules by start address, for module+offset when libdwfl has
     no file for an address. */
  const struct hi_module **loaded;
  size_t nloaded;
};

/* 1 if PATH exists and is not a regular file (a FIFO would block libdwfl's
   open, and gdb with it). */
static int
irregular (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && !S_ISREG (st.st_mode);
}

/* libdwfl's standard search, unless a place it would open holds
   something other than a regular file: the debuglink name (chosen by the
   file an input names) in the file's directory, its .debug and under
   /usr/lib/debug, and the build-id path. */
static int
find_debuginfo (Dwfl_Module *mod, void **userdata, const char *modname,
                Dwarf_Addr base, const char *file_name,
                const char *debuglink_file, GElf_Word debuglink_crc,
                char **debuginfo_file_name)
{
  char path[4096];
  if (debuglink_file && file_name && !strchr (debuglink_file, '/'))
    {
      const char *slash = strrchr (file_name, '/');
      int dir = slash ? (int) (slash - file_name) : 0;
      static const char *const forms[] = {
        "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s",
      };
      for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        {
          snprintf (path, sizeof path, forms[i], dir, file_name,
                    debuglink_file);
          if (irregular (path))
            return -1;
        }
      snprintf (path, sizeof path, "/usr/lib/debug/%s", debuglink_file);
      if (irregular (path))
        return -1;
    }
  const unsigned char *id;
  GElf_Addr vaddr;
  int n = dwfl_module_build_id (mod, &id, &vaddr);
  if (n > 1)
    {
      int at = snprintf (path, sizeof path, "/usr/lib/debug/.build-id/%02x/",
                         id[0]);
      for (int i = 1; i < n && at < (int) sizeof path - 8; i++)
        at += snprintf (path + at, sizeof path - (size_t) at, "%02x", id[i]);
      snprintf (path + at, sizeof path - (size_t) at, ".debug");
      if (irregular (path))
        return -1;
    }
  return dwfl_standard_find_debuginfo (mod, userdata, modname, base,
                                       file_name, debuglink_file,
                                       debuglink_crc, debuginfo_file_name);
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = find_debuginfo,
  .debuginfo_path = &debuginfo_path,
};

/* A copy of STR owned by S, control characters escaped (names come from
   files an input names). */
static const char *
keep (struct hi_symbolizer *s, const char *str)
{
  char safe[2048];
  hi_escape (str, safe, sizeof safe);
  uint32_t id = hi_strtab_intern (&s->names, safe);
  return id == UINT32_MAX ? NULL : s->names.strs[id];
}

/* The path module I of M is read from: EXE for the main executable if
   given (relative to the current directory, as the user typed it), else
   the recorded path.  Into BUF. */
static const char *
module_path (const struct hi_model *m, uint64_t i, const char *exe,
             char *buf, size_t size)
{
  if (i != 0 || !exe)
    return m->modules[i].path;
  if (exe[0] == '/' || !getcwd (buf, size))
    return exe;
  size_t n = strlen (buf);
  snprintf (buf + n, size - n, "/%s", exe);
  return buf;
}

/* Whether module REC can be symbolized from the file at PATH: HI_MOD_OK
   with *FD open on it, or why not (*ERR: errno for HI_MOD_UNREADABLE). */
static enum hi_module_problem
check_module (const struct hi_module *rec, const char *path, int *fd,
              int *err)
{
  *fd = -1;
  *err = 0;
  if (path[0] != '/')
    return HI_MOD_NO_FILE;       /* the vdso, or nothing recorded */
  if (rec->flags & HI_MODULE_PATH_CUT)
    return HI_MOD_PATH_CUT;
  *fd = hi_open_regular (path);
  if (*fd < 0)
    {
      *err = errno;
      return HI_MOD_UNREADABLE;
    }
  if (rec->build_id_len == 0)
    return HI_MOD_OK;
  /* A file rebuilt since the run would name the wrong functions. */
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (*fd, ELF_C_READ_MMAP, NULL);
  const void *id = NULL;
  ssize_t n = elf ? dwelf_elf_gnu_build_id (elf, &id) : -1;
  int same = n <= 0 || ((size_t) n == rec->build_id_len
                        && memcmp (id, rec->build_id, (size_t) n) == 0);
  if (elf)
    elf_end (elf);
  if (same)
    return HI_MOD_OK;
  close (*fd);
  *fd = -1;
  return HI_MOD_BUILD_ID;
}

static int
by_start (const void *x, const void *y)
{
  const struct hi_module *a = *(const struct hi_module *const *) x;
  const struct hi_module *b = *(const struct hi_module *const *) y;
  return a->start < b->start ? -1 : a->start > b->start;
}

struct hi_symbolizer *
hi_symbolizer_new (const struct hi_model *m, const char *exe)
{
  struct hi_symbolizer *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  hi_strtab_init (&s->names);
  s->dwfl = dwfl_begin (&callbacks);
  s->loaded = calloc (m->n_modules + 1, sizeof *s->loaded);
  if (!s->dwfl || !s->loaded)
    {
      hi_symbolizer_free (s);
      return NULL;
    }
  dwfl_report_begin (s->dwfl);
  for (uint64_t i = 0; i < m->n_modules; i++)
    {
      const struct hi_module *rec = &m->modules[i];
      /* Modules may overlap when one was unloaded and another loaded at
         its place: the loaded one wins, reported last. */
      if (!(rec->flags & HI_MODULE_LOADED))
        continue;
      if (rec->path[0] && rec->end > rec->start)
        s->loaded[s->nloaded++] = rec;
      char buf[4096];
      const char *path = module_path (m, i, exe, buf, sizeof buf);
      int fd, err;
      enum hi_module_problem p = check_module (rec, path, &fd, &err);
      if (p != HI_MOD_OK)
        {
          s->missing += p != HI_MOD_NO_FILE;
          continue;
        }
      Dwfl_Module *mod = dwfl_report_elf (s->dwfl, path, path, fd,
                                          rec->bias, true);
      if (!mod)
        {
          close (fd);
          s->missing++;
          continue;
        }
      if (i == 0)
        s->main_module = mod;
    }
  dwfl_report_end (s->dwfl, NULL, NULL);
  qsort (s->loaded, s->nloaded, sizeof *s->loaded, by_start);
  return s;
}

void
hi_modules_check (const struct hi_model *m, const char *exe,
                  void (*say) (void *ctx, const char *path,
                               enum hi_module_problem p, int err),
                  void *ctx)
{
  for (uint64_t i = 0; i < m->n_modules; i++)
    {
      const struct hi_module *rec = &m->modules[i];
      if (!(rec->flags & HI_MODULE_LOADED))
        continue;
      char buf[4096];
      const char *path = module_path (m, i, exe, buf, sizeof buf);
      int fd, err;
      enum hi_module_problem p = check_module (rec, path, &fd, &err);
      if (fd >= 0)
        close (fd);
      if (p != HI_MOD_OK && p != HI_MOD_NO_FILE)
        say (ctx, path, p, err);
    }
}

void
hi_symbolizer_free (struct hi_symbolizer *s)
{
  if (!s)
    return;
  if (s->dwfl)
    dwfl_end (s->dwfl);
  hi_strtab_free (&s->names);
  free (s->loaded);
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
    {
      /* No file for it: module+offset from what the monitor recorded. */
      size_t lo = 0, hi = s->nloaded;
      while (lo < hi)
        {
          size_t mid = lo + (hi - lo) / 2;
          if (s->loaded[mid]->start <= addr)
            lo = mid + 1;
          else
            hi = mid;
        }
      const struct hi_module *rec = lo ? s->loaded[lo - 1] : NULL;
      if (rec && addr < rec->end)
        {
          out->module = keep (s, base_name (rec->path));
          out->module_offset = addr - rec->bias;
        }
      return;
    }
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
