/* malloc.c - the malloc-family entry points: block headers over glibc's
   allocator.  Built twice: as malloc/free/... for libheapinspect.so, and
   as __wrap_malloc/... (HI_WRAP) for static links with -Wl,--wrap. */
#define _GNU_SOURCE
#include "account.h"
#include "attach.h"
#include "chain.h"
#include "client.h"
#include "guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#define HDR ((size_t) sizeof (struct hi_block_header))
_Static_assert (sizeof (struct hi_block_header) == 16, "16-byte header");
/* Bytes before a plain block's user pointer: the header and, with
   lifetimes, the birth stamp before it.  Fixed before the first block. */
#define PRE ((size_t) (HDR + hi_state.birth))
/* Room kept below SIZE_MAX for what goes before a block and its
   redzone after (guard.h's HI_POST, at most 4096). */
#define PRE_MAX ((size_t) 8192)

#ifdef HI_WRAP
# define ENTRY(name) __wrap_##name
#else
# define ENTRY(name) name
#endif
#define PUBLIC __attribute__ ((visibility ("default"), noinline))
/* The steps of an allocation and a free, inlined into the entry points:
   no calls, no registers saved and restored between them. */
#define HOT __attribute__ ((always_inline))

#ifdef HI_WRAP
# define FROM_LOADER() 0
#else
/* attach.c: the dynamic loader's code, [hi_loader_lo, + hi_loader_size),
   set by heapinspect_attach; 0 otherwise.  ld.so allocates with the
   "malloc" it found in the global scope at start: glibc's, but in a
   program built without -pie that takes malloc's address, the
   program's PLT entry, whose GOT entry the attach redirects here.  Its
   calls, among them those that make a thread's dynamic TLS block for
   this very library, go to glibc before the monitor's TLS is touched
   (else its first access in a thread recurses). */
uintptr_t hi_loader_lo, hi_loader_size;
# define FROM_LOADER() \
  HI_UNLIKELY ((uintptr_t) __builtin_return_address (0) - hi_loader_lo \
               < hi_loader_size)
#endif

/* Calls by the program; the monitor's own (busy) calls are not counted. */
#define COUNT_CALL(name) \
  do \
    if (!hi_tls.busy) \
      hi_account_call (HI_CALL_##name); \
  while (0)

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);
extern void *__libc_memalign (size_t, size_t);
extern void __libc_free (void *);

/* What a header says about a block we handed out. */
struct block
{
  struct hi_block_header *h;
  void *base;          /* what glibc's allocator returned */
  struct hi_block_birth *birth;  /* with lifetimes, else NULL */
  uint32_t site;
  uint64_t size;
  int aligned;
};

/* The site of a new block; HI_SITE_OFF when the monitor could not start
   (the block is then glibc's alone, with no header). */
static inline HOT uint32_t
site_for (const struct hi_frame *caller)
{
  if (hi_tls.busy)
    return HI_SITE_INTERNAL;
  if (HI_UNLIKELY (!hi_ensure_init ()))
    return HI_SITE_OFF;
  if (HI_UNLIKELY (!atomic_load_explicit (&hi_unwind_ready,
                                          memory_order_relaxed)))
    return HI_SITE_UNKNOWN;
  hi_tls.busy++;
  uint32_t site = hi_chain_site (caller);
  hi_tls.busy--;
  return site;
}

/* Write the header at BASE + OFFSET (the birth stamp before it, and
   for an aligned block the offset before that) and account for the new
   block, the last one this thread allocated.  The check word goes
   before the counts: written after them, it kept the block's address
   live across their calls, which saved it deep in the thread's stack,
   a stale pointer that a scan without the threads' stack pointers
   takes for a root (leak-live.exp's block held only in a register).  A
   thread stopped in between shows one block more than the counts; the
   leak scan's count rule knows (reader/reach/reach-stale.c). */
static inline HOT void *
finish (void *base, size_t offset, uint32_t site, uint64_t size)
{
  struct hi_block_header *h = (void *) ((char *) base + offset);
  struct hi_block_birth *birth = hi_state.birth ? (void *) (h - 1) : NULL;
  uint64_t sf = size;
  if (offset > hi_state.birth)
    {
      sf |= HI_BLOCK_ALIGNED;
      ((uint64_t *) ((char *) h - hi_state.birth))[-1] = offset;
    }
  h->site = site;
  h->size_flags = sf;
  h->check = hi_block_check (heapinspect_root.header_salt,
                             (uint64_t) (uintptr_t) h, site, sf);
  if (HI_UNLIKELY (HI_POST))
    hi_guard_fill_redzone (h + 1, size);
  if (site != HI_SITE_INTERNAL)
    hi_tls.last_block = ~(uintptr_t) (h + 1);
  hi_account_alloc (site, size, birth);
  return h + 1;
}

