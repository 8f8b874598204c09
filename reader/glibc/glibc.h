/* glibc.h - the second model: glibc's own heap (ptmalloc), read from a
   core or a live process whether or not the monitor was ever loaded.
   What it holds follows glibc's own accounting (malloc.c's
   int_mallinfo and __malloc_info), so its figures can be checked
   against mallinfo2() and malloc_info() at the same moment:
   - per arena: the system memory it holds (system_mem and its
     maximum), its top chunk, its fastbins' chunks and its other bins'
     (unsorted, small, large) chunks, counts and bytes, and the largest
     free chunk;
   - for the process: mmapped chunks (mp_.n_mmaps, mp_.mmapped_mem);
   - per thread: what its tcache holds (threads and their TLS from
     libthread_db), which glibc's accounting counts as in use.
   Chunk sizes are glibc's chunksize(): header included.  Chunks in a
   thread's tcache are in use for glibc's accounting, as here.

   Where things are: main_arena and mp_ from libc's separate debug file
   (found by build-id: Debian's libc6-dbg), the layout of malloc_state,
   malloc_par and heap_info from a table by glibc's version string
   (glibc-layout.c: 2.31 to 2.40, 2.36's tested, the others' from
   glibc's sources; any other version is refused).  Nothing read is trusted: every list walk is bounded, a cycle
   or a pointer outside the arena's heaps ends it and is counted as
   damage. */
#ifndef HI_GLIBC_H
#define HI_GLIBC_H

#include <stdint.h>

#include "hi-reader.h"

/* One list's chunks, as malloc_info's <size> rows count them: how
   many, their bytes, the smallest and the largest (chunksize()). */
struct hi_glibc_sizes
{
  uint64_t count, total, from, to;
};
/* The most fastbins and bins any layout has. */
#define HI_GLIBC_NFASTBINS 10u
#define HI_GLIBC_NBINS 128u

/* One malloc arena. */
struct hi_glibc_arena
{
  uint64_t addr;              /* its malloc_state */
  int is_main;                /* main_arena: the brk heap */
  uint64_t system_bytes;      /* system_mem */
  uint64_t max_system_bytes;  /* max_system_mem */
  uint64_t top_bytes;         /* the top chunk's size */
  uint64_t fast_chunks, fast_bytes;   /* in its fastbins */
  uint64_t bin_chunks, bin_bytes;     /* in its other bins */
  uint64_t largest_free;      /* the largest free chunk (top included) */
  uint64_t heaps;             /* heap_info chain length (0: main) */
  uint64_t heap_bytes;        /* its first heap's size (non-main), as
                                 malloc_info's aspace total */
  uint64_t heap_mprotect;     /* ... and mprotect_size */
  uint64_t top;               /* the top chunk's address */
  struct hi_glibc_heap *heap_list;  /* non-main: its heaps, newest first */
  uint64_t n_heap_list;
  /* Each fastbin's and each bin's chunks (bins[1]: unsorted). */
  struct hi_glibc_sizes fast[HI_GLIBC_NFASTBINS], bins[HI_GLIBC_NBINS];
};

/* A chunk's size word: its low bits are flags (malloc.c's SIZE_BITS);
   PREV_INUSE says the chunk before is in use, IS_MMAPPED that the chunk
   is a mapping of its own.  No chunk is smaller than MIN_CHUNK. */
#define HI_GLIBC_SIZE_BITS 7u
#define HI_GLIBC_PREV_INUSE 1u
#define HI_GLIBC_IS_MMAPPED 2u
#define HI_GLIBC_MIN_CHUNK 32u

struct hi_glibc_layout;
struct hi_glibc_cache;

/* A heap of a non-main arena: [start, end) (its heap_info's size). */
struct hi_glibc_heap
{
  uint64_t start, end;
};

/* A free chunk some list holds, and which. */
enum hi_glibc_list
{
  HI_GLIBC_FASTBIN = 1,       /* index: the fastbin */
  HI_GLIBC_BIN,               /* index: the bin (1 unsorted, 2-63 small,
                                 64-126 large) */
  HI_GLIBC_TCACHE             /* index: the thread's place in tcaches */
};
struct hi_glibc_free
{
  uint64_t chunk;
  uint32_t list;              /* enum hi_glibc_list */
  uint32_t index;
};

