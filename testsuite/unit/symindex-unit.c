/* symindex-unit.c - unit tests of the symbolizer's two address indexes
   against the libdw/libdwfl calls they stand for, which serve as the
   oracle: hi_dwscopes_pc and hi_dwscopes_die (dwscopes.c) must give the
   DIEs dwarf_getscopes and dwarf_getscopes_die give, and
   hi_modsyms_addrinfo the symbol dwfl_module_addrinfo gives, for every
   line-table address, every top-level DIE's range ends and every
   symbol's ends, in this program itself (C at -O2: inlined code), the C
   library it runs with, and the files named on the command line (the
   .exp passes the C++ and inlining test programs).  Also that the
   indexes answer most lookups themselves (the point of them).  Prints
   "PASS: name" or "FAIL: name: why" per check; exit status 1 if any
   failed.
   usage: symindex-unit [ELF...] */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/dwscopes.h"
#include "symbols/modsyms.h"
#include "unit-check.h"

static char *debuginfo_path;
static const Dwfl_Callbacks offline = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
  .debuginfo_path = &debuginfo_path,
};

/* A line of detail for the log (the .exp prints it with verbose). */
static void verbose (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));

static void
verbose (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("NOTE: ", stdout);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
}

/* At most this many addresses per unit: an oracle lookup walks the
   whole unit. */
#define PER_UNIT 200
#define MAX_UNITS 150

struct tally
{
  uint64_t lookups, differ, die_lookups, die_differ;
  char first[512];           /* the first difference */
  char first_die[512];       /* ... of the DIE lookups */
};

/* 1 if the N DIEs at A and B are the same DIEs (by their place in
   libdw's data). */
static int
same_dies (const Dwarf_Die *a, const Dwarf_Die *b, int n)
{
  for (int i = 0; i < n; i++)
    if (a[i].addr != b[i].addr || a[i].cu != b[i].cu)
      return 0;
  return 1;
}

static void
compare_die (struct hi_dwscopes *ix, Dwarf_Die *die, struct tally *t)
{
  Dwarf_Die *s1 = NULL, *s2 = NULL;
  int n1 = hi_dwscopes_die (ix, die, &s1);
  int n2 = dwarf_getscopes_die (die, &s2);
  t->die_lookups++;
  if (n1 != n2 || (n1 > 0 && !same_dies (s1, s2, n1)))
    {
      if (!t->die_differ++)
        snprintf (t->first_die, sizeof t->first_die,
                  "DIE 0x%" PRIx64 ": %d scopes, libdw %d",
                  (uint64_t) dwarf_dieoffset (die), n1, n2);
    }
  if (n1 > 0)
    free (s1);
  if (n2 > 0)
    free (s2);
}

static void
compare_pc (struct hi_dwscopes *ix, Dwarf_Die *cu, Dwarf_Addr pc,
            struct tally *t)
{
  Dwarf_Die *s1 = NULL, *s2 = NULL;
  int n1 = hi_dwscopes_pc (ix, cu, pc, &s1);
  int n2 = dwarf_getscopes (cu, pc, &s2);
  t->lookups++;
  if (n1 != n2 || (n1 > 0 && !same_dies (s1, s2, n1)))
    {
      if (!t->differ++)
        snprintf (t->first, sizeof t->first,
                  "pc 0x%" PRIx64 ": %d scopes, libdw %d", (uint64_t) pc,
                  n1, n2);
    }
  /* Each scope's own chain of parents (the inlined instances' callers
     are found so). */
  for (int i = 0; i < n2; i++)
    if (i == 0 || dwarf_tag (&s2[i]) == DW_TAG_inlined_subroutine)
      compare_die (ix, &s2[i], t);
  if (n1 > 0)
    free (s1);
  if (n2 > 0)
    free (s2);
}

/* Units of DW (at most MAX_UNITS, evenly spread: the C library has
   thousands): their line-table addresses (at most PER_UNIT, evenly
   spread), and both ends of each top-level DIE's ranges. */