/* 1 if P is a live block of ours; fills B. */
static inline HOT int
lookup (void *p, struct block *b)
{
  uintptr_t a = (uintptr_t) p;
  /* The 16 bytes before P are read with no check that they are mapped:
     every P that reaches here goes to glibc's free, realloc or
     malloc_usable_size if it is not ours, and glibc reads the chunk's
     size at P - 8 first, on the same page (P is 16-aligned).  A P whose
     header page is not readable faults there without the monitor too.
     (Asking the kernel, with mincore(2), would cost a system call and
     not see PROT_NONE pages.) */
  if ((a & 15) != 0 || a < 4096)
    return 0;
  struct hi_block_header *h = (struct hi_block_header *) p - 1;
  uint64_t sf = h->size_flags;
  if (h->check != hi_block_check (heapinspect_root.header_salt,
                                  (uint64_t) a - HDR, h->site, sf))
    return 0;
  b->h = h;
  b->site = h->site;
  b->size = sf & HI_BLOCK_SIZE_MASK;
  b->aligned = (sf & HI_BLOCK_ALIGNED) != 0;
  b->birth = hi_state.birth ? (void *) (h - 1) : NULL;
  b->base = (char *) h - hi_state.birth;
  if (b->aligned)
    {
      uint64_t off = ((uint64_t *) b->base)[-1];
      if (off <= hi_state.birth || (off & 15) != 0
          || off > (uint64_t) a - 4096)
        return 0;
      b->base = (char *) h - off;
    }
  return b->site == HI_SITE_INTERNAL
         || b->site < heapinspect_root.arenas[HI_A_SITES].count;
}

/* 1 if the program frees B in the thread that allocated it with no
   allocation or free in between (a temporary, as heaptrack counts them:
   its last allocation is forgotten at every free). */
static inline HOT int
temporary (const struct block *b)
{
  int is = ~(uintptr_t) (b->h + 1) == hi_tls.last_block;
  hi_tls.last_block = 0;
  return is;
}

/* The program frees block B from CALLER in call WHEN (enum
   hi_error_when): its redzone is checked, then it is counted as freed
   and goes to the quarantine or back to glibc. */
static inline HOT void
release (struct block *b, const struct hi_frame *caller, int when)
{
  if (HI_UNLIKELY (HI_POST) && b->site != HI_SITE_INTERNAL)
    hi_guard_check_redzone ((uint64_t) (uintptr_t) (b->h + 1), b->size,
                            b->site, caller, when);
  int smashed = !hi_guard_chunk_ok (b->base, b->h + 1, b->size, b->aligned);
  if (HI_UNLIKELY (smashed))
    hi_guard_chunk_smashed ((uint64_t) (uintptr_t) (b->h + 1), b->size,
                            b->site, HI_SITE_UNKNOWN, caller, when);
  if (HI_UNLIKELY (b->h->size_flags & HI_BLOCK_TYPE_MASK))
    hi_types_freed (b->h->size_flags, b->site);
  int held = HI_UNLIKELY (hi_state.guard.quarantine)
             && b->site != HI_SITE_INTERNAL && !smashed;
  /* A second free finds a freed header; a smashed block is leaked (glibc
     would abort on it).  Cleared before the counts change: a thread
     stopped in between shows no header the counts have freed. */
  if (!held)
    b->h->check = ~b->h->check;
  hi_account_free (b->site, b->size, b->site == HI_SITE_INTERNAL ? NULL
                   : b->birth, temporary (b));
  if (HI_UNLIKELY (smashed))
    return;
  if (held)
    {
      hi_quarantine_put (b->h, b->base, b->size, b->site, caller);
      return;
    }
  __libc_free (b->base);
}

static inline HOT void *
alloc_plain (size_t n, const struct hi_frame *caller)
{
  if (n > SIZE_MAX - PRE_MAX)
    {
      errno = ENOMEM;
      return NULL;
    }
  uint32_t site = site_for (caller);
  if (HI_UNLIKELY (site == HI_SITE_OFF))
    return __libc_malloc (n);
  void *base = __libc_malloc (n + PRE + HI_POST);
  return base ? finish (base, hi_state.birth, site, n) : NULL;
}

