/* dwscopes.h - the DWARF scopes holding a code address, as libdw's
   dwarf_getscopes and dwarf_getscopes_die give them, found through an
   index of each unit's top-level DIEs by address range instead of a walk
   of the whole unit per address (a unit of N functions made every
   lookup O(N): 3 000 functions in one file took 0.2 ms per address). */
#ifndef HI_DWSCOPES_H
#define HI_DWSCOPES_H

#include <elfutils/libdw.h>
#include <stdint.h>

struct hi_dwscopes;

/* An empty index: units are indexed on their first lookup.  NULL if out
   of memory.  Not thread-safe (one per symbolizer). */
struct hi_dwscopes *hi_dwscopes_new (void);
/* Frees IX (NULL is fine); the arrays it handed out stay the caller's. */
void hi_dwscopes_free (struct hi_dwscopes *ix);

/* What dwarf_getscopes (CU, PC, SCOPES) returns, the same DIEs in the
   same order: the scopes holding PC (an address of CU's DWARF, not
   biased), innermost first, through the unit's DIE (or the abstract
   definition's scopes past an inlined instance); their number, 0 if
   none, -1 on error.  *SCOPES is set (malloc'd, the caller frees it)
   only when the number is > 0.  CU and its Dwarf must outlive IX. */
int hi_dwscopes_pc (struct hi_dwscopes *ix, Dwarf_Die *cu, Dwarf_Addr pc,
                    Dwarf_Die **scopes);

/* What dwarf_getscopes_die (DIE, SCOPES) returns: DIE and the DIEs
   holding it, innermost first, through its unit's DIE; their number, or
   -1 (*SCOPES as above). */
int hi_dwscopes_die (struct hi_dwscopes *ix, Dwarf_Die *die,
                     Dwarf_Die **scopes);

/* Lookups answered by libdw's own walk because the index could not
   answer them exactly (damaged ranges, scopes of other kinds): a test
   hook, not thread-safe. */
extern uint64_t hi_dwscopes_fallbacks;

#endif
