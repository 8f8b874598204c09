/* dwscopes.c - dwarf_getscopes and dwarf_getscopes_die through an index
   of each unit's top-level DIEs by address, with the same answers.

   libdw finds the scopes of an address by a walk from the unit's DIE
   that enters, at each level, the first DIE (in DIE order) whose ranges
   hold the address; at the top level of a unit of N functions that is N
   range lookups per address.  Here each unit's top-level DIEs and their
   ranges are read once into an array sorted by address, and the same
   walk goes on from the DIE found (a function's few children).  Finding
   a DIE's parents (dwarf_getscopes_die walks the whole unit) goes down
   from its top-level DIE by offsets.  Whatever the index cannot answer
   exactly (a DIE whose ranges libdw cannot read, scopes other than
   functions, lexical blocks and inlined instances, imported units) is
   left to libdw. */
#include "symbols/dwscopes.h"
#include "util/hash.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

uint64_t hi_dwscopes_fallbacks;

/* One address range of a top-level DIE. */
struct range
{
  Dwarf_Addr lo, hi;         /* [lo, hi), as dwarf_haspc compares */
  uint32_t kid;              /* the DIE: its index in DIE order */
};

#define NONE UINT32_MAX

struct unit
{
  void *key;                 /* the unit DIE's address in libdw's data */
  int usable;                /* 0: every lookup goes to libdw */
  Dwarf_Die *kids;           /* top-level DIEs in DIE order */
  Dwarf_Off *kid_off;        /* ... and their offsets (ascending) */
  uint32_t nkids;
  struct range *ranges;      /* by lo */
  Dwarf_Addr *max_hi;        /* max_hi[i]: the highest hi of ranges[0..i] */
  uint32_t nranges;
  uint32_t first_bad;        /* the first kid whose ranges libdw could not
                                read (dwarf_haspc fails on it), or NONE */
  uint32_t first_import;     /* the first DW_TAG_imported_unit kid, or NONE */
};

struct hi_dwscopes
{
  struct unit *units;
  uint32_t n, cap;
  struct hi_hash by_key;
};

struct hi_dwscopes *
hi_dwscopes_new (void)
{
  struct hi_dwscopes *ix = calloc (1, sizeof *ix);
  if (ix)
    hi_hash_init (&ix->by_key);
  return ix;
}

static void
unit_free (struct unit *u)
{
  free (u->kids);
  free (u->kid_off);
  free (u->ranges);
  free (u->max_hi);
}

void
hi_dwscopes_free (struct hi_dwscopes *ix)
{
  if (!ix)
    return;
  for (uint32_t i = 0; i < ix->n; i++)
    unit_free (&ix->units[i]);
  free (ix->units);
  hi_hash_free (&ix->by_key);
  free (ix);
}

static int
by_lo (const void *x, const void *y)
{
  const struct range *a = x, *b = y;
  if (a->lo != b->lo)
    return a->lo < b->lo ? -1 : 1;
  return a->kid < b->kid ? -1 : a->kid > b->kid;
}

/* Grow *V (of *CAP elements of SIZE) to hold N + 1; 0, or -1. */
static int
grow (void **v, uint32_t n, uint32_t *cap, size_t size)
{
  if (n < *cap)
    return 0;
  if (*cap >= UINT32_MAX / 2)
    return -1;
  uint32_t c = *cap ? *cap * 2 : 16;
  void *p = realloc (*v, (size_t) c * size);
  if (!p)
    return -1;
  *v = p;
  *cap = c;
  return 0;
}

/* Read the top-level DIEs of unit CU and their ranges into U (U->key
   set).  U stays unusable if libdw cannot list them or memory runs
   out: its lookups then go to libdw. */
static void
unit_build (struct unit *u, Dwarf_Die *cu)
{
  u->first_bad = u->first_import = NONE;
  Dwarf_Die kid;
  if (dwarf_child (cu, &kid) != 0)
    return;
  uint32_t cap_kids = 0, cap_ranges = 0, cap_off = 0;
  do
    {
      if (grow ((void **) &u->kids, u->nkids, &cap_kids, sizeof *u->kids) != 0
          || grow ((void **) &u->kid_off, u->nkids, &cap_off,
                   sizeof *u->kid_off) != 0)
        return;
      uint32_t k = u->nkids++;
      u->kids[k] = kid;
      u->kid_off[k] = dwarf_dieoffset (&kid);
      if (dwarf_tag (&kid) == DW_TAG_imported_unit && u->first_import == NONE)
        u->first_import = k;
      Dwarf_Addr base, lo, hi;
      ptrdiff_t off = 0;
      while ((off = dwarf_ranges (&kid, off, &base, &lo, &hi)) > 0)
        {
          if (grow ((void **) &u->ranges, u->nranges, &cap_ranges,
                    sizeof *u->ranges) != 0)
            return;
          u->ranges[u->nranges++] = (struct range) { lo, hi, k };
        }
      if (off < 0 && u->first_bad == NONE)
        u->first_bad = k;
    }
  while (dwarf_siblingof (&kid, &kid) == 0);
  qsort (u->ranges, u->nranges, sizeof *u->ranges, by_lo);
  u->max_hi = malloc ((u->nranges ? u->nranges : 1) * sizeof *u->max_hi);
  if (!u->max_hi)
    return;
  for (uint32_t i = 0; i < u->nranges; i++)
    u->max_hi[i] = i && u->max_hi[i - 1] > u->ranges[i].hi
                   ? u->max_hi[i - 1] : u->ranges[i].hi;
  u->usable = 1;
}