/* ALIGN is a power of two.  Above 16 the header sits in the padding
   before the user pointer (ALIGN bytes, or a multiple of ALIGN to hold
   the birth stamp and the offset too).  USABLE bytes are handed out and
   RECORDED counted (they differ for pvalloc only). */
static void *
alloc_aligned_sized (size_t align, size_t usable, uint64_t recorded,
                     const struct hi_frame *caller)
{
  if (align <= HDR && usable == recorded)
    return alloc_plain (usable, caller);
  if (align < HDR)
    align = HDR;
  if (usable > SIZE_MAX - align - PRE_MAX)
    {
      errno = ENOMEM;
      return NULL;
    }
  uint32_t site = site_for (caller);
  if (HI_UNLIKELY (site == HI_SITE_OFF))
    return __libc_memalign (align, usable);
  size_t pad = align;
  while (pad < PRE + sizeof (uint64_t))
    pad += align;
  void *base = __libc_memalign (align, usable + pad + HI_POST);
  return base ? finish (base, pad - HDR, site, recorded) : NULL;
}

static void *
alloc_aligned (size_t align, size_t n, const struct hi_frame *caller)
{
  return alloc_aligned_sized (align, n, n, caller);
}

/* What glibc's pointer of P is while the monitor is not running (it
   could not start, or this thread is starting it): a block with our
   header, made before, goes back from its base, its header marked
   freed first (as release marks it). */
static void *
forget (void *p)
{
  struct block b;
  if (!lookup (p, &b))
    return p;
  b.h->check = ~b.h->check;
  return b.base;
}

/* In a monitor started by heapinspect_attach: 1 if P, not a block of
   ours, goes to glibc as it is: a block from before the attach while
   attached (counted in foreign_frees), anything after the detach (no
   longer watched). */
static int
foreign_attached (void *p)
{
  int a = atomic_load_explicit (&hi_state.attach, memory_order_relaxed);
  if (a == HI_ATTACH_DETACHED)
    return 1;
  if (!hi_guard_foreign_chunk (p))
    return 0;
  HI_ADD (heapinspect_root.totals.foreign_frees, 1);
  return 1;
}

static inline HOT void
free_any (void *p, const struct hi_frame *caller)
{
  struct block b;
  if (!p)
    return;
  if (HI_UNLIKELY (!hi_ensure_init ()))
    __libc_free (forget (p));
  else if (lookup (p, &b))
    release (&b, caller, HI_WHEN_FREE);
  else if (HI_UNLIKELY (atomic_load_explicit (&hi_state.attach,
                                              memory_order_relaxed))
           && foreign_attached (p))
    __libc_free (p);
  else if (hi_guard_bad_pointer (p, caller, HI_WHEN_FREE))
    {
      HI_ADD (heapinspect_root.totals.foreign_frees, 1);
      __libc_free (p);
    }
}

