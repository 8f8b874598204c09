/* attach.c - heapinspect_attach and heapinspect_detach: a monitor
   dlopen'd into a running program starts, and the malloc family of every
   loaded object is redirected to it through the object's GOT (its
   R_X86_64_JUMP_SLOT and R_X86_64_GLOB_DAT entries), as heaptrack's
   injected library does.  dlopen and dlmopen are redirected too, so that
   objects loaded later are patched when they are loaded.  No malloc
   here: the injector calls heapinspect_attach with every other thread
   stopped, maybe inside glibc's malloc. */
#define _GNU_SOURCE
#include "attach.h"
#include "modules.h"
#include "tools.h"
#include "heapinspect/heapinspect.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>

static void *wrap_dlopen (const char *file, int mode);
static void *wrap_dlmopen (Lmid_t ns, const char *file, int mode);

/* The sets, patched in this order: an allocation of ours may then only
   reach a free of ours.  Detach restores SET_ALLOC alone (the blocks
   with headers still go through the monitor's free). */
enum { SET_RELEASE, SET_ALLOC, SET_DL, N_SETS };

static const struct target
{
  const char *name;
  void *to;
  int set;
} targets[] = {
  { "free", (void *) hi_own_free, SET_RELEASE },
  { "realloc", (void *) hi_own_realloc, SET_RELEASE },
  { "reallocarray", (void *) hi_own_reallocarray, SET_RELEASE },
  { "malloc_usable_size", (void *) hi_own_malloc_usable_size, SET_RELEASE },
  { "malloc", (void *) hi_own_malloc, SET_ALLOC },
  { "calloc", (void *) hi_own_calloc, SET_ALLOC },
  { "posix_memalign", (void *) hi_own_posix_memalign, SET_ALLOC },
  { "aligned_alloc", (void *) hi_own_aligned_alloc, SET_ALLOC },
  { "memalign", (void *) hi_own_memalign, SET_ALLOC },
  { "valloc", (void *) hi_own_valloc, SET_ALLOC },
  { "pvalloc", (void *) hi_own_pvalloc, SET_ALLOC },
  { "dlopen", (void *) wrap_dlopen, SET_DL },
  { "dlmopen", (void *) wrap_dlmopen, SET_DL },
};
#define N_TARGETS (sizeof targets / sizeof *targets)

/* Every GOT entry patched, with the value it had: restored by detach
   (the last record of an address wins: an object unloaded and another
   loaded in its place is patched anew). */
struct saved
{
  uint64_t *slot;
  uint64_t orig;
  uint32_t target;
  uint32_t relro;          /* its page is one of the object's RELRO
                              pages (read-only but around a write) */
};
#define SAVED_MAX (1u << 16)
static struct saved *saved;
static uint32_t n_saved;
static hi_lock attach_lock;
static char error[256];

/* What a pass over the loaded objects does: patch entries, restore
   them, or only read libc's own entry for malloc. */
enum { PASS_PATCH, PASS_RESTORE, PASS_CHECK, PASS_CANON };

struct pass
{
  int what;
  unsigned sets;           /* 1 << SET_*: the entries it touches */
  uint64_t libc_lo, libc_hi; /* libc.so.6's code: glibc's functions */
  uint64_t self_lo, self_hi; /* this library */
  uint64_t interp;         /* ld.so's load address */
  uint32_t first_new;      /* n_saved when the pass began */
  int failed;              /* an mprotect failed: error says where */
  int foreign_malloc;      /* libc's malloc entry is someone else's */
  uint64_t libc_malloc;    /* PASS_CHECK: its value */
  int objects;             /* objects seen by this pass */
  /* The program's canonical PLT entries (PASS_CANON): built without
     -pie and taking a function's address, it makes its PLT entry the
     function's address for every object; that entry jumps through the
     program's own GOT entry, patched as any other. */
  uint64_t canon[N_TARGETS];
};

static void
set_error (const char *a, const char *b, const char *c)
{
  size_t n = 0;
  const char *parts[] = { a, b, c };
  for (int i = 0; i < 3; i++)
    for (const char *s = parts[i]; s && *s && n + 1 < sizeof error; s++)
      error[n++] = *s;
  error[n] = '\0';
}