/* One thread's tcache (its `tcache` TLS variable, from libthread_db). */
struct hi_glibc_tcache
{
  uint64_t tid;
  uint64_t perthread;         /* its tcache_perthread_struct (user
                                 memory of a chunk: malloc's own, not a
                                 block of the program's); 0: none yet */
  uint64_t chunks, bytes;     /* the chunks its bins hold */
};

struct hi_glibc
{
  char version[16];           /* "2.36" */
  const char *found_by;       /* how main_arena was found, for the report */
  struct hi_glibc_arena *arenas;
  uint64_t n_arenas;
  uint64_t mmapped_chunks;    /* mp_.n_mmaps */
  uint64_t mmapped_bytes;     /* mp_.mmapped_mem */
  uint64_t damaged;           /* lists cut short: a pointer outside the
                                 arena, a cycle, a size that cannot be;
                                 a tcache bin whose count is not its
                                 list's length */
  /* Each thread's tcache; tcache_known 0 when the threads' TLS could not
     be had (no libthread_db, another glibc): the chunks there are then
     counted in use only. */
  struct hi_glibc_tcache *tcaches;
  uint64_t n_tcaches;
  int tcache_known;
  uint64_t broken_chunk;      /* the first damaged list's chunk whose
                                 link is bad (0: the list's head) */
  const char *broken_what;    /* ... in glibc's words */
  uint64_t sbrk_base;         /* mp_.sbrk_base: the brk heap's start */
  const struct hi_glibc_layout *layout;
  int layout_tested;          /* hi_glibc_layout_tested */
  uint64_t heap_max;          /* heap_for_ptr's alignment: the layout's,
                                 or 4 * mp_.hp_pagesize */
  struct hi_glibc_cache *cache;  /* hi_glibc_word's; NULL: none */
  /* Every free chunk a list holds, sorted by address (for block). */
  struct hi_glibc_free *frees;
  uint64_t n_frees, cap_frees;
};

/* What glibc's heap says of one address (glibc-chunk.c). */
enum hi_glibc_state
{
  HI_GLIBC_IN_USE = 1,
  HI_GLIBC_FREE_LISTED,       /* in a fastbin, a bin or a tcache */
  HI_GLIBC_FREE_UNLISTED,     /* free by its neighbour's bit, in no list */
  HI_GLIBC_TOP,
  HI_GLIBC_MMAPPED
};
struct hi_glibc_chunk
{
  uint64_t chunk, size;       /* its address and chunksize() */
  uint32_t state;             /* enum hi_glibc_state */
  struct hi_glibc_free listed;  /* for HI_GLIBC_FREE_LISTED */
  uint64_t arena;             /* its arena's malloc_state; 0: mmapped */
  int main_arena;
  uint64_t prev, prev_size;   /* the chunk before (0: none known) */
  uint64_t next, next_size;   /* the chunk after (0: none) */
};
/* glibc-chunk.c: the 8 bytes at ADDR of T (a core's in place, without
   a system call; a process's through G's cache of 64 KiB pieces, G may
   be NULL).  0, or -1. */
int hi_glibc_word (const struct hi_glibc *g, const struct hi_target *t,
                   uint64_t addr, uint64_t *v);
/* A cache for hi_glibc_word (free with free()), or NULL. */
struct hi_glibc_cache *hi_glibc_cache_new (void);

/* glibc-chunk.c: how many of G's lists hold CHUNK (more than one: a
   double free), and the first chunk at or after P whose user memory is
   16-aligned (where a heap's chunks begin). */
unsigned hi_glibc_times_listed (const struct hi_glibc *g, uint64_t chunk);
uint64_t hi_glibc_first_chunk (uint64_t p);

/* The chunk of G (read from T) holding ADDR: 0 and *OUT, or -1 if no
   heap of glibc's holds it (or its heap's chunks cannot be walked to
   it: damage). */
int hi_glibc_find (const struct hi_target *t, const struct hi_glibc *g,
                   uint64_t addr, struct hi_glibc_chunk *out);

/* Read glibc's heap of target T into *OUT (free with hi_glibc_free).
   HI_OK; HI_E_NO_GLIBC with *WHY saying why not in a few words (no
   glibc, an unknown version, no debug symbols); HI_E_NOMEM. */
hi_status hi_glibc_load (const struct hi_target *t, struct hi_glibc **out,
                         const char **why);
