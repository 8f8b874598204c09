/* cxxname.h - short C++ names for the tables: template arguments and
   parameter lists elided (std::vector<...>::_M_realloc_insert<...>). */
#ifndef HI_CXXNAME_H
#define HI_CXXNAME_H

#include <stddef.h>

/* The short form of the demangled name IN, written to OUT (SIZE bytes,
   always NUL-terminated when SIZE > 0, cut if too long): the function's
   qualified name without its return type, parameter list, cv/ref
   qualifiers, [abi:...] tags and [clone ...] suffixes; each template
   argument list becomes "<...>" ("<>" when empty), a lambda's parameters
   "(...)".  Operators (operator<, operator<<, operator(), operator
   new[], conversions), "(anonymous namespace)", {lambda(...)#N} and
   {unnamed type#N} scopes, function-local entities (f(int)::Local::get
   gives f::Local::get) and functions returning function pointers are
   understood.  C names, and anything else that is not a C++ name, come
   out unchanged.  Never reads past IN's NUL, never writes past OUT's
   SIZE bytes, whatever IN holds (unbalanced brackets included).
   Thread-safe. */
void hi_cxx_short_name (const char *in, char *out, size_t size);

#endif
