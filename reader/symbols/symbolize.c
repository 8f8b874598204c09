/* symbolize.c - code addresses to function, module and line, and sizes to
   type names, from the monitor's module list with libdwfl. */
#define _GNU_SOURCE
#include "model/model.h"
#include "symbols/symbolize.h"
#include "symbols/dwscopes.h"
#include "symbols/modsyms.h"
#include "util/strtab.h"
#include "util/sort.h"

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

struct hi_symbolizer
{
  Dwfl *dwfl;
  Dwfl_Module *main_module;
  struct hi_dwscopes *scopes;  /* every module's units by address */
  struct hi_strtab names;      /* owns every string handed out */
  unsigned missing;
  int types_done;
  uint32_t type_names[HI_BIN_MAX + 1];   /* strtab id + 1, 0 = none */
  /* Loaded modules by start address, for module+offset when libdwfl has
     no file for an address. */
  const struct hi_module **loaded;
  size_t nloaded;
};

/* The symbol and .eh_frame tables of MOD, kept in libdwfl's slot for
   the module's user data; NULL if out of memory. */
static struct hi_modsyms *
modsyms_of (Dwfl_Module *mod)
{
  void **slot = NULL;
  dwfl_module_info (mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL);
  if (slot && !*slot)
    *slot = hi_modsyms_new (mod);
  return slot ? *slot : NULL;
}