static void *
realloc_any (void *p, size_t n, const struct hi_frame *caller)
{
  struct block b;
  if (!p)
    return alloc_plain (n, caller);
  if (HI_UNLIKELY (!hi_ensure_init ()))
    {
      if (!lookup (p, &b))
        return __libc_realloc (p, n);
      /* A block with our header, made before: moved to a plain one
         (glibc's realloc (p, 0) frees p and returns NULL). */
      void *q = n ? __libc_malloc (n) : NULL;
      if (q)
        memcpy (q, p, b.size < n ? b.size : n);
      if (q || n == 0)
        __libc_free (forget (p));
      return q;
    }
  if (!lookup (p, &b))
    {
      if (HI_UNLIKELY (atomic_load_explicit (&hi_state.attach,
                                             memory_order_relaxed))
          && foreign_attached (p))
        return __libc_realloc (p, n);
      if (!hi_guard_bad_pointer (p, caller, HI_WHEN_REALLOC))
        {
          errno = ENOMEM;   /* a heap error, reported: P is left alone */
          return NULL;
        }
      HI_ADD (heapinspect_root.totals.foreign_frees, 1);
      return __libc_realloc (p, n);
    }
  if (n == 0)
    {
      /* glibc: realloc (p, 0) frees p, returns NULL */
      release (&b, caller, HI_WHEN_REALLOC);
      return NULL;
    }
  if (n > SIZE_MAX - PRE_MAX)
    {
      errno = ENOMEM;
      return NULL;
    }
  if (HI_UNLIKELY (atomic_load_explicit (&hi_state.attach,
                                         memory_order_relaxed)
                   == HI_ATTACH_DETACHED))
    {
      /* Detached: the block leaves the monitor, moved to a plain one
         of glibc's (its free counted); nothing new is recorded. */
      void *q = __libc_malloc (n);
      if (q)
        {
          memcpy (q, p, b.size < n ? b.size : n);
          release (&b, caller, HI_WHEN_REALLOC);
        }
      return q;
    }
  /* With a quarantine the old block is held, as a free would hold it:
     a use of it after the realloc is then found too.  A block whose
     chunk size word is smashed is never handed to glibc's realloc:
     release reports it and leaks it. */
  if (b.aligned || HI_UNLIKELY (hi_state.guard.quarantine)
      || HI_UNLIKELY (!hi_guard_chunk_ok (b.base, p, b.size, 0)))
    {
      void *q = alloc_plain (n, caller);
      if (q)
        {
          memcpy (q, p, b.size < n ? b.size : n);
          release (&b, caller, HI_WHEN_REALLOC);
        }
      return q;
    }
  if (HI_UNLIKELY (HI_POST))
    hi_guard_check_redzone ((uint64_t) (uintptr_t) p, b.size, b.site,
                            caller, HI_WHEN_REALLOC);
  /* Not a temporary: the block lives on, moved (libheapinspect(7)). */
  uint32_t site = site_for (caller);
  struct hi_block_birth born = b.birth ? *b.birth : (struct hi_block_birth) { 0, 0 };
  uint64_t typed = b.h->size_flags;
  /* The old header says "freed" before glibc has the chunk: a block
     glibc moves is freed there, and merged into a free chunk before it
     its header would survive, valid for its address, a live block to
     every reader that finds blocks by their headers (the leak scan,
     `block ADDR`).  A block grown or shrunk in place gets its header
     back from finish; if glibc fails, the block and its header stay.
     Meanwhile a reader (another thread's snapshot, a core) finds the
     block freed and not yet counted so: missing, never twice. */
  b.h->check = ~b.h->check;
  void *nb = __libc_realloc (b.base, n + PRE + HI_POST);
  if (!nb)
    {
      b.h->check = ~b.h->check;   /* the old block is untouched */
      return NULL;
    }
  hi_account_free (b.site, b.size, b.birth && b.site != HI_SITE_INTERNAL
                   ? &born : NULL, 0);
  void *q = finish (nb, hi_state.birth, site, n);
  if (HI_UNLIKELY (typed & HI_BLOCK_TYPE_MASK))
    hi_types_moved (q, typed, b.site);   /* the type goes with the bytes */
  return q;
}

static size_t
round_pow2 (size_t a)
{
  size_t r = 1;
  while (r < a && r)
    r <<= 1;
  return r;
}

PUBLIC void *
ENTRY (malloc) (size_t n)
{
  if (FROM_LOADER ())
    return __libc_malloc (n);
  HI_CALLER_FRAME (caller);
  COUNT_CALL (malloc);
  return alloc_plain (n, &caller);
}

PUBLIC void
ENTRY (free) (void *p)
{
  if (FROM_LOADER ())
    {
      __libc_free (p);
      return;
    }
  HI_CALLER_FRAME (caller);
  COUNT_CALL (free);
  free_any (p, &caller);
}

PUBLIC void *
ENTRY (calloc) (size_t k, size_t n)
{
  if (FROM_LOADER ())
    return __libc_calloc (k, n);
  HI_CALLER_FRAME (caller);
  COUNT_CALL (calloc);
  size_t total;
  if (__builtin_mul_overflow (k, n, &total) || total > SIZE_MAX - PRE_MAX)
    {
      errno = ENOMEM;
      return NULL;
    }
  uint32_t site = site_for (&caller);
  if (HI_UNLIKELY (site == HI_SITE_OFF))
    return __libc_calloc (k, n);
  void *base = __libc_calloc (1, total + PRE + HI_POST);
  return base ? finish (base, hi_state.birth, site, total) : NULL;
}

PUBLIC void *
ENTRY (realloc) (void *p, size_t n)
{
  if (FROM_LOADER ())
    return __libc_realloc (p, n);
  HI_CALLER_FRAME (caller);
  COUNT_CALL (realloc);
  return realloc_any (p, n, &caller);
}

PUBLIC void *
ENTRY (reallocarray) (void *p, size_t k, size_t n)
{
  HI_CALLER_FRAME (caller);
  COUNT_CALL (reallocarray);
  size_t total;
  if (__builtin_mul_overflow (k, n, &total))
    {
      errno = ENOMEM;
      return NULL;
    }
  return realloc_any (p, total, &caller);
}

/* memalign and aligned_alloc: any alignment up to half the address
   space, rounded up to a power of two (glibc's behaviour). */