/* The range of OBJ's executable segments in [*LO, *HI). */
static void
code_range (const struct dl_phdr_info *obj, uint64_t *lo, uint64_t *hi)
{
  *lo = UINT64_MAX;
  *hi = 0;
  for (int i = 0; i < obj->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &obj->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD)
        continue;
      uint64_t a = obj->dlpi_addr + ph->p_vaddr;
      if (a < *lo)
        *lo = a;
      if (a + ph->p_memsz > *hi)
        *hi = a + ph->p_memsz;
    }
}

static int
in_object (const struct dl_phdr_info *obj, uint64_t addr)
{
  uint64_t lo, hi;
  code_range (obj, &lo, &hi);
  return addr >= lo && addr < hi;
}

static const char *
base_name (const char *path)
{
  const char *b = strrchr (path, '/');
  return b ? b + 1 : path;
}

static int
find_libc (struct dl_phdr_info *obj, size_t size, void *arg)
{
  (void) size;
  struct pass *ps = arg;
  if (obj->dlpi_name && strcmp (base_name (obj->dlpi_name), "libc.so.6") == 0
      && !ps->libc_hi)
    code_range (obj, &ps->libc_lo, &ps->libc_hi);
  if (in_object (obj, (uint64_t) (uintptr_t) hi_own_malloc))
    code_range (obj, &ps->self_lo, &ps->self_hi);
  return 0;
}

/* A d_ptr of a loaded object's dynamic section: glibc relocates most in
   place, not all (the vDSO's). */
static uint64_t
dyn_ptr (const struct dl_phdr_info *obj, uint64_t v)
{
  return v < obj->dlpi_addr ? v + obj->dlpi_addr : v;
}

static int
in_relro (uint64_t *slot, uint64_t relro_lo, uint64_t relro_hi)
{
  uint64_t page = (uint64_t) (uintptr_t) slot
                  & ~(uint64_t) (hi_prim_page_size () - 1);
  return page >= relro_lo && page < relro_hi;
}

/* Write V into SLOT, its page made writable first if RO (one of the
   object's RELRO pages), and read-only again after; any other page is
   left as it is (a lazily bound GOT stays writable for the loader). */
static int
write_slot_ro (uint64_t *slot, uint64_t v, int ro)
{
  uint64_t page = (uint64_t) (uintptr_t) slot
                  & ~(uint64_t) (hi_prim_page_size () - 1);
  if (ro && hi_prim_protect ((void *) (uintptr_t) page,
                             hi_prim_page_size (), 1) != 0)
    return -1;
  __atomic_store_n (slot, v, __ATOMIC_RELEASE);
  if (ro)
    hi_prim_protect ((void *) (uintptr_t) page, hi_prim_page_size (), 0);
  return 0;
}

static int
write_slot (uint64_t *slot, uint64_t v, uint64_t relro_lo, uint64_t relro_hi)
{
  return write_slot_ro (slot, v, in_relro (slot, relro_lo, relro_hi));
}

static int
target_of (const char *name)
{
  for (size_t i = 0; i < N_TARGETS; i++)
    if (strcmp (targets[i].name, name) == 0)
      return (int) i;
  return -1;
}

/* The saved value of SLOT, latest first; 0 if none. */
static uint64_t
saved_value (uint64_t *slot)
{
  for (uint32_t i = n_saved; i-- > 0; )
    if (saved[i].slot == slot)
      return saved[i].orig;
  return 0;
}