static void
test_scopes (Dwarf *dw, const char *tag, int expect_fast)
{
  struct hi_dwscopes *ix = hi_dwscopes_new ();
  struct tally t = { 0 };
  uint64_t fallbacks = hi_dwscopes_fallbacks;
  Dwarf_Off off = 0, next;
  size_t hsize, units = 0;
  while (dwarf_nextcu (dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
    units++, off = next;
  size_t every = units > MAX_UNITS ? units / MAX_UNITS : 1;
  off = 0;
  for (size_t unit = 0; ix && dwarf_nextcu (dw, off, &next, &hsize, NULL,
                                            NULL, NULL) == 0; unit++)
    {
      Dwarf_Die cu;
      Dwarf_Off at = off;
      off = next;
      if (unit % every != 0)
        continue;
      if (!dwarf_offdie (dw, at + hsize, &cu))
        break;
      Dwarf_Lines *lines;
      size_t nlines = 0;
      if (dwarf_getsrclines (&cu, &lines, &nlines) != 0)
        nlines = 0;
      size_t step = nlines > PER_UNIT ? nlines / PER_UNIT : 1;
      for (size_t i = 0; i < nlines; i += step)
        {
          Dwarf_Addr pc;
          if (dwarf_lineaddr (dwarf_onesrcline (lines, i), &pc) == 0)
            compare_pc (ix, &cu, pc, &t);
        }
      Dwarf_Die kid;
      if (dwarf_child (&cu, &kid) != 0)
        continue;
      do
        {
          Dwarf_Addr base, lo, hi;
          ptrdiff_t r = 0;
          while ((r = dwarf_ranges (&kid, r, &base, &lo, &hi)) > 0)
            {
              compare_pc (ix, &cu, lo, &t);
              compare_pc (ix, &cu, hi - 1, &t);
              compare_pc (ix, &cu, hi, &t);
            }
        }
      while (dwarf_siblingof (&kid, &kid) == 0);
    }
  char name[256];
  verbose ("%s: %" PRIu64 " addresses, %" PRIu64 " DIEs, %" PRIu64
           " to libdw", tag, t.lookups, t.die_lookups,
           hi_dwscopes_fallbacks - fallbacks);
  snprintf (name, sizeof name, "scopes in %s are libdw's at every address",
            tag);
  check (ix && t.lookups > 0 && !t.differ, name, "%" PRIu64 " of %" PRIu64
         " differ; first: %s", t.differ, t.lookups, t.first);
  snprintf (name, sizeof name, "scopes holding each DIE of %s are libdw's",
            tag);
  check (ix && t.die_lookups > 0 && !t.die_differ, name, "%" PRIu64 " of %"
         PRIu64 " differ; first: %s", t.die_differ, t.die_lookups,
         t.first_die);
  if (expect_fast)
    {
      /* Our own code (-O2, inlined functions, lexical blocks): the
         index answers nearly every lookup without libdw's walk. */
      uint64_t slow = hi_dwscopes_fallbacks - fallbacks;
      snprintf (name, sizeof name, "scope index answers 99%% of the lookups "
                "in %s", tag);
      check (slow * 100 <= t.lookups + t.die_lookups, name,
             "%" PRIu64 " of %" PRIu64 " went to libdw", slow,
             t.lookups + t.die_lookups);
    }
  hi_dwscopes_free (ix);
}

/* Compare the index's symbol for ADDR with libdwfl's. */
static void
compare_sym (struct hi_modsyms *ms, Dwfl_Module *mod, uint64_t addr,
             struct tally *t)
{
  GElf_Off o1 = 0, o2 = 0;
  GElf_Sym s1, s2;
  memset (&s1, 0, sizeof s1);
  memset (&s2, 0, sizeof s2);
  const char *n1 = hi_modsyms_addrinfo (ms, addr, &o1, &s1);
  const char *n2 = dwfl_module_addrinfo (mod, addr, &o2, &s2, NULL, NULL,
                                         NULL);
  t->lookups++;
  int same = n1 == n2
             && (!n1 || (o1 == o2 && memcmp (&s1, &s2, sizeof s1) == 0));
  if (!same && !t->differ++)
    snprintf (t->first, sizeof t->first, "0x%" PRIx64 ": %s+%" PRIu64
              ", libdwfl %s+%" PRIu64, addr, n1 ? n1 : "(none)",
              (uint64_t) o1, n2 ? n2 : "(none)", (uint64_t) o2);
}

/* Every symbol's start, middle, last byte and the bytes just outside,
   and addresses spread over the module. */
static void
test_symbols (Dwfl_Module *mod, const char *tag, int expect_fast)
{
  struct hi_modsyms *ms = hi_modsyms_new (mod);
  struct tally t = { 0 };
  uint64_t inside = 0, inside_slow = 0;
  int n = ms ? dwfl_module_getsymtab (mod) : -1;
  int every = n > 1500 ? n / 1500 : 1;   /* the oracle reads them all */
  for (int i = 1; i < n; i += every)
    {
      GElf_Sym sym;
      GElf_Addr value;
      if (!dwfl_module_getsym_info (mod, i, &sym, &value, NULL, NULL, NULL))
        continue;
      uint64_t at[] = { value - 1, value, value + sym.st_size - 1,
                        value + sym.st_size };
      for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
        compare_sym (ms, mod, at[k], &t);
      /* Where calls are: inside a function. */
      if (GELF_ST_TYPE (sym.st_info) == STT_FUNC && sym.st_size > 1)
        {
          uint64_t before = hi_modsyms_fallbacks;
          compare_sym (ms, mod, value + sym.st_size / 2, &t);
          inside++;
          inside_slow += hi_modsyms_fallbacks - before;
        }
    }
  Dwarf_Addr start, end;
  dwfl_module_info (mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
  uint64_t step = (end - start) / 1024 + 1;
  for (uint64_t a = start; ms && a < end; a += step)
    compare_sym (ms, mod, a, &t);
  char name[256];
  verbose ("%s: %" PRIu64 " addresses, %" PRIu64 " inside functions, %"
           PRIu64 " of those to libdwfl", tag, t.lookups, inside, inside_slow);
  snprintf (name, sizeof name, "symbols of %s are libdwfl's at every "
            "address", tag);
  check (ms && t.lookups > 0 && !t.differ, name, "%" PRIu64 " of %" PRIu64
         " differ; first: %s", t.differ, t.lookups, t.first);
  if (expect_fast)
    {
      /* Inside a function one sized symbol holds the address (several
         for aliases): answered by the index. */
      snprintf (name, sizeof name, "symbol index answers 90%% of the lookups "
                "inside functions of %s", tag);
      check (inside > 0 && inside_slow * 10 <= inside, name, "%" PRIu64
             " of %" PRIu64 " went to libdwfl", inside_slow, inside);
    }
  hi_modsyms_free (ms);
}

static void
test_file (const char *path, const char *tag, int expect_fast)
{
  Dwfl *dwfl = dwfl_begin (&offline);
  Dwfl_Module *mod = dwfl ? dwfl_report_offline (dwfl, path, path, -1)
                          : NULL;
  if (dwfl)
    dwfl_report_end (dwfl, NULL, NULL);
  char name[256];
  snprintf (name, sizeof name, "libdwfl reads %s", tag);
  check (mod != NULL, name, "%s: %s", path, dwfl_errmsg (-1));
  if (mod)
    {
      test_symbols (mod, tag, expect_fast);
      Dwarf_Addr bias;
      Dwarf *dw = dwfl_module_getdwarf (mod, &bias);
      if (dw)
        test_scopes (dw, tag, expect_fast);
      else if (expect_fast)
        {
          snprintf (name, sizeof name, "%s has DWARF", tag);
          check (0, name, "%s", path);
        }
    }
  if (dwfl)
    dwfl_end (dwfl);
}

/* The library this program runs with whose file name starts with
   PREFIX, from its maps, into OUT. */
static int
lib_path (const char *prefix, char *out, size_t size)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  char line[PATH_MAX + 128];
  int found = 0;
  while (f && !found && fgets (line, sizeof line, f))
    {
      char *p = strchr (line, '/');
      const char *base = p ? strrchr (p, '/') + 1 : NULL;
      if (base && strncmp (base, prefix, strlen (prefix)) == 0)
        {
          p[strcspn (p, "\n")] = '\0';
          snprintf (out, size, "%s", p);
          found = 1;
        }
    }
  if (f)
    fclose (f);
  return found;
}

int
main (int argc, char **argv)
{
  char self[PATH_MAX], lib[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  check (n > 0, "symindex finds its own executable", "readlink");
  if (n > 0)
    {
      self[n] = '\0';
      test_file (self, "itself", 1);
    }
  /* The C library, and libstdc++ (the reader links it): many aliases,
     local and global symbols of one address. */
  static const char *const libs[] = { "libc.so", "libstdc++.so" };
  for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
    {
      char name[128];
      snprintf (name, sizeof name, "%s is found in /proc/self/maps",
                libs[i]);
      if (lib_path (libs[i], lib, sizeof lib))
        test_file (lib, libs[i], 0);
      else
        check (0, name, "not mapped");
    }
  /* Files named on the command line; after --fast, the index must
     answer most of their lookups too. */
  int fast = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--fast") == 0)
        {
          fast = 1;
          continue;
        }
      const char *slash = strrchr (argv[i], '/');
      test_file (argv[i], slash ? slash + 1 : argv[i], fast);
    }
  return failed;
}