static void *
memalign_any (size_t align, size_t n, const struct hi_frame *caller)
{
  if (align > SIZE_MAX / 2 + 1)
    {
      errno = EINVAL;
      return NULL;
    }
  return alloc_aligned (round_pow2 (align), n, caller);
}

PUBLIC void *
ENTRY (memalign) (size_t align, size_t n)
{
  if (FROM_LOADER ())
    return __libc_memalign (align, n);
  HI_CALLER_FRAME (caller);
  COUNT_CALL (memalign);
  return memalign_any (align, n, &caller);
}

PUBLIC void *
ENTRY (aligned_alloc) (size_t align, size_t n)
{
  HI_CALLER_FRAME (caller);
  COUNT_CALL (aligned_alloc);
  return memalign_any (align, n, &caller);
}

PUBLIC int
ENTRY (posix_memalign) (void **out, size_t align, size_t n)
{
  HI_CALLER_FRAME (caller);
  COUNT_CALL (posix_memalign);
  if (align < sizeof (void *) || (align & (align - 1)) != 0)
    return EINVAL;
  int saved = errno;
  void *p = alloc_aligned (align, n, &caller);
  if (!p)
    return ENOMEM;
  errno = saved;
  *out = p;
  return 0;
}

PUBLIC void *
ENTRY (valloc) (size_t n)
{
  HI_CALLER_FRAME (caller);
  COUNT_CALL (valloc);
  return alloc_aligned (hi_prim_page_size (), n, &caller);
}

PUBLIC void *
ENTRY (pvalloc) (size_t n)
{
  HI_CALLER_FRAME (caller);
  COUNT_CALL (pvalloc);
  size_t page = hi_prim_page_size ();
  if (n > SIZE_MAX - page)
    {
      errno = ENOMEM;
      return NULL;
    }
  /* The block spans whole pages, as glibc's does; the count is of the
     size asked for, as for every other entry point. */
  size_t usable = n ? (n + page - 1) & ~(page - 1) : page;
  return alloc_aligned_sized (page, usable, n, &caller);
}

#ifdef HI_WRAP
extern size_t __real_malloc_usable_size (void *);
# define underlying_usable_size __real_malloc_usable_size
#else
typedef size_t usable_fn (void *);
static size_t
underlying_usable_size (void *p)
{
  usable_fn *f = atomic_load_explicit (&hi_state.libc_usable_size,
                                       memory_order_acquire);
  if (!f)
    {
      hi_tls.busy++;   /* dlsym may allocate */
      f = (usable_fn *) dlsym (RTLD_NEXT, "malloc_usable_size");
      hi_tls.busy--;
      if (!f)
        return 0;
      atomic_store_explicit (&hi_state.libc_usable_size, f,
                             memory_order_release);
    }
  return f (p);
}
#endif

PUBLIC size_t
ENTRY (malloc_usable_size) (void *p)
{
  HI_CALLER_FRAME (caller);
  COUNT_CALL (malloc_usable_size);
  struct block b;
  if (!p)
    return 0;
  if (HI_UNLIKELY (!hi_ensure_init ()))
    return lookup (p, &b) ? b.size : underlying_usable_size (p);
  if (!lookup (p, &b))
    {
      if (HI_UNLIKELY (atomic_load_explicit (&hi_state.attach,
                                             memory_order_relaxed))
          && (atomic_load (&hi_state.attach) == HI_ATTACH_DETACHED
              || hi_guard_foreign_chunk (p)))
        return underlying_usable_size (p);
      if (!hi_guard_bad_pointer (p, &caller, HI_WHEN_USABLE_SIZE))
        return 0;
      return underlying_usable_size (p);
    }
  /* The redzone right after the block is not the program's to use;
     a smashed chunk size would say more than there is. */
  if (HI_POST || !hi_guard_chunk_ok (b.base, p, b.size, b.aligned))
    return b.size;
  size_t whole = underlying_usable_size (b.base);
  size_t before = (size_t) ((char *) p - (char *) b.base);
  return whole > before + b.size ? whole - before : b.size;
}

#ifndef HI_WRAP
/* attach.h: the entry points by hidden names, for the GOTs that
   heapinspect_attach redirects here. */
# define OWN(name) \
  extern __typeof (name) hi_own_##name \
    __attribute__ ((alias (#name), copy (name)));
OWN (malloc)
OWN (free)
OWN (calloc)
OWN (realloc)
OWN (reallocarray)
OWN (posix_memalign)
OWN (aligned_alloc)
OWN (memalign)
OWN (valloc)
OWN (pvalloc)
OWN (malloc_usable_size)
#endif