static void
one_entry (struct pass *ps, const struct dl_phdr_info *obj,
           const ElfW (Rela) *r, const ElfW (Sym) *symtab,
           const char *strtab, uint64_t relro_lo, uint64_t relro_hi,
           uint64_t obj_lo, uint64_t obj_hi)
{
  uint32_t type = (uint32_t) ELF64_R_TYPE (r->r_info);
  if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
    return;
  uint32_t sym = (uint32_t) ELF64_R_SYM (r->r_info);
  if (sym == 0)
    return;
  int t = target_of (strtab + symtab[sym].st_name);
  if (t < 0 || !(ps->sets & (1u << targets[t].set)))
    return;
  uint64_t *slot = (uint64_t *) (uintptr_t) (obj->dlpi_addr + r->r_offset);
  uint64_t v = __atomic_load_n (slot, __ATOMIC_ACQUIRE);
  uint64_t ours = (uint64_t) (uintptr_t) targets[t].to;
  if (ps->what == PASS_CANON)
    {
      if (symtab[sym].st_shndx == SHN_UNDEF && symtab[sym].st_value)
        ps->canon[t] = obj->dlpi_addr + symtab[sym].st_value;
      return;
    }
  if (ps->what == PASS_CHECK)
    {
      if (t == target_of ("malloc") && obj->dlpi_name
          && strcmp (base_name (obj->dlpi_name), "libc.so.6") == 0)
        ps->libc_malloc = v;
      return;
    }
  if (ps->what == PASS_RESTORE)
    {
      uint64_t orig = v == ours ? saved_value (slot) : 0;
      if (orig)
        write_slot (slot, orig, relro_lo, relro_hi);
      return;
    }
  if (v == ours)
    return;
  int libc_own = v >= ps->libc_lo && v < ps->libc_hi;
  /* An entry not bound yet (lazy binding) holds its PLT stub, in the
     object itself: bound, it would be glibc's (libc's own entry for
     malloc says so). */
  int lazy = v >= obj_lo && v < obj_hi;
  if (!libc_own && !lazy && !(ps->canon[t] && v == ps->canon[t]))
    {
      /* Someone else's malloc (a preloaded allocator, or another
         monitor): libc's own entry for malloc tells. */
      if (t == target_of ("malloc") && obj->dlpi_name
          && strcmp (base_name (obj->dlpi_name), "libc.so.6") == 0)
        ps->foreign_malloc = 1;
      return;
    }
  if (n_saved >= SAVED_MAX)
    {
      ps->failed = 1;
      set_error ("too many GOT entries to patch (more than 65536)", "", "");
      return;
    }
  if (t == target_of ("malloc_usable_size") && libc_own
      && !atomic_load (&hi_state.libc_usable_size))
    atomic_store (&hi_state.libc_usable_size, (size_t (*) (void *)) v);
  saved[n_saved].slot = slot;
  saved[n_saved].orig = v;
  saved[n_saved].target = (uint32_t) t;
  saved[n_saved].relro = (uint32_t) in_relro (slot, relro_lo, relro_hi);
  n_saved++;
  if (write_slot (slot, ours, relro_lo, relro_hi) != 0)
    {
      n_saved--;
      ps->failed = 1;
      set_error ("cannot make the GOT of ",
                 obj->dlpi_name && *obj->dlpi_name ? obj->dlpi_name
                 : "the program", " writable (mprotect refused)");
    }
}

