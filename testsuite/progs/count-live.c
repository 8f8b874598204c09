/* count-live.c - an LD_PRELOAD library for real-programs.exp that counts
   the blocks a program holds, for a program nobody here wrote: malloc,
   calloc, realloc, free and the aligned allocators, each passed on to
   glibc's own (__libc_*), so glibc's heap is the one it would have
   been, while count_live_blocks counts the blocks handed out and not
   freed.  gdb reads that variable at the point the core is written.
   The blocks are remembered in a hash table in .bss, each address
   stored complemented, so that the table holds no pointer into the
   heap (a leak check would take it for a root).  Nothing here
   allocates. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);
extern void *__libc_memalign (size_t, size_t);
extern void __libc_free (void *);

#define SLOTS (1u << 18)        /* room for 100000 live blocks and more */
#define EMPTY 0u
#define GONE 1u                 /* a freed slot, for the probes */

long count_live_blocks;
static uintptr_t table[SLOTS];
static int lock;

static void
take (void)
{
  while (__atomic_exchange_n (&lock, 1, __ATOMIC_ACQUIRE))
    ;
}

static void
give (void)
{
  __atomic_store_n (&lock, 0, __ATOMIC_RELEASE);
}

static uintptr_t
slot_of (uintptr_t key)
{
  return (key >> 4) & (SLOTS - 1);
}

static void
add (void *p)
{
  if (!p)
    return;
  uintptr_t key = ~(uintptr_t) p;
  take ();
  uintptr_t h = slot_of (key);
  while (table[h] != EMPTY && table[h] != GONE)
    h = (h + 1) & (SLOTS - 1);
  table[h] = key;
  count_live_blocks++;
  give ();
}

static void
drop (void *p)
{
  if (!p)
    return;
  uintptr_t key = ~(uintptr_t) p;
  take ();
  for (uintptr_t h = slot_of (key); table[h] != EMPTY;
       h = (h + 1) & (SLOTS - 1))
    if (table[h] == key)
      {
        table[h] = GONE;
        count_live_blocks--;
        break;
      }
  give ();
}

void *
malloc (size_t n)
{
  void *p = __libc_malloc (n);
  add (p);
  return p;
}

void *
calloc (size_t n, size_t size)
{
  void *p = __libc_calloc (n, size);
  add (p);
  return p;
}

void *
realloc (void *old, size_t n)
{
  void *p = __libc_realloc (old, n);
  if (p || (old && n == 0))     /* moved, or freed (glibc's realloc (p, 0)) */
    drop (old);
  add (p);
  return p;
}

void
free (void *p)
{
  drop (p);
  __libc_free (p);
}

void *
memalign (size_t align, size_t n)
{
  void *p = __libc_memalign (align, n);
  add (p);
  return p;
}

void *
aligned_alloc (size_t align, size_t n)
{
  return memalign (align, n);
}

int
posix_memalign (void **out, size_t align, size_t n)
{
  if (align % sizeof (void *) != 0 || (align & (align - 1)) != 0)
    return EINVAL;
  void *p = memalign (align, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}

void *
valloc (size_t n)
{
  return memalign (4096, n);
}

void *
pvalloc (size_t n)
{
  return memalign (4096, (n + 4095) & ~(size_t) 4095);
}
