/* names-lib.c - a library whose allocating functions GCC names in ways
   nobody wrote: an IPA-SRA clone (.isra), a partly inlined function
   (.part), a cold part (.cold), an alias pair (__names_dup, names_dup),
   and names_copy, a function named like one in names-lib2.c. */
#include <stdlib.h>
#include <string.h>

struct names_request
{
  int pad[7];
  size_t size;
};

volatile int names_sink;

/* Only req->size is used and the function is local: -O2's IPA-SRA passes
   the size instead (names_isra.isra.0). */
static __attribute__ ((noinline)) void *
names_isra (const struct names_request *req)
{
  void *p = malloc (req->size);
  names_sink += 1;
  return p;
}

/* A small test in front of a big body: -O2's partial inlining copies the
   test into the callers and calls the body as names_part.part.0. */
static void *
names_part (size_t n)
{
  if (__builtin_expect (n < 64, 1))
    return malloc (n);
  char *p = malloc (n);
  for (size_t i = 0; i < n; i++)
    p[i] = (char) (i * 7 + names_sink);
  for (size_t i = 1; i < n; i++)
    p[i] ^= p[i - 1];
  for (size_t i = 2; i < n; i++)
    p[i] += p[i - 2] * 3;
  names_sink += p[n - 1];
  return p;
}

/* The same function under two names, as glibc's __strdup and strdup. */
void *
__names_dup (const char *s)
{
  size_t n = strlen (s) + 1;
  void *p = malloc (n);
  names_sink += 2;
  return p ? memcpy (p, s, n) : NULL;
}
extern __typeof (__names_dup) names_dup __attribute__ ((weak, alias ("__names_dup")));

static __attribute__ ((noinline)) void *
names_copy (size_t n)
{
  void *p = malloc (n);
  names_sink += 3;
  return p;
}

void *
names_lib_isra (size_t n)
{
  struct names_request req = { { 0 }, n };
  names_sink += 4;
  return names_isra (&req);
}

void *
names_lib_isra2 (size_t n)
{
  struct names_request req = { { 1 }, n * 2 };
  return names_isra (&req);
}

void *
names_lib_part (size_t n)
{
  void *p = names_part (n);
  names_sink += 5;
  return p;
}

void *
names_lib_part2 (size_t n)
{
  void *p = names_part (n + 1);
  names_sink += 6;
  return p;
}

void *
names_lib_copy (size_t n)
{
  void *p = names_copy (n);
  names_sink += 7;
  return p;
}

/* Called with one fill only: -O2 makes names_constprop.constprop.0. */
static __attribute__ ((noinline)) void *
names_constprop (size_t n, int fill)
{
  void *p = malloc (n);
  if (p)
    memset (p, fill, n);
  return p;
}

void *
names_lib_constprop (size_t n)
{
  return names_constprop (n, 0x5a);
}

void *
names_lib_constprop2 (size_t n)
{
  return names_constprop (n + 1, 0x5a);
}

void *names_cold_block;

/* Cold: GCC moves the unlikely branch that calls it to names_lib_cold.cold. */
__attribute__ ((cold, noinline)) void
names_cold_note (void)
{
  names_cold_block = malloc (48);
}

/* An unlikely branch: -O2 moves it to names_lib_cold.cold. */
void *
names_lib_cold (size_t n)
{
  if (__builtin_expect (n > 4096, 0))
    {
      char *p = malloc (n);
      for (size_t i = 0; i < n; i += 512)
        p[i] = (char) names_sink;
      names_cold_note ();
      return p;
    }
  names_sink += 10;
  return NULL;
}