static int
patch_object (struct dl_phdr_info *obj, size_t size, void *arg)
{
  (void) size;
  struct pass *ps = arg;
  if (ps->failed || ps->foreign_malloc
      || (ps->what == PASS_CANON && ps->objects > 0))
    return 0;
  ps->objects++;
  if (obj->dlpi_addr == ps->interp && ps->interp)
    return 0;                        /* ld.so: its malloc is its own */
  uint64_t lo, hi;
  code_range (obj, &lo, &hi);
  if (lo == ps->self_lo)
    return 0;                        /* this library */
  const ElfW (Dyn) *dyn = NULL;
  uint64_t relro_lo = 0, relro_hi = 0;
  uint64_t page = hi_prim_page_size ();
  for (int i = 0; i < obj->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &obj->dlpi_phdr[i];
      if (ph->p_type == PT_DYNAMIC)
        dyn = (const void *) (uintptr_t) (obj->dlpi_addr + ph->p_vaddr);
      else if (ph->p_type == PT_GNU_RELRO)
        {
          /* What the loader made read-only: whole pages only. */
          relro_lo = (obj->dlpi_addr + ph->p_vaddr) & ~(page - 1);
          relro_hi = (obj->dlpi_addr + ph->p_vaddr + ph->p_memsz)
                     & ~(page - 1);
        }
    }
  if (!dyn)
    return 0;
  uint64_t symtab = 0, strtab = 0, rela = 0, relasz = 0, jmprel = 0,
           pltrelsz = 0, pltrel = DT_RELA;
  for (const ElfW (Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
    switch (d->d_tag)
      {
      case DT_SYMTAB: symtab = dyn_ptr (obj, d->d_un.d_ptr); break;
      case DT_STRTAB: strtab = dyn_ptr (obj, d->d_un.d_ptr); break;
      case DT_RELA: rela = dyn_ptr (obj, d->d_un.d_ptr); break;
      case DT_RELASZ: relasz = d->d_un.d_val; break;
      case DT_JMPREL: jmprel = dyn_ptr (obj, d->d_un.d_ptr); break;
      case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
      case DT_PLTREL: pltrel = d->d_un.d_val; break;
      default: break;
      }
  if (!symtab || !strtab)
    return 0;
  const ElfW (Sym) *syms = (const void *) (uintptr_t) symtab;
  const char *strs = (const char *) (uintptr_t) strtab;
  const ElfW (Rela) *r = (const void *) (uintptr_t) rela;
  for (uint64_t i = 0; rela && i < relasz / sizeof *r; i++)
    one_entry (ps, obj, &r[i], syms, strs, relro_lo, relro_hi, lo, hi);
  r = (const void *) (uintptr_t) jmprel;
  for (uint64_t i = 0; jmprel && pltrel == DT_RELA
                       && i < pltrelsz / sizeof *r; i++)
    one_entry (ps, obj, &r[i], syms, strs, relro_lo, relro_hi, lo, hi);
  return 0;
}

static void
pass_init (struct pass *ps, int what, unsigned sets)
{
  memset (ps, 0, sizeof *ps);
  ps->what = what;
  ps->sets = sets;
  ps->interp = hi_prim_interp_base ();
  ps->first_new = n_saved;
  dl_iterate_phdr (find_libc, ps);
  /* The program comes first in the loader's list. */
  ps->what = PASS_CANON;
  dl_iterate_phdr (patch_object, ps);
  ps->what = what;
  ps->objects = 0;
}

/* Put back the entries saved since FIRST (a patch that failed half
   way), newest first. */
static void
undo_since (uint32_t first)
{
  while (n_saved > first)
    {
      n_saved--;
      write_slot_ro (saved[n_saved].slot, saved[n_saved].orig,
                     (int) saved[n_saved].relro);
    }
}

/* Patch SETS in every loaded object, one set after the other; 0, or -1
   with error set and nothing of this call left patched. */
static int
patch_sets (unsigned sets)
{
  uint32_t first = n_saved;
  for (int set = 0; set < N_SETS; set++)
    {
      if (!(sets & (1u << set)))
        continue;
      struct pass ps;
      pass_init (&ps, PASS_PATCH, 1u << set);
      if (!ps.libc_hi)
        {
          set_error ("libc.so.6 is not loaded: the program does not use "
                     "glibc", "", "");
          undo_since (first);
          return -1;
        }
      dl_iterate_phdr (patch_object, &ps);
      if (ps.foreign_malloc)
        set_error ("malloc is not glibc's in this program (a preloaded "
                   "allocator?): not attaching", "", "");
      if (ps.failed || ps.foreign_malloc)
        {
          undo_since (first);
          return -1;
        }
    }
  return 0;
}

/* After a dlopen: the objects it loaded get what the others have. */
static void
patch_new_objects (void)
{
  int a = atomic_load (&hi_state.attach);
  if (a == HI_ATTACH_NONE)
    return;
  hi_lock_acquire (&attach_lock);
  unsigned sets = (1u << SET_RELEASE) | (1u << SET_DL);
  if (atomic_load (&hi_state.attach) == HI_ATTACH_ON)
    sets |= 1u << SET_ALLOC;
  patch_sets (sets);
  hi_lock_release (&attach_lock);
  hi_modules_refresh ();
}

/* 1 if an object whose file is named FILE (a bare name) is loaded:
   dlopen finds it by name whoever calls. */
static int
loaded_as (struct dl_phdr_info *obj, size_t size, void *arg)
{
  (void) size;
  const char *file = arg;
  return obj->dlpi_name && *obj->dlpi_name
         && strcmp (base_name (obj->dlpi_name), file) == 0;
}

struct search
{
  union
  {
    Dl_serinfo si;
    char bytes[4096];
  } buf;
};

/* The directories dlopen searches for a bare name called from the
   object at ADDR, into S; 0, or -1. */
static int
search_list (void *addr, struct search *s)
{
  Dl_info info;
  struct link_map *lm = NULL;
  Dl_serinfo size;
  if (!dladdr1 (addr, &info, (void **) &lm, RTLD_DL_LINKMAP) || !lm
      || dlinfo (lm, RTLD_DI_SERINFOSIZE, &size) != 0
      || size.dls_size > sizeof s->buf)
    return -1;
  s->buf.si.dls_size = size.dls_size;
  s->buf.si.dls_cnt = size.dls_cnt;
  return dlinfo (lm, RTLD_DI_SERINFO, &s->buf.si) == 0 ? 0 : -1;
}

static int
listed (const struct search *s, const char *dir)
{
  for (unsigned i = 0; i < s->buf.si.dls_cnt; i++)
    if (strcmp (s->buf.si.dls_serpath[i].dls_name, dir) == 0)
      return 1;
  return 0;
}

/* glibc searches a bare FILE in the DT_RPATH and DT_RUNPATH of the
   object that called dlopen: the wrapper's call is this library's, not
   the caller's (found by its return address CALLER).  The caller's
   directories come in glibc's order; the first that holds FILE decides:
   one of the caller's own (not in this library's list) gives the path
   into PATH (CAP bytes) and 1; one this library's call searches too
   (LD_LIBRARY_PATH, the default directories) gives 0, and dlopen of
   FILE finds the same file.  0 too when FILE is not bare or is loaded
   already (dlopen finds it by name whoever calls). */
static int
caller_path (const char *file, void *caller, char *path, size_t cap)
{
  static struct search theirs, ours;   /* under attach_lock */
  if (!file || !*file || strchr (file, '/') || !caller
      || dl_iterate_phdr (loaded_as, (void *) file))
    return 0;
  int found = 0;
  hi_lock_acquire (&attach_lock);
  if (search_list (caller, &theirs) == 0
      && search_list ((void *) hi_own_malloc, &ours) == 0)
    {
      size_t flen = strlen (file);
      for (unsigned i = 0; i < theirs.buf.si.dls_cnt; i++)
        {
          const char *dir = theirs.buf.si.dls_serpath[i].dls_name;
          size_t dlen = strlen (dir);
          if (dlen + 1 + flen + 1 > cap)
            continue;
          memcpy (path, dir, dlen);
          path[dlen] = '/';
          memcpy (path + dlen + 1, file, flen + 1);
          if (hi_prim_exists (path))
            {
              found = !listed (&ours, dir);
              break;
            }
        }
    }
  hi_lock_release (&attach_lock);
  return found;
}

static void *
wrap_dlopen (const char *file, int mode)
{
  char path[4096];
  void *h = dlopen (caller_path (file, __builtin_return_address (0), path,
                                 sizeof path) ? path : file, mode);
  if (h)
    {
      int saved_errno = errno;
      patch_new_objects ();
      errno = saved_errno;
    }
  return h;
}

static void *
wrap_dlmopen (Lmid_t ns, const char *file, int mode)
{
  void *h = dlmopen (ns, file, mode);
  if (h)
    {
      int saved_errno = errno;
      patch_new_objects ();
      errno = saved_errno;
    }
  return h;
}

static int
find_loader (struct dl_phdr_info *obj, size_t size, void *arg)
{
  (void) size;
  uint64_t *range = arg;
  if (range[0] && obj->dlpi_addr == range[0])
    code_range (obj, &range[1], &range[2]);
  return 0;
}

/* hi_loader_lo and hi_loader_size: ld.so's range, before any entry
   leads here. */
static void
set_loader_range (void)
{
  uint64_t range[3] = { hi_prim_interp_base (), 0, 0 };
  dl_iterate_phdr (find_loader, range);
  if (range[2] > range[1])
    {
      hi_loader_lo = (uintptr_t) range[1];
      __atomic_store_n (&hi_loader_size, (uintptr_t) (range[2] - range[1]),
                        __ATOMIC_RELEASE);
    }
}

/* The loader's own pointer to _dl_open (GLRO(dl_open)), which glibc's
   dlopen and its internal __libc_dlopen (NSS modules, iconv's
   converters) both call: once it leads to heapinspect_loader_open, what glibc
   loads by itself is patched as the program's dlopen is.  Without it
   an NSS module's free would take a block of ours to glibc. */
typedef void *loader_open_fn (const char *file, int mode,
                              const void *caller, Lmid_t ns, int argc,
                              char **argv, char **env);
static loader_open_fn *loader_open;

/* Exported so that a later attach finds the loader's slot ours. */
__attribute__ ((visibility ("default"))) void *
heapinspect_loader_open (const char *file, int mode, const void *caller,
                         Lmid_t ns, int argc, char **argv, char **env)
{
  void *map = loader_open (file, mode, caller, ns, argc, argv, env);
  patch_new_objects ();
  return map;
}

/* SLOT_HEX: the slot's address in hexadecimal, as the injector found it
   with the loader's debug symbols (hi_loader_open_slot).  Checked before
   it is written: a word of ld.so pointing into ld.so.  Kept for good,
   as the monitor is: after a detach, objects loaded later still send
   the blocks with headers to its free. */
__attribute__ ((visibility ("default"))) int
heapinspect_attach_loader (const char *slot_hex)
{
  uint64_t a = 0;
  const char *p = slot_hex ? slot_hex : "";
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    p += 2;
  for (; *p; p++)
    {
      int d = *p >= '0' && *p <= '9' ? *p - '0'
              : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
      if (d < 0 || a >> 60)
        {
          set_error ("the loader's slot: not a hexadecimal address", "", "");
          return -1;
        }
      a = a << 4 | (uint64_t) d;
    }
  hi_lock_acquire (&attach_lock);
  uint64_t lo = hi_loader_lo;
  uint64_t hi = lo + __atomic_load_n (&hi_loader_size, __ATOMIC_ACQUIRE);
  uint64_t *slot = (uint64_t *) (uintptr_t) a;
  if (a % 8 != 0 || a < lo || a + 8 > hi)
    {
      set_error ("the loader's slot is not in ld.so", "", "");
      hi_lock_release (&attach_lock);
      return -1;
    }
  uint64_t v = __atomic_load_n (slot, __ATOMIC_ACQUIRE);
  if (v == (uint64_t) (uintptr_t) heapinspect_loader_open)
    {
      hi_lock_release (&attach_lock);
      return 0;
    }
  if (v < lo || v >= hi)
    {
      set_error ("the loader's slot does not point into ld.so", "", "");
      hi_lock_release (&attach_lock);
      return -1;
    }
  loader_open = (loader_open_fn *) (uintptr_t) v;
  /* _rtld_global_ro is RELRO: read-only around the write. */
  if (write_slot_ro (slot, (uint64_t) (uintptr_t) heapinspect_loader_open, 1) != 0)
    {
      set_error ("the loader's slot cannot be made writable (mprotect "
                 "refused)", "", "");
      hi_lock_release (&attach_lock);
      return -1;
    }
  hi_lock_release (&attach_lock);
  return 0;
}

__attribute__ ((visibility ("default"))) const char *
heapinspect_attach_error (void)
{
  return error;
}

/* Another monitor in the process (this library preloaded under another
   name): libc's malloc entry leads to an object named libheapinspect. */
static int
other_monitor (struct dl_phdr_info *obj, size_t size, void *arg)
{
  (void) size;
  uint64_t *m = arg;
  if (obj->dlpi_name && strncmp (base_name (obj->dlpi_name),
                                 "libheapinspect", 14) == 0
      && in_object (obj, *m))
    *m = 1;
  return 0;
}

__attribute__ ((visibility ("default"))) int
heapinspect_attach (const char *options)
{
  error[0] = '\0';
  hi_lock_acquire (&attach_lock);
  int state = atomic_load (&hi_state.attach);
  /* Preloaded or linked (the monitor did not start dormant): its
     malloc is the process's already. */
  if (state == HI_ATTACH_NONE
      && atomic_load (&hi_init_state) != HI_INIT_DORMANT)
    {
      hi_lock_release (&attach_lock);
      return 0;
    }
  if (state == HI_ATTACH_ON)
    {
      hi_lock_release (&attach_lock);
      return 0;
    }
  if (state == HI_ATTACH_DETACHED)
    {
      /* Again after a detach (or a failed attach): the same data goes
         on.  Entries leading here already are left as they are. */
      int r = patch_sets ((1u << SET_RELEASE) | (1u << SET_ALLOC)
                          | (1u << SET_DL));
      if (r == 0)
        {
          atomic_store (&hi_state.attach, HI_ATTACH_ON);
          if (hi_state.process)
            hi_process_attached (hi_state.process);
          hi_fatal_signals (1);
        }
      hi_lock_release (&attach_lock);
      return r;
    }
  /* Another copy of the monitor preloaded: libc's own entry for malloc
     leads to it (no dlsym here: it takes the loader's lock). */
  struct pass check;
  pass_init (&check, PASS_CHECK, 1u << SET_ALLOC);
  dl_iterate_phdr (patch_object, &check);
  uint64_t m = check.libc_malloc;
  if (m && !(m >= check.libc_lo && m < check.libc_hi))
    dl_iterate_phdr (other_monitor, &m);
  if (m == 1)
    {
      hi_lock_release (&attach_lock);
      return 0;
    }
  const char *bad;
  if (hi_prim_set_options (options, &bad) != 0)
    {
      size_t n = strcspn (bad, ";");
      char word[64];
      if (n >= sizeof word)
        n = sizeof word - 1;
      memcpy (word, bad, n);
      word[n] = '\0';
      set_error ("options: \"", word, "\" is not NAME=VALUE of a setting "
                 "(output, depth, lifetimes, redzone, quarantine, on_error, "
                 "signal, on_signal, check_unwind, chains, root_pid)");
      hi_lock_release (&attach_lock);
      return -1;
    }
  if (!saved)
    saved = hi_prim_alloc_nodump (SAVED_MAX * sizeof *saved);
  if (!saved)
    {
      set_error ("cannot reserve memory for the monitor", "", "");
      hi_lock_release (&attach_lock);
      return -1;
    }
  if (!hi_start_attached ())
    {
      set_error ("the monitor could not start (no memory for its arenas, "
                 "or it is not dormant)", "", "");
      hi_lock_release (&attach_lock);
      return -1;
    }
  hi_modules_refresh ();
  set_loader_range ();
  if (patch_sets ((1u << SET_RELEASE) | (1u << SET_ALLOC) | (1u << SET_DL))
      != 0)
    {
      /* Nothing patched: the monitor stays, recording nothing. */
      atomic_store (&hi_state.attach, HI_ATTACH_DETACHED);
      if (hi_state.process)
        hi_process_detached (hi_state.process);
      hi_fatal_signals (0);
      hi_lock_release (&attach_lock);
      return -1;
    }
  hi_lock_release (&attach_lock);
  return 0;
}

__attribute__ ((visibility ("default"))) int
heapinspect_attach_state (void)
{
  return atomic_load (&hi_state.attach);
}

__attribute__ ((visibility ("default"))) int
heapinspect_set_output (const char *name)
{
  hi_lock_acquire (&attach_lock);
  hi_set_output (name ? name : "none");
  hi_lock_release (&attach_lock);
  return 0;
}

__attribute__ ((visibility ("default"))) int
heapinspect_detach (void)
{
  hi_lock_acquire (&attach_lock);
  if (atomic_load (&hi_state.attach) != HI_ATTACH_ON)
    {
      hi_lock_release (&attach_lock);
      return 0;
    }
  struct pass ps;
  pass_init (&ps, PASS_RESTORE, 1u << SET_ALLOC);
  dl_iterate_phdr (patch_object, &ps);
  atomic_store (&hi_state.attach, HI_ATTACH_DETACHED);
  if (hi_state.process)
    hi_process_detached (hi_state.process);
  /* No handler of the monitor's left in the program's place. */
  hi_fatal_signals (0);
  hi_lock_release (&attach_lock);
  return 0;
}

/* The snapshot's file name template ("" for none), for `heapinspect
   detach` to remove the directory an attach made for it. */
__attribute__ ((visibility ("default"))) const char *
heapinspect_output (void)
{
  return hi_state.output;
}