static int
free_modsyms (Dwfl_Module *mod, void **slot, const char *name,
              Dwarf_Addr start, void *arg)
{
  (void) mod, (void) name, (void) start, (void) arg;
  hi_modsyms_free (*slot);
  *slot = NULL;
  return DWARF_CB_OK;
}

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
   /usr/lib/debug, and the build-id path.  A debuglink is a file name
   (objcopy keeps the base name); one holding a '/' could reach any file
   or device, so it is not followed, and libdwfl looks for the default
   name (the file's base name and ".debug") in the same places. */
static int
find_debuginfo (Dwfl_Module *mod, void **userdata, const char *modname,
                Dwarf_Addr base, const char *file_name,
                const char *debuglink_file, GElf_Word debuglink_crc,
                char **debuginfo_file_name)
{
  char path[4096], fallback[512];
  if (debuglink_file && strchr (debuglink_file, '/'))
    debuglink_file = NULL, debuglink_crc = 0;
  const char *name = debuglink_file;
  if (!name && file_name)
    {
      const char *slash = strrchr (file_name, '/');
      snprintf (fallback, sizeof fallback, "%s.debug",
                slash ? slash + 1 : file_name);
      name = fallback;
    }
  if (name && file_name)
    {
      const char *slash = strrchr (file_name, '/');
      int dir = slash ? (int) (slash - file_name) : 0;
      static const char *const forms[] = {
        "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s",
      };
      for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        {
          snprintf (path, sizeof path, forms[i], dir, file_name, name);
          if (irregular (path))
            return -1;
        }
      snprintf (path, sizeof path, "/usr/lib/debug/%s", name);
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
  /* Code is read only from an executable or a shared library: not from
     a text file or a core named in their place. */
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (*fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr eh;
  enum hi_module_problem p = HI_MOD_OK;
  if (!elf || elf_kind (elf) != ELF_K_ELF || !gelf_getehdr (elf, &eh)
      || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
    p = HI_MOD_NOT_PROGRAM;
  else if (rec->build_id_len)
    {
      /* A file rebuilt since the run would name the wrong functions. */
      const void *id = NULL;
      ssize_t n = dwelf_elf_gnu_build_id (elf, &id);
      if (n > 0 && ((size_t) n != rec->build_id_len
                    || memcmp (id, rec->build_id, (size_t) n) != 0))
        p = HI_MOD_BUILD_ID;
    }
  if (elf)
    elf_end (elf);
  if (p != HI_MOD_OK)
    {
      close (*fd);
      *fd = -1;
    }
  return p;
}

static int
by_start (const void *x, const void *y)
{
  const struct hi_module *a = *(const struct hi_module *const *) x;
  const struct hi_module *b = *(const struct hi_module *const *) y;
  return hi_cmp_u64 (a->start, b->start);
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
  s->scopes = hi_dwscopes_new ();
  if (!s->dwfl || !s->loaded || !s->scopes)
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
    {
      dwfl_getmodules (s->dwfl, free_modsyms, NULL, 0);
      dwfl_end (s->dwfl);
    }
  hi_dwscopes_free (s->scopes);
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

/* Where the monitor recorded ADDR when libdwfl has no file for it: the
   module's base name and offset into OUT, or nothing. */
static void
recorded_module (struct hi_symbolizer *s, uint64_t addr, struct hi_code *out)
{
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
}

/* The function holding ADDR of MOD as OUT names it: its symbol (the
   canonical alias, clone suffixes dropped, demangled), or else, from
   .eh_frame, where its code starts. */
static void
function_of (struct hi_symbolizer *s, Dwfl_Module *mod, uint64_t addr,
             struct hi_code *out)
{
  GElf_Off off;
  GElf_Sym sym;
  struct hi_modsyms *ms = modsyms_of (mod);
  const char *name = ms ? hi_modsyms_addrinfo (ms, addr, &off, &sym)
                        : dwfl_module_addrinfo (mod, addr, &off, &sym, NULL,
                                                NULL, NULL);
  if (name)
    {
      char clean[1024];
      if (ms)
        name = hi_modsyms_canonical (ms, addr - off, sym.st_size, name);
      hi_clean_name (name, clean, sizeof clean);
      out->function = keep (s, clean);
      /* The symbol without its version (@@GLIBC_2.2.5), as tools
         that symbolize by address name it. */
      char sym_name[1024];
      snprintf (sym_name, sizeof sym_name, "%.*s", (int) strcspn (name, "@"),
                name);
      out->linkage_name = keep (s, sym_name);
      out->function_offset = off;
    }
  else if (ms && hi_modsyms_func_start (ms, out->module_offset,
                                        &out->code_start))
    out->has_start = 1;
}

/* DIE's string attribute AT, else its origin's or specification's; NULL
   if none has one. */
static const char *
die_string (Dwarf_Die *die, unsigned int at)
{
  Dwarf_Attribute attr;
  return dwarf_formstring (dwarf_attr_integrate (die, at, &attr));
}

/* DIE's linkage name (DWARF's attribute, else the older MIPS one), or
   NULL. */
static const char *
die_mangled_name (Dwarf_Die *die)
{
  const char *name = die_string (die, DW_AT_linkage_name);
  return name ? name : die_string (die, DW_AT_MIPS_linkage_name);
}

/* The name of a function's DIE (a subprogram or an inlined instance of
   one): its linkage name demangled, else its name; into BUF, or NULL. */
static const char *
die_name (Dwarf_Die *die, char *buf, size_t size)
{
  /* C++ names qualified from the mangled name; C's linkage names are
     assembler names (glibc's __GI_ aliases), not what the user wrote. */
  const char *name = die_mangled_name (die);
  if (!name || name[0] != '_' || name[1] != 'Z')
    name = die_string (die, DW_AT_name);
  if (!name)
    return NULL;
  hi_clean_name (name, buf, size);
  return buf;
}

/* The name of a function's DIE as the object file names it: its linkage
   name (mangled for C++), else its name; NULL if none. */
static const char *
die_linkage_name (Dwarf_Die *die)
{
  const char *name = die_mangled_name (die);
  return name ? name : die_string (die, DW_AT_name);
}

/* ADDR's scopes in the DIE tree, innermost first (lexical blocks,
   inlined instances, the subprogram, the unit), into *SCOPES (malloc'd);
   how many, 0 if none. */
static int
physical_scopes (struct hi_symbolizer *s, Dwfl_Module *mod, uint64_t addr,
                 Dwarf_Die **scopes)
{
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie (mod, addr, &bias);
  *scopes = NULL;
  int n = cu ? hi_dwscopes_pc (s->scopes, cu, addr - bias, scopes) : 0;
  if (n <= 0)
    {
      free (*scopes);
      *scopes = NULL;
      return 0;
    }
  /* dwarf_getscopes follows an inlined instance to its abstract
     definition's scopes (for variables); the callers it was inlined into
     are its parents in the tree. */
  int inlined = 0;
  for (int i = 0; i < n && !inlined; i++)
    inlined = dwarf_tag (&(*scopes)[i]) == DW_TAG_inlined_subroutine;
  if (!inlined)
    return n;
  Dwarf_Die inner = (*scopes)[0];
  free (*scopes);
  *scopes = NULL;
  n = hi_dwscopes_die (s->scopes, &inner, scopes);
  if (n <= 0)
    {
      free (*scopes);
      *scopes = NULL;
      return 0;
    }
  return n;
}

size_t
hi_symbolize_frames (struct hi_symbolizer *s, uint64_t addr, int lines,
                     struct hi_code *out, size_t max)
{
  struct hi_code where;      /* the out-of-line function holding ADDR */
  memset (&where, 0, sizeof where);
  memset (out, 0, sizeof *out);
  Dwfl_Module *mod = dwfl_addrmodule (s->dwfl, addr);
  if (!mod)
    {
      recorded_module (s, addr, out);
      return 1;
    }
  Dwarf_Addr start;
  const char *mname = dwfl_module_info (mod, NULL, &start, NULL, NULL, NULL,
                                        NULL, NULL);
  where.module = mname ? keep (s, base_name (mname)) : NULL;
  Dwarf_Addr bias = 0;
  dwfl_module_getelf (mod, &bias);
  where.module_offset = addr - bias;
  function_of (s, mod, addr, &where);
  if (!lines)
    {
      *out = where;
      return 1;
    }
  /* The line ADDR's code came from: the innermost frame's. */
  const char *file = NULL;
  int line = 0;
  Dwfl_Line *l = dwfl_module_getsrc (mod, addr);
  if (l)
    {
      file = dwfl_lineinfo (l, NULL, &line, NULL, NULL, NULL);
      if (!file)
        line = 0;
    }
  /* One frame per inlined instance holding ADDR, innermost first: the
     inlined function at the current line, which then becomes its call's
     line in the caller.  The out-of-line function is always the last
     frame, so inlined ones past MAX - 1 are dropped. */
  size_t n = 0;
  Dwarf_Die *scopes;
  int nscopes = physical_scopes (s, mod, addr, &scopes);
  Dwarf_Files *files = NULL;
  Dwarf_Die cu;
  if (nscopes > 0 && dwarf_diecu (&scopes[0], &cu, NULL, NULL))
    dwarf_getsrcfiles (&cu, &files, NULL);
  for (int i = 0; i < nscopes; i++)
    {
      if (dwarf_tag (&scopes[i]) != DW_TAG_inlined_subroutine)
        continue;
      char buf[1024], outer[1024];
      const char *name = die_name (&scopes[i], buf, sizeof buf);
      /* A function inlined into one of its own name (glibc's wrappers:
         _IO_doallocbuf in _IO_doallocbuf) is one function to its user,
         not a recursion: one frame, at the inner line. */
      int j = i + 1;
      while (j < nscopes && dwarf_tag (&scopes[j]) != DW_TAG_subprogram
             && dwarf_tag (&scopes[j]) != DW_TAG_inlined_subroutine)
        j++;
      const char *caller = j < nscopes
                           ? die_name (&scopes[j], outer, sizeof outer) : NULL;
      if (name && caller && strcmp (name, caller) == 0)
        continue;
      if (n + 1 < max)
        {
          struct hi_code *f = &out[n++];
          memset (f, 0, sizeof *f);
          f->function = keep (s, name ? name : "<inlined>");
          const char *linkage = die_linkage_name (&scopes[i]);
          f->linkage_name = linkage ? keep (s, linkage) : NULL;
          f->module = where.module;
          f->module_offset = where.module_offset;
          f->file = file ? keep (s, file) : NULL;
          f->line = file ? line : 0;
          f->inlined = 1;
        }
      Dwarf_Attribute attr;
      Dwarf_Word v;
      file = NULL;
      line = 0;
      if (files
          && dwarf_formudata (dwarf_attr (&scopes[i], DW_AT_call_file, &attr),
                              &v) == 0)
        file = dwarf_filesrc (files, v, NULL, NULL);
      if (file && dwarf_formudata (dwarf_attr (&scopes[i], DW_AT_call_line,
                                               &attr), &v) == 0
          && v <= INT32_MAX)
        line = (int) v;
    }
  free (scopes);
  where.file = file ? keep (s, file) : NULL;
  where.line = where.file ? line : 0;
  out[n++] = where;
  return n;
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

const char *
hi_symbolize_data (struct hi_symbolizer *s, uint64_t addr)
{
  Dwfl_Module *mod = dwfl_addrmodule (s->dwfl, addr);
  if (!mod)
    return NULL;
  GElf_Off off;
  GElf_Sym sym;
  const char *name = dwfl_module_addrinfo (mod, addr, &off, &sym, NULL,
                                           NULL, NULL);
  if (!name || off != 0)
    return NULL;
  char clean[1024];
  hi_clean_name (name, clean, sizeof clean);
  return keep (s, clean);
}
