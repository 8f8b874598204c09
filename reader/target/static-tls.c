/* static-tls.c - a TLS variable of a module in static TLS (libc's, the
   program's, any library loaded at start) in each thread the target's
   registers name, and its kernel thread id, without libthread_db: where the host gives the threads
   (gdb), or libthread_db cannot be had.  On x86-64 a thread's static TLS
   blocks lie below its thread pointer (fs_base): the module's at
   fs_base - l_tls_offset, its link_map's field, whose place in the
   link_map glibc itself describes for libthread_db in the descriptor
   _thread_db_link_map_l_tls_offset (size in bits, count, offset). */
#include "target/target.h"

#include <stdlib.h>
#include <string.h>

/* glibc's NO_TLS_OFFSET and FORCED_DYNAMIC_TLS_OFFSET: no static block. */
#define NO_TLS_OFFSET 0
#define FORCED_DYNAMIC_TLS_OFFSET ((uint64_t) -2)

/* Read LEN bytes at ADDR of T, read-only data of the module whose
   link_map is at MAP: from its memory, the file mapped there, or the
   module's file named by the link_map (gdb's gcore leaves read-only data
   out of the core and its map). */
static int
read_any (const struct hi_target *t, uint64_t map, uint64_t addr, void *buf,
          size_t len)
{
  if (hi_target_read_object (t, addr, buf, len, NULL, 0) == 0)
    return 0;
  uint64_t l[2];                /* l_addr, l_name */
  char path[HI_MAP_PATH_MAX];
  if (!map || t->ops->read_memory (t->ctx, map, l, sizeof l) != 0)
    return -1;
  for (size_t i = 0; i < sizeof path; i++)
    if (t->ops->read_memory (t->ctx, l[1] + i, &path[i], 1) != 0)
      return -1;
    else if (!path[i])
      return hi_target_read_object (t, addr, buf, len, path, l[0]);
  return -1;
}

/* glibc's descriptor NAME of a field of BITS bits (in the module whose
   link_map is at MAP): its offset in *AT.  0, or -1. */
static int
field (const struct hi_target *t, uint64_t map, const char *name,
       uint32_t bits, uint32_t *at)
{
  uint64_t desc_at;
  uint32_t desc[3];
  if (!t->ops->lookup_symbol
      || t->ops->lookup_symbol (t->ctx, name, &desc_at) != 0
      || read_any (t, map, desc_at, desc, sizeof desc) != 0
      || desc[0] != bits || desc[2] > 4096)
    return -1;
  *at = desc[2];
  return 0;
}

/* The module's l_tls_offset from its link_map at MAP: 0, or -1. */
static int
tls_offset (const struct hi_target *t, uint64_t map, uint64_t *out)
{
  uint32_t at;
  return field (t, map, "_thread_db_link_map_l_tls_offset", 64, &at) == 0
         && t->ops->read_memory (t->ctx, map + at, out, 8) == 0
         && *out != NO_TLS_OFFSET && *out != FORCED_DYNAMIC_TLS_OFFSET
         && *out < (1u << 30) ? 0 : -1;
}

int
hi_target_thread_id (const struct hi_target *t, uint64_t fs_base,
                     uint64_t *tid)
{
  uint32_t tid_at;
  int32_t v;
  if (!fs_base || field (t, 0, "_thread_db_pthread_tid", 32, &tid_at) != 0
      || t->ops->read_memory (t->ctx, fs_base + tid_at, &v, 4) != 0
      || v <= 0)
    return -1;
  *tid = (uint64_t) v;
  return 0;
}

int
hi_target_thread_start (const struct hi_target *t, uint64_t fs_base,
                        uint64_t *start)
{
  uint32_t at;
  if (!fs_base
      || field (t, 0, "_thread_db_pthread_start_routine", 64, &at) != 0
      || t->ops->read_memory (t->ctx, fs_base + at, start, 8) != 0)
    return -1;
  return 0;
}

int
hi_threads_static_tls (const struct hi_target *t, uint64_t map,
                       uint64_t offset, struct hi_db_thread **out,
                       size_t *n)
{
  uint64_t block;
  struct hi_thread_regs r;
  *out = NULL;
  *n = 0;
  if (!t->ops->thread_regs || tls_offset (t, map, &block) != 0)
    return -1;
  size_t count = 0;
  while (count < 1u << 16 && t->ops->thread_regs (t->ctx, count, &r) == 0)
    count++;
  struct hi_db_thread *v = calloc (count ? count : 1, sizeof *v);
  if (!v)
    return -1;
  for (size_t i = 0; i < count; i++)
    {
      if (t->ops->thread_regs (t->ctx, i, &r) != 0)
        break;
      /* The kernel's thread id, where the host numbers threads its own
         way (gdb). */
      if (hi_target_thread_id (t, r.fs_base, &v[i].tid) != 0)
        v[i].tid = r.tid;
      v[i].tls = r.fs_base > block ? r.fs_base - block + offset : 0;
      *n = i + 1;
    }
  *out = v;
  return 0;
}

int
hi_threads_dtv_blocks (const struct hi_target *t, uint64_t **out, size_t *n)
{
  struct hi_thread_regs r;
  *out = NULL;
  *n = 0;
  if (!t->ops->thread_regs)
    return -1;
  size_t cap = 0;
  for (size_t i = 0; i < 1u << 16 && t->ops->thread_regs (t->ctx, i, &r) == 0;
       i++)
    {
      /* tcbhead_t: tcb, dtv, self.  dtv[-1].counter: its length; entry
         k (16 bytes: val, to_free) the block of the object of module id
         k, TLS_DTV_UNALLOCATED (-1) until the thread first uses it. */
      uint64_t dtv, len;
      if (!r.fs_base
          || t->ops->read_memory (t->ctx, r.fs_base + 8, &dtv, 8) != 0
          || !dtv || t->ops->read_memory (t->ctx, dtv - 16, &len, 8) != 0
          || len > 4096)
        continue;
      for (uint64_t k = 1; k <= len; k++)
        {
          uint64_t val;
          if (t->ops->read_memory (t->ctx, dtv + 16 * k, &val, 8) != 0)
            break;
          if (!val || val == UINT64_MAX)
            continue;
          if (*n == cap)
            {
              cap = cap ? 2 * cap : 16;
              uint64_t *g = realloc (*out, cap * sizeof *g);
              if (!g)
                {
                  free (*out);
                  *out = NULL;
                  *n = 0;
                  return -1;
                }
              *out = g;
            }
          (*out)[(*n)++] = val;
        }
    }
  return 0;
}
