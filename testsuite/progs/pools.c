/* pools.c - the client API's pools: a bump allocator over mmap'd memory
   (no malloc) with two pools, "nodes" and "blobs": 600 nodes (100 freed
   one by one) and 400 blobs (freed by a reset of their pool).  With
   "nopools", the same run without telling the monitor.  Prints what it
   did, for the test. */
#define _GNU_SOURCE
#include <heapinspect/heapinspect.h>

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

struct arena
{
  char *base;
  size_t used, cap;
  int tell;
};

struct node { long key; struct node *next; };
struct blob { char data[100]; };

static __attribute__ ((noinline)) void *
arena_alloc (struct arena *a, size_t n)
{
  size_t rounded = (n + 15) & ~(size_t) 15;
  if (a->used + rounded > a->cap)
    return NULL;
  void *p = a->base + a->used;
  a->used += rounded;
  if (a->tell)
    heapinspect_alloc (a, p, n);
  return p;
}

static __attribute__ ((noinline)) void
arena_free (struct arena *a, void *p)
{
  if (a->tell)
    heapinspect_free (a, p);   /* a bump allocator keeps the bytes */
}

static void
arena_reset (struct arena *a)
{
  a->used = 0;
  if (a->tell)
    heapinspect_pool_reset (a);
}

static __attribute__ ((noinline)) struct node *
make_node (struct arena *a, long key)
{
  struct node *n = arena_alloc (a, sizeof *n);
  n->key = key;
  n->next = NULL;
  return n;
}

static __attribute__ ((noinline)) struct blob *
make_blob (struct arena *a)
{
  struct blob *b = arena_alloc (a, sizeof *b);
  memset (b, 1, sizeof *b);
  return b;
}

static void
arena_init (struct arena *a, size_t cap, const char *name, int tell)
{
  a->base = mmap (NULL, cap, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  a->used = 0;
  a->cap = cap;
  a->tell = tell;
  if (tell)
    heapinspect_pool_create (a, name);
}

int
main (int argc, char **argv)
{
  int tell = !(argc > 1 && strcmp (argv[1], "nopools") == 0);
  static struct arena nodes, blobs;
  arena_init (&nodes, 1 << 20, "nodes", tell);
  arena_init (&blobs, 1 << 20, "blobs", tell);
  struct node *kept[600];
  for (int i = 0; i < 1000; i++)
    if (i % 5 < 3)
      kept[i / 5 * 3 + i % 5] = make_node (&nodes, i);
    else
      make_blob (&blobs);
  for (int i = 0; i < 100; i++)
    arena_free (&nodes, kept[i * 6]);
  arena_reset (&blobs);
  printf ("pool nodes %zu %zu %d %zu\n", (size_t) 600, 600 * sizeof (struct node),
          500, 500 * sizeof (struct node));
  printf ("pool blobs %zu %zu %d %d\n", (size_t) 400, 400 * sizeof (struct blob),
          0, 0);
  printf ("sum %ld\n", kept[1]->key + kept[599]->key);
  return 0;
}
