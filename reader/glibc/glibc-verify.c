/* glibc-verify.c - a consistency walk of glibc's heap, the checks
   glibc itself makes when it next touches a chunk, made on a core or a
   stopped process without aborting anything: every chunk of every heap
   from the first to the top (size words, the prev_size of a free
   chunk's neighbour), every bin's links both ways, every fastbin and
   tcache entry's alignment and size, each tcache bin's count, and a
   chunk that two lists hold (a double free).  The first damaged chunk
   is named with glibc's own words and with the in-use chunk before it,
   the likely overflower. */
#define _GNU_SOURCE
#include "glibc/glibc.h"

#include <stdlib.h>
#include <string.h>


struct check
{
  const struct hi_target *t;
  const struct hi_glibc *g;
  struct hi_glibc_problem *first;  /* the lowest damaged chunk's */
  uint64_t problems;
};

static int
rd (const struct check *c, uint64_t addr, uint64_t *v)
{
  return hi_glibc_word (c->g, c->t, addr, v);
}

/* Record a problem at CHUNK (BEFORE: the in-use chunk before it, 0 if
   none known); the lowest address is kept. */
static void
found (struct check *c, uint64_t chunk, uint64_t before, const char *what)
{
  c->problems++;
  if (c->first->chunk && c->first->chunk <= chunk)
    return;
  c->first->chunk = chunk;
  c->first->before = before;
  c->first->what = what;
}



/* Every chunk of [START, END) of arena A, up to its top. */
static void
walk_heap (struct check *c, const struct hi_glibc_arena *a, uint64_t start,
           uint64_t end)
{
  uint64_t p = start, before = 0;
  for (uint64_t steps = 0; p < end && steps < (end - start) / 16 + 1;
       steps++)
    {
      uint64_t word;
      if (rd (c, p, &word) != 0 || rd (c, p + 8, &word) != 0)
        {
          found (c, p, before, "unreadable chunk");
          return;
        }
      uint64_t size = word & ~(uint64_t) HI_GLIBC_SIZE_BITS;
      if (p == a->top)
        {
          if (size > a->system_bytes || size < 16 || p + size > end)
            found (c, p, before, "malloc(): corrupted top size");
          return;
        }
      if (size < HI_GLIBC_MIN_CHUNK || (size & 15) || size > end - p)
        {
          found (c, p, before, "malloc(): invalid size (unsorted)");
          return;               /* the walk cannot go on past it */
        }
      uint64_t next = p + size, next_word, prev_size;
      if (rd (c, next + 8, &next_word) != 0)
        {
          found (c, next, p, "unreadable chunk");
          return;
        }
      int free_by_bit = !(next_word & HI_GLIBC_PREV_INUSE);
      unsigned lists = hi_glibc_times_listed (c->g, p);
      /* Only a bad size word or prev_size names the chunk before as
         the likely overflower. */
      if (lists > 1)
        found (c, p, 0, "free(): double free detected (a chunk in two "
               "lists)");
      if (free_by_bit)
        {
          if (rd (c, next, &prev_size) == 0 && prev_size != size)
            found (c, p, before, "corrupted size vs. prev_size");
          else if (!lists)
            found (c, p, 0, "free chunk in no bin");
        }
      if (!free_by_bit && !lists)
        before = p;             /* in use */
      p = next;
    }
}

/* A bin's list both ways: fd->bk and bk->fd are the chunk. */
static void
check_bins (struct check *c, const struct hi_glibc_arena *a)
{
  const struct hi_glibc_layout *l = c->g->layout;
  for (uint32_t i = 1; i < l->nbins; i++)
    {
      uint64_t bin = a->addr + l->state_bins + (uint64_t) (i - 1) * 16 - 16;
      uint64_t p = bin, steps = 0;
      do
        {
          uint64_t fd, back;
          if (rd (c, p + 16, &fd) != 0 || rd (c, fd + 24, &back) != 0)
            {
              found (c, p == bin ? fd : p, 0, "corrupted double-linked "
                     "list");
              break;
            }
          if (back != p)
            {
              found (c, fd == bin ? p : fd, 0, "corrupted double-linked "
                     "list");
              break;
            }
          p = fd;
        }
      while (p != bin && ++steps < 10000000);
    }
}

hi_status
hi_glibc_verify (const struct hi_target *t, const struct hi_glibc *g,
                 struct hi_glibc_problem *first, uint64_t *problems)
{
  struct check c = { t, g, first, 0 };
  memset (first, 0, sizeof *first);
  for (uint64_t i = 0; i < g->n_arenas; i++)
    {
      const struct hi_glibc_arena *a = &g->arenas[i];
      if (a->is_main)
        {
          if (g->sbrk_base)
            walk_heap (&c, a, hi_glibc_first_chunk (g->sbrk_base),
                       a->top + (a->top_bytes ? a->top_bytes : 16));
        }
      else
        for (uint64_t k = 0; k < a->n_heap_list; k++)
          {
            const struct hi_glibc_heap *h = &a->heap_list[k];
            uint64_t start = h->start + g->layout->heap_info_size;
            if (a->addr == start)
              start = hi_glibc_first_chunk (start + g->layout->state_size);
            walk_heap (&c, a, start, h->end);
          }
      check_bins (&c, a);
    }
  /* What the list walks found (a cycle, a bad link, a wrong tcache
     count) is damage too. */
  *problems = c.problems + g->damaged;
  if (g->damaged && g->broken_what
      && (!first->what || (g->broken_chunk
                           && g->broken_chunk < first->chunk)))
    {
      first->chunk = g->broken_chunk;
      first->before = 0;
      first->what = g->broken_what;
    }
  return HI_OK;
}
