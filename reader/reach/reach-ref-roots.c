/* reach-ref-roots.c - a root of `ref` as its row names it: a thread's
   register by name; a word in a thread's TLS block of a module (the
   thread library's answer, libthread_db) with its TLS variable, or in
   a thread's descriptor; a stack slot by the thread whose stack pointer
   is in its mapping; a file's data or bss by the file and the variable
   its symbol table names there (symbols/datasym.c); other memory by its
   mapping. */
#define _GNU_SOURCE
#include "reach/reach-ref.h"
#include "symbols/datasym.h"
#include "target/target.h"
#include "util/vec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* struct pthread's size in glibc 2.36 (2,304 bytes): the thread
   descriptor at the thread pointer, where the first keys of
   pthread_setspecific live. */
#define DESCRIPTOR_BYTES 2304u
#define RED_ZONE 128u

static const char *const reg_names[] = {
  "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
  "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
  "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"
};
/* heapinspect/leak-stop.h's order of exit()'s caller's registers. */
static const char *const exit_reg_names[] = {
  "rbx", "rbp", "r12", "r13", "r14", "r15"
};

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash ? slash + 1 : path;
}

/* The thread whose stack holds AT in mapping E (its stack pointer there,
   at most the red zone above AT; the nearest), or NULL. */
static const struct hi_thread_regs *
stack_thread (const struct hi_scan *s, const struct hi_map_entry *e,
              uint64_t at)
{
  const struct hi_thread_regs *best = NULL;
  for (size_t i = 0; i < s->n_threads; i++)
    {
      uint64_t sp = s->threads[i].sp;
      if (sp < e->start || sp >= e->end || sp > at + RED_ZONE)
        continue;
      if (!best || sp > best->sp)
        best = &s->threads[i];
    }
  return best;
}

/* F's TLS blocks: each thread's of each module with a TLS block (its
   first page's mapping, of the first TLS_FILES files), as the thread
   library gives them (libthread_db: the reader's own targets); none
   where it cannot. */
#define TLS_FILES 512u
static void
tls_ranges (struct hi_ref *f)
{
  const struct hi_scan *s = f->s;
  unsigned files = 0;
  f->tls_done = 1;
  for (size_t i = 0; i < s->n_maps && files < TLS_FILES; i++)
    {
      const struct hi_map_entry *e = &s->maps[i];
      if (e->file_offset != 0 || e->path[0] != '/')
        continue;
      files++;
      uint64_t memsz, bias, map;
      struct hi_db_thread *th;
      size_t n;
      const char *why;
      if (hi_tls_image (e->path, e->start, &memsz, &bias) != 0
          || hi_target_link_map (s->t, bias, &map) != 0
          || hi_thread_db_list_tls (s->t, map, 0, &th, &n, &why) != 0)
        continue;
      for (size_t k = 0; k < n; k++)
        if (th[k].tls && th[k].tls + memsz > th[k].tls
            && hi_grow ((void **) &f->tls, &f->cap_tls, f->n_tls + 1,
                        sizeof *f->tls) == 0)
          f->tls[f->n_tls++] = (struct hi_ref_tls) {
            th[k].tls, th[k].tls + memsz, th[k].tid, e->path };
      free (th);
    }
}

/* AT in a thread's TLS block of a module: D says which, and the TLS
   variable.  1, or 0. */
static int
tls_root (struct hi_ref *f, uint64_t at, struct hi_ref_root *d)
{
  if (!f->tls_done)
    tls_ranges (f);
  for (size_t i = 0; i < f->n_tls; i++)
    {
      const struct hi_ref_tls *t = &f->tls[i];
      if (at < t->start || at >= t->end)
        continue;
      char name[256], safe[256];
      uint64_t off;
      d->kind = "tls";
      d->tid = t->tid;
      hi_escape (base_name (t->path), d->module, sizeof d->module);
      if (hi_tls_symbol (t->path, at - t->start, name, sizeof name, &off)
          == 0)
        {
          hi_escape (name, safe, sizeof safe);
          snprintf (d->symbol, sizeof d->symbol, off ? "%s+%" PRIu64 : "%s",
                    safe, off);
        }
      return 1;
    }
  return 0;
}

/* The root H as its row says it. */
void
hi_ref_describe_root (struct hi_ref *f, const struct hi_ref_hit *h,
                      struct hi_ref_root *d)
{
  const struct hi_scan *s = f->s;
  memset (d, 0, sizeof *d);
  if (h->from == HI_REF_FROM_REGISTER)
    {
      d->kind = "register";
      if (h->thread < s->n_threads)
        d->tid = s->threads[h->thread].tid;
      if (h->reg >= HI_SCAN_EXIT_REG
          && h->reg - HI_SCAN_EXIT_REG < sizeof exit_reg_names
                                         / sizeof *exit_reg_names)
        snprintf (d->at, sizeof d->at, "%s (exit's caller)",
                  exit_reg_names[h->reg - HI_SCAN_EXIT_REG]);
      else if (h->reg < sizeof reg_names / sizeof *reg_names)
        snprintf (d->at, sizeof d->at, "%s", reg_names[h->reg]);
      else
        snprintf (d->at, sizeof d->at, "r#%" PRIu32, h->reg);
      return;
    }
  snprintf (d->at, sizeof d->at, "0x%" PRIx64, h->at);
  d->kind = "memory";
  if (tls_root (f, h->at, d))
    return;
  for (size_t i = 0; i < s->n_threads; i++)
    {
      uint64_t tp = s->threads[i].fs_base;
      if (tp && h->at >= tp && h->at - tp < DESCRIPTOR_BYTES)
        {
          d->kind = "tls";
          d->tid = s->threads[i].tid;
          snprintf (d->symbol, sizeof d->symbol, "thread descriptor+%" PRIu64,
                    h->at - tp);
          return;
        }
    }
  const struct hi_map_entry *e = hi_scan_mapping_of (s, h->at);
  if (!e)
    return;
  const struct hi_thread_regs *th = stack_thread (s, e, h->at);
  if (th)
    {
      d->kind = "stack";
      d->tid = th->tid;
      return;
    }
  hi_escape (base_name (e->path), d->module, sizeof d->module);
  if (!e->path[0] || e->path[0] != '/')
    return;
  d->kind = "data";
  /* The file's first page gives its load bias. */
  for (size_t i = 0; i < s->n_maps; i++)
    if (s->maps[i].file_offset == 0
        && strcmp (s->maps[i].path, e->path) == 0)
      {
        char name[256];
        uint64_t off;
        if (hi_data_symbol (e->path, s->maps[i].start, h->at, name,
                            sizeof name, &off) == 0)
          {
            char safe[256];
            hi_escape (name, safe, sizeof safe);
            if (off)
              snprintf (d->symbol, sizeof d->symbol, "%s+%" PRIu64, safe,
                        off);
            else
              snprintf (d->symbol, sizeof d->symbol, "%s", safe);
          }
        break;
      }
}