struct key_ctx
{
  const struct hi_dwscopes *ix;
  void *key;
};

static int
same_key (const void *ctx, uint32_t id)
{
  const struct key_ctx *k = ctx;
  return k->ix->units[id].key == k->key;
}

/* The index of unit CU, built on first use; NULL if out of memory. */
static struct unit *
unit_of (struct hi_dwscopes *ix, Dwarf_Die *cu)
{
  struct key_ctx k = { ix, cu->addr };
  uint64_t h = hi_hash_u64 ((uint64_t) (uintptr_t) cu->addr);
  uint32_t id = hi_hash_find (&ix->by_key, h, same_key, &k);
  if (id != UINT32_MAX)
    return &ix->units[id];
  if (grow ((void **) &ix->units, ix->n, &ix->cap, sizeof *ix->units) != 0
      || hi_hash_insert (&ix->by_key, h, ix->n) != 0)
    return NULL;
  struct unit *u = &ix->units[ix->n++];
  memset (u, 0, sizeof *u);
  u->key = cu->addr;
  unit_build (u, cu);
  return u;
}

/* The first top-level DIE of U (in DIE order) whose ranges hold PC, or
   NONE. */
static uint32_t
kid_at (const struct unit *u, Dwarf_Addr pc)
{
  uint32_t lo = 0, hi = u->nranges;     /* first range with lo > pc */
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (u->ranges[mid].lo <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* Ranges before it that reach past PC hold it: overlapping ranges
     (damaged input) are all looked at. */
  uint32_t best = NONE;
  for (uint32_t i = lo; i-- > 0 && u->max_hi[i] > pc;)
    if (u->ranges[i].hi > pc && u->ranges[i].kid < best)
      best = u->ranges[i].kid;
  return best;
}

/* Grow *PATH to hold *N + 1 DIEs and append DIE; 0, or -1. */
static int
push (Dwarf_Die **path, uint32_t *n, uint32_t *cap, const Dwarf_Die *die)
{
  if (grow ((void **) path, *n, cap, sizeof **path) != 0)
    return -1;
  (*path)[(*n)++] = *die;
  return 0;
}

/* Scopes libdw's walks enter on their way down (every version of it);
   a path through any other is left to libdw. */
static int
entered (Dwarf_Die *die)
{
  int tag = dwarf_tag (die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine
         || tag == DW_TAG_lexical_block;
}

/* PATH[FROM, N) innermost first, then the N2 DIEs at TAIL, malloc'd
   into *OUT; their number, or -1 if out of memory. */
static int
join (const Dwarf_Die *path, uint32_t from, uint32_t n, const Dwarf_Die *tail,
      uint32_t n2, Dwarf_Die **out)
{
  uint32_t total = n - from + n2;
  if (total > INT32_MAX)
    return -1;
  Dwarf_Die *v = malloc ((total ? total : 1) * sizeof *v);
  if (!v)
    return -1;
  uint32_t k = 0;
  for (uint32_t i = n; i-- > from;)
    v[k++] = path[i];
  for (uint32_t i = 0; i < n2; i++)
    v[k++] = tail[i];
  *out = v;
  return (int) total;
}

/* The scopes of PC in T, the first top-level DIE of the unit CU holding
   PC, as libdw's walk from the unit gives them; -2 if only that walk
   can tell.  The walk enters, at each level, the first child holding PC
   (the DIEs after it are never looked at) and stops at a DIE none of
   whose children does: the innermost scope.  Without an inlined
   instance on the way, the scopes are that path, innermost first, and
   the unit.  With one, they run from the innermost to the deepest
   inlined instance, then continue with the DIEs holding that instance's
   abstract definition (which libdw finds as dwarf_getscopes_die does),
   or there are none if that is not found. */
static int
scopes_in (struct hi_dwscopes *ix, Dwarf_Die *cu, Dwarf_Die *t,
           Dwarf_Addr pc, Dwarf_Die **scopes)
{
  Dwarf_Die *path = NULL;
  uint32_t n = 0, cap = 0, inlined = 0;    /* path index + 1, 0: none */
  int r = -2;
  Dwarf_Die cur = *t;
  if (push (&path, &n, &cap, &cur) != 0)
    return -1;
  for (;;)
    {
      if (!entered (&cur))
        goto out;
      if (!dwarf_haschildren (&cur))
        break;
      Dwarf_Die child;
      int found = 0;
      /* (Children promised but none there: versions of libdw differ.) */
      if (dwarf_child (&cur, &child) != 0)
        goto out;
      do
        {
          int h = dwarf_haspc (&child, pc);
          if (h < 0)
            goto out;        /* libdw stops for some errors, not others */
          found = h > 0;
        }
      while (!found && dwarf_siblingof (&child, &child) == 0);
      if (!found)
        break;
      if (push (&path, &n, &cap, &child) != 0)
        {
          r = -1;
          goto out;
        }
      if (dwarf_tag (&child) == DW_TAG_inlined_subroutine)
        inlined = n;
      cur = child;
    }
  if (!inlined)
    r = join (path, 0, n, cu, 1, scopes);
  else
    {
      Dwarf_Attribute attr;
      Dwarf_Die origin, *os = NULL;
      if (!dwarf_formref_die (dwarf_attr (&path[inlined - 1],
                                          DW_AT_abstract_origin, &attr),
                              &origin))
        goto out;
      int no = hi_dwscopes_die (ix, &origin, &os);
      if (no < 0)
        goto out;
      /* The definition's scopes without the definition itself. */
      r = no == 0 ? 0 : join (path, inlined - 1, n, os + 1,
                              (uint32_t) no - 1, scopes);
      if (no > 0)
        free (os);
    }
out:
  free (path);
  return r;
}

int
hi_dwscopes_pc (struct hi_dwscopes *ix, Dwarf_Die *cu, Dwarf_Addr pc,
                Dwarf_Die **scopes)
{
  struct unit *u = cu ? unit_of (ix, cu) : NULL;
  if (u && u->usable && u->nkids > 0)
    {
      uint32_t k = kid_at (u, pc);
      /* libdw stops at a DIE whose ranges it cannot read. */
      if (u->first_bad == NONE || (k != NONE && k < u->first_bad))
        {
          if (k == NONE)
            return 0;
          if (dwarf_tag (&u->kids[k]) == DW_TAG_subprogram)
            {
              int n = scopes_in (ix, cu, &u->kids[k], pc, scopes);
              if (n != -2)
                return n;
            }
        }
    }
  hi_dwscopes_fallbacks++;
  return dwarf_getscopes (cu, pc, scopes);
}

/* The path from the top-level DIE T down to the DIE at offset OFF inside
   it, found by offsets (a DIE's subtree spans the offsets up to its next
   sibling's), innermost first and then CU, into *SCOPES; its length, or
   -2 if it passes through a DIE libdw's walk would not enter. */
static int
path_to (Dwarf_Die *cu, Dwarf_Die *t, Dwarf_Off off, Dwarf_Die **scopes)
{
  Dwarf_Die *path = NULL;
  uint32_t n = 0, cap = 0;
  Dwarf_Die cur = *t;
  int r = -2;
  for (;;)
    {
      if (push (&path, &n, &cap, &cur) != 0)
        {
          r = -1;
          break;
        }
      if (dwarf_dieoffset (&cur) == off)
        {
          r = join (path, 0, n, cu, 1, scopes);
          break;
        }
      Dwarf_Die child, next;
      if (!entered (&cur) || dwarf_child (&cur, &child) != 0)
        break;
      for (;;)
        {
          int last = dwarf_siblingof (&child, &next) != 0;
          if (last || dwarf_dieoffset (&next) > off)
            break;
          child = next;
        }
      if (dwarf_dieoffset (&child) > off)
        break;
      cur = child;
    }
  free (path);
  return r;
}

int
hi_dwscopes_die (struct hi_dwscopes *ix, Dwarf_Die *die, Dwarf_Die **scopes)
{
  if (!die)
    return -1;
  Dwarf_Die cu;
  struct unit *u = dwarf_diecu (die, &cu, NULL, NULL) ? unit_of (ix, &cu)
                                                       : NULL;
  if (u && u->usable && u->nkids > 0)
    {
      Dwarf_Off off = dwarf_dieoffset (die);
      uint32_t lo = 0, hi = u->nkids;   /* the first kid past OFF */
      while (lo < hi)
        {
          uint32_t mid = lo + (hi - lo) / 2;
          if (u->kid_off[mid] <= off)
            lo = mid + 1;
          else
            hi = mid;
        }
      /* libdw's walk enters imported units on its way: left to it. */
      if (lo > 0 && (u->first_import == NONE || u->first_import >= lo - 1))
        {
          int n = path_to (&cu, &u->kids[lo - 1], off, scopes);
          if (n != -2)
            return n;
        }
    }
  hi_dwscopes_fallbacks++;
  return dwarf_getscopes_die (die, scopes);
}
