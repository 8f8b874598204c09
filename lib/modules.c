/* modules.c - the list of loaded objects (path, load bias, build-id), so
   that a snapshot can be symbolized on its own. */
#define _GNU_SOURCE
#include "modules.h"
#include "unwind.h"

#include <elf.h>
#include <link.h>
#include <string.h>

static void
copy_build_id (struct hi_module *m, const struct dl_phdr_info *info)
{
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
        continue;
      const char *p = (const char *) (info->dlpi_addr + ph->p_vaddr);
      const char *end = p + ph->p_memsz;
      while (p + sizeof (ElfW (Nhdr)) <= end)
        {
          const ElfW (Nhdr) *nh = (const void *) p;
          size_t name = (nh->n_namesz + 3) & ~(size_t) 3;
          size_t desc = (nh->n_descsz + 3) & ~(size_t) 3;
          const char *d = p + sizeof *nh + name;
          if (d + desc > end)
            break;
          if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4
              && memcmp (p + sizeof *nh, "GNU", 4) == 0)
            {
              uint32_t n = nh->n_descsz < HI_BUILD_ID_MAX
                           ? nh->n_descsz : HI_BUILD_ID_MAX;
              memcpy (m->build_id, d, n);
              m->build_id_len = n;
              return;
            }
          p = d + desc;
        }
    }
}

static void
set_path (struct hi_module *m, const char *name)
{
  char exe[HI_PATH_MAX];
  if (!name || !*name)
    {
      hi_prim_exe_path (exe, sizeof exe);
      name = exe;
    }
  size_t len = strlen (name);
  if (len >= HI_PATH_MAX)
    {
      m->flags |= HI_MODULE_PATH_CUT;
      len = HI_PATH_MAX - 1;
    }
  memcpy (m->path, name, len);
  m->path[len] = '\0';
}

struct refresh
{
  uint64_t generation_seen[HI_CAP_MODULES / 64];
};

static int
visit (struct dl_phdr_info *info, size_t size, void *arg)
{
  struct refresh *r = arg;
  (void) size;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      {
        uint64_t s = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        uint64_t e = s + info->dlpi_phdr[i].p_memsz;
        lo = s < lo ? s : lo;
        hi = e > hi ? e : hi;
      }
  if (hi == 0)
    return 0;
  struct hi_arena_desc *a = &heapinspect_root.arenas[HI_A_MODULES];
  uint64_t n = a->count;
  for (uint64_t i = 0; i < n; i++)
    {
      struct hi_module *m = &hi_state.modules[i];
      if ((m->flags & HI_MODULE_LOADED) && m->bias == info->dlpi_addr
          && m->start == lo && m->end == hi)
        {
          r->generation_seen[i / 64] |= UINT64_C(1) << (i % 64);
          return 0;
        }
    }
  if (n >= HI_CAP_MODULES || hi_arena_commit (HI_A_MODULES, n + 1) != 0)
    return 0;
  struct hi_module *m = &hi_state.modules[n];
  memset (m, 0, sizeof *m);
  m->bias = info->dlpi_addr;
  m->start = lo;
  m->end = hi;
  set_path (m, info->dlpi_name);
  copy_build_id (m, info);
  m->flags |= HI_MODULE_LOADED;
  r->generation_seen[n / 64] |= UINT64_C(1) << (n % 64);
  HI_STORE_REL (a->count, n + 1);
  return 0;
}

void
hi_modules_refresh (void)
{
  /* Never wait: a thread inside dlopen may be allocating while holding
     the loader's lock that dl_iterate_phdr needs. */
  if (!hi_lock_try (&hi_state.module_lock))
    return;
  struct refresh r;
  memset (&r, 0, sizeof r);
  dl_iterate_phdr (visit, &r);
  uint64_t n = heapinspect_root.arenas[HI_A_MODULES].count;
  int unloaded = 0;
  for (uint64_t i = 0; i < n; i++)
    if (!(r.generation_seen[i / 64] & (UINT64_C(1) << (i % 64)))
        && (hi_state.modules[i].flags & HI_MODULE_LOADED))
      {
        hi_state.modules[i].flags &= ~HI_MODULE_LOADED;   /* dlclosed */
        unloaded = 1;
      }
  if (unloaded)
    hi_unwind_forget ();      /* its code's rules may be stale */
  hi_lock_release (&hi_state.module_lock);
}

int
hi_modules_cover (uint64_t addr)
{
  uint64_t n = HI_LOAD_ACQ (heapinspect_root.arenas[HI_A_MODULES].count);
  for (uint64_t i = 0; i < n; i++)
    {
      const struct hi_module *m = &hi_state.modules[i];
      if ((m->flags & HI_MODULE_LOADED) && addr >= m->start && addr < m->end)
        return 1;
    }
  return 0;
}
