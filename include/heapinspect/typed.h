/* typed.h - the client API's types: tell libheapinspect the type of what
   a program allocates, so that its tables can be read by type.

   C++: after every other #include of a source file,

       #define HEAPINSPECT_TYPED_NEW 1
       #include <heapinspect/typed.h>

   turns every `new T`, `new T[n]`, `new (args) T` that follows into
   `heapinspect::new_trick () * new ...`, whose operator* learns the
   static type T of the new-expression and hands the monitor the pointer
   and the address of a per-type static byte, heapinspect::type_tag<T>::
   id.  No name is made at run time: the reader names the type by that
   static's symbol, demangled.  The expression's value, type and
   behaviour are unchanged (operator* returns its operand; the same
   operator new and constructor run).  Without HEAPINSPECT_TYPED_NEW,
   write HI_NEW where a typed new is wanted: `HI_NEW Foo (1, 2)`.

   Placement new (`new (buf) T`) allocates nothing and is never counted
   as an allocation: when BUF is the start of a heap block, that block
   takes type T (the memory now holds a T), else nothing is recorded.
   Code after the macro that declares an operator new, or uses placement
   new on a class with its own operator new, must be put between
   `#pragma push_macro ("new")` `#undef new` and `#pragma pop_macro
   ("new")` (a macro cannot tell a declaration from an expression).

   C: HI_MALLOC (T) and HI_CALLOC (N, T) allocate one T (N Ts) with
   malloc (calloc) and name the block's type "T";
   heapinspect_set_type (P, NAME) names the type of the block at P.

   All of it costs a test of a weak symbol when the monitor is not loaded
   (then nothing is recorded and the program runs as without it). */
#ifndef HEAPINSPECT_TYPED_H
#define HEAPINSPECT_TYPED_H

#include <stddef.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The monitor's side of heapinspect_set_type and the macros below:
   name the type of the block at PTR NAME, ELEM_SIZE the size of one
   object of the type (0: unknown).  Weak: NULL without the monitor. */
void heapinspect_type_name (const void *ptr, const char *name,
                            size_t elem_size) __attribute__ ((weak));

/* The monitor's side of C++'s typed new: the block at PTR (or at PTR -
   COOKIE, for an array whose element count is stored in the COOKIE
   bytes before PTR) holds objects of ELEM_SIZE bytes of the type whose
   tag is TAG.  Weak: NULL without the monitor. */
void heapinspect_type_tag (const void *ptr, const void *tag,
                           size_t elem_size, size_t cookie)
  __attribute__ ((weak));

#ifdef __cplusplus
}
#endif

/* Name the type of the block at PTR (a pointer malloc, calloc, realloc,
   operator new ... returned) NAME, a string that must live as long as
   the program (a literal): every block named by the same string counts
   as one type, and blocks named by equal strings are shown together.
   A block has one type, the latest named (realloc keeps it); a PTR that
   is no live block of the monitor's is counted (as missed) and otherwise
   ignored.  Thread-safe.  Inline: a no-op when the monitor is not
   loaded. */
static inline void
heapinspect_set_type (const void *ptr, const char *name)
{
  if (heapinspect_type_name)
    heapinspect_type_name (ptr, name, 0);
}

static inline void *
heapinspect_typed_ (void *p, const char *name, size_t elem_size)
{
  if (p && heapinspect_type_name)
    heapinspect_type_name (p, name, elem_size);
  return p;
}

/* One T from malloc, or N of them from calloc, of type "T". */
#define HI_MALLOC(T) \
  ((T *) heapinspect_typed_ (malloc (sizeof (T)), #T, sizeof (T)))
#define HI_CALLOC(n, T) \
  ((T *) heapinspect_typed_ (calloc ((n), sizeof (T)), #T, sizeof (T)))

#ifdef __cplusplus
#include <new>
#include <type_traits>

namespace heapinspect
{
/* One byte per type: its address names the type (the reader finds the
   symbol heapinspect::type_tag<T>::id there). */
template <class T> struct type_tag
{
  static char id;
};
template <class T> char type_tag<T>::id;

template <class T>
inline void
name_type (T *p) noexcept
{
  typedef typename std::remove_cv<T>::type U;
  if (p && ::heapinspect_type_tag)
    ::heapinspect_type_tag (static_cast<const void *> (p), &type_tag<U>::id,
                            sizeof (U), alignof (U) > sizeof (size_t)
                                        ? alignof (U) : sizeof (size_t));
}

struct new_trick
{
#if defined __cpp_lib_is_constant_evaluated
  /* C++20's new in a constant expression stays one. */
  template <class T>
  constexpr T *operator* (T *p) const noexcept
  {
    if (!std::is_constant_evaluated ())
      name_type (p);
    return p;
  }
#else
  template <class T>
  T *operator* (T *p) const noexcept
  {
    name_type (p);
    return p;
  }
#endif
};
}

/* A typed new-expression: HI_NEW T (args), HI_NEW T[n]. */
#define HI_NEW heapinspect::new_trick () * new

#if defined HEAPINSPECT_TYPED_NEW && HEAPINSPECT_TYPED_NEW
# define new HI_NEW
#endif
#endif /* __cplusplus */

#endif /* HEAPINSPECT_TYPED_H */
