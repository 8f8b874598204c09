/* block.c - which block of ours holds an address (seed 004's heap
   annotator): found from the headers themselves, not from a block list. */
#include "analysis.h"

#include <inttypes.h>
#include <string.h>

#define PAGE 4096
#define SCAN_LIMIT (UINT64_C(64) << 20)

hi_status
hi_block_find (const struct hi_target *t, const struct hi_model *m,
               uint64_t addr, struct hi_block *out)
{
  uint32_t salt = m->root.header_salt;
  struct hi_block stale;
  int have_stale = 0;
  unsigned char page[PAGE + 16];
  /* Candidate user pointers are 16-aligned, at or below ADDR; a header
     may straddle a page boundary, so keep the next page's first bytes. */
  uint64_t user = addr & ~UINT64_C(15);
  uint64_t lowest = addr > SCAN_LIMIT ? addr - SCAN_LIMIT : 0;
  uint64_t page_lo = (user - 16) & ~(uint64_t) (PAGE - 1);
  int have_next = 0;
  unsigned char next[16];
  while (user >= lowest + 16 && user >= 16)
    {
      if (t->ops->read_memory (t->ctx, page_lo, page, PAGE) != 0)
        break;
      if (have_next)
        memcpy (page + PAGE, next, 16);
      else if (t->ops->read_memory (t->ctx, page_lo + PAGE, page + PAGE, 16))
        memset (page + PAGE, 0, 16);
      for (; user - 16 >= page_lo && user >= 16; user -= 16)
        {
          struct hi_block_header h;
          memcpy (&h, page + (user - 16 - page_lo), sizeof h);
          uint32_t want = hi_block_check (salt, user - 16, h.site, h.size_flags);
          int live = h.check == want, freed = h.check == ~want;
          if (!live && !freed)
            continue;
          uint64_t size = h.size_flags & HI_BLOCK_SIZE_MASK;
          int inside = addr >= user && (addr - user < size || addr == user);
          if (inside && live)
            {
              *out = (struct hi_block) { user, size, h.site, 0, 0 };
              out->type = (uint32_t) ((h.size_flags & HI_BLOCK_TYPE_MASK)
                                      >> HI_BLOCK_TYPE_SHIFT);
              return HI_OK;
            }
          if (inside && !have_stale)
            {
              stale = (struct hi_block) { user, size, h.site, 1, 0 };
              have_stale = 1;
            }
          if (live)   /* ADDR is past the end of a live block */
            goto done;
        }
      memcpy (next, page, 16);
      have_next = 1;
      if (page_lo < PAGE)
        break;
      page_lo -= PAGE;
    }
done:
  if (!have_stale)
    return HI_E_NOT_BLOCK;
  *out = stale;
  return HI_OK;
}

void
hi_block_print (struct hi_analysis *a, uint64_t addr, const struct hi_block *b,
                FILE *f)
{
  if (!b)
    {
      fprintf (f, "0x%" PRIx64 " is not in a block allocated through "
               "heapinspect\n", addr);
      return;
    }
  char path[8192];
  if (b->site == HI_SITE_INTERNAL)
    snprintf (path, sizeof path, "the heapinspect monitor itself");
  else if (b->site >= a->m->n_sites)
    snprintf (path, sizeof path, "an unknown chain (site %u: damaged?)",
              b->site);
  else
    hi_site_path (a, b->site, path, sizeof path);
  /* The type the program named for it (typed.h), if any. */
  char type[1100] = "";
  if (b->type && b->type < a->m->n_type_recs
      && a->m->type_recs[b->type].kind == HI_TREC_TYPE
      && hi_types_ready (a) == HI_OK && a->type_of_rec
      && a->type_of_rec[b->type] != UINT32_MAX)
    snprintf (type, sizeof type, " of type %s",
              a->types[a->type_of_rec[b->type]].name);
  fprintf (f, "0x%" PRIx64 " is %" PRIu64 " bytes into a %s%" PRIu64
           "-byte block%s at 0x%" PRIx64 ", allocated by %s\n", addr,
           addr - b->start, b->freed ? "freed " : "", b->size, type, b->start,
           path);
}

hi_status
hi_block_report (const struct hi_target *t, const struct hi_model *m,
                 const char *exe, uint64_t addr,
                 const struct hi_options *opt, FILE *out)
{
  struct hi_symbolizer *sym = hi_symbolizer_new (m, exe);
  struct hi_analysis a;
  hi_status s = sym ? hi_analysis_init (&a, m, sym, opt) : HI_E_NOMEM;
  if (s == HI_OK)
    {
      struct hi_block b;
      int found = hi_block_find (t, m, addr, &b) == HI_OK;
      hi_block_print (&a, addr, found ? &b : NULL, out);
      s = found ? HI_OK : HI_E_NOT_BLOCK;
      hi_analysis_free (&a);
    }
  hi_symbolizer_free (sym);
  return s;
}
