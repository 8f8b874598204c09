/* mapsyms.h - symbols of the ELF files a target maps, by address, with
   no monitor and no DWARF needed (their .symtab, else .dynsym): C++
   classes by their vtables (a block whose first word points into a
   `_ZTV` symbol is an object of that class, as core_analyzer tells
   them), and functions (a thread's start function). */
#ifndef HI_MAPSYMS_H
#define HI_MAPSYMS_H

#include <stdint.h>

#include "hi-reader.h"

struct hi_mapsyms;

/* What hi_mapsyms_new reads. */
#define HI_MAPSYMS_VTABLES 1u
#define HI_MAPSYMS_FUNCTIONS 2u

/* The symbols WHAT (HI_MAPSYMS_*) of every ELF file T has mapped (its
   mappings' paths, each file's load bias from its first mapping), read
   once.  A target without a memory map gives an empty index.  NULL if
   out of memory. */
struct hi_mapsyms *hi_mapsyms_new (const struct hi_target *t, unsigned what);
void hi_mapsyms_free (struct hi_mapsyms *v);

/* The class (demangled: "Derived", "ns::Widget<int>") whose vtable holds
   ADDR as a vtable pointer: 8-aligned, at or past the vtable symbol's
   start + 16 (its offset-to-top and typeinfo words) and inside it, so a
   secondary vtable of multiple inheritance names the same class.  NULL
   if none.  Owned by V. */
const char *hi_mapsyms_class (const struct hi_mapsyms *v, uint64_t addr);

/* The class of the object at USER in T: its first word read as a
   vtable pointer; NULL if none or unreadable. */
const char *hi_mapsyms_class_at (const struct hi_mapsyms *v,
                                 const struct hi_target *t, uint64_t user);

/* The function whose code holds ADDR (demangled, versions and clone
   suffixes dropped, as hi_clean_name gives it), or NULL.  Owned by V. */
const char *hi_mapsyms_function (const struct hi_mapsyms *v, uint64_t addr);

#endif