void hi_glibc_free (struct hi_glibc *g);

/* glibc-layout.c: the offsets of one group of glibc versions' malloc
   structures (x86-64). */
struct hi_glibc_layout
{
  unsigned first, last;       /* 2.FIRST to 2.LAST */
  uint32_t state_fastbins, state_top, state_bins, state_next;
  uint32_t state_system_mem, state_max_system_mem, state_size;
  uint32_t nfastbins, nbins;
  /* tcache_perthread_struct: uint16_t counts[], then entries[]. */
  uint32_t tcache_counts, tcache_entries, tcache_bins;
  uint32_t par_n_mmaps, par_mmapped_mem, par_sbrk_base;
  uint32_t par_hp_pagesize;   /* 0: no mp_.hp_pagesize */
  uint32_t heap_info_size, heap_prev, heap_size, heap_mprotect_size;
  uint64_t heap_max;          /* HEAP_MAX_SIZE: heaps are aligned to it
                                 (without huge pages) */
  int safe_linking;           /* fastbin and tcache links PROTECT_PTR'd */
  unsigned tested;            /* 2.TESTED's was checked here (0: none) */
};
/* The layout of glibc VERSION ("2.36"), or NULL if it is not one known. */
const struct hi_glibc_layout *hi_glibc_layout (const char *version);
/* Whether L, VERSION's, was tested (else believed from the sources). */
int hi_glibc_layout_tested (const struct hi_glibc_layout *l,
                            const char *version);
/* The versions known, for messages ("2.31 to 2.40"). */
const char *hi_glibc_versions (void);

/* Call FN for every chunk glibc holds in use for the program (not the
   top, not free by its neighbour's bit, in no list, not a thread's
   tcache_perthread_struct): every heap's, walked from its first
   chunk, and every mmapped chunk's (found at the start of the mappings
   that hold one).  HEAP, if not NULL, is called once per heap's memory
   [START, END) (a walk cut short by damage still gives its whole
   extent).  Stops when FN returns non-zero, and returns that. */
int hi_glibc_each_in_use (const struct hi_target *t, const struct hi_glibc *g,
                          int (*fn) (void *ctx, uint64_t chunk,
                                     uint64_t size, int mmapped),
                          int (*heap) (void *ctx, uint64_t start,
                                       uint64_t end),
                          void *ctx);

/* glibc-monitor.c, for a process the monitor was attached to (model M
   of T): 1 if the in-use chunk CHUNK of SIZE bytes (chunksize(),
   MMAPPED) holds a block of the monitor's (a valid header, live or
   quarantined, internal or not, where lib/malloc.c puts it), else 0. */
struct hi_model;
int hi_glibc_monitors_chunk (const struct hi_target *t, const struct hi_glibc *g,
                             const struct hi_model *m, uint64_t chunk,
                             uint64_t size, int mmapped);
/* Why G's in-use chunks cannot be told exactly (a static phrase: its
   threads' tcaches unknown, damage), or NULL. */
const char *hi_glibc_not_whole (const struct hi_glibc *g);
/* hi_glibc_each_in_use over the in-use chunks that hold no block of the
   monitor's M: made before the attach, or by the loader or glibc
   itself since (glibc-monitor.c says which).  HEAP as there. */
int hi_glibc_each_foreign (const struct hi_target *t, const struct hi_glibc *g,
                           const struct hi_model *m,
                           int (*fn) (void *ctx, uint64_t chunk,
                                      uint64_t size, int mmapped),
                           int (*heap) (void *ctx, uint64_t start,
                                        uint64_t end),
                           void *ctx);

/* glibc-verify.c: the first problem a consistency walk finds. */
struct hi_glibc_problem
{
  uint64_t chunk;             /* the damaged chunk (0: none, or no
                                 address: a list's damage) */
  uint64_t before;            /* the in-use chunk before it (0: none
                                 known): the likely overflower */
  const char *what;           /* in glibc's words; NULL: no problem */
};
/* Walk G's heaps (read from T) as glibc's checks would: *FIRST the
   lowest damaged chunk, *PROBLEMS how many problems in all (the list
   walks' damage included). */
hi_status hi_glibc_verify (const struct hi_target *t, const struct hi_glibc *g,
                           struct hi_glibc_problem *first,
                           uint64_t *problems);

#endif
