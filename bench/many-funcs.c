/* many-funcs.c - 100 000 distinct allocation chains through 3 000
   distinct functions, for timing the profile formats on a call graph
   wider than many-sites' (which reuses one function's ten call sites at
   every depth): main > a_I > b_J > c_K > malloc with I = n % 1000,
   J = n / 10 % 1000, K = n / 100 % 1000, so each n < 100 000 has its own
   chain, and pprof's function and location tables hold 3 000 entries.
   usage: many-funcs [PER]   (PER blocks kept per chain, default 2) */
#include <stdlib.h>

#define WIDTH 1000
#define CHAINS 100000L

#define NOINLINE __attribute__ ((noinline))

static void **keep;
static long kept;

/* Ten, a hundred, a thousand uses of M with the numbers P0..P999. */
#define R10(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) \
                  M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define R100(M, p) R10(M, p##0) R10(M, p##1) R10(M, p##2) R10(M, p##3) \
                   R10(M, p##4) R10(M, p##5) R10(M, p##6) R10(M, p##7) \
                   R10(M, p##8) R10(M, p##9)
#define R1000(M) R100(M, 0) R100(M, 1) R100(M, 2) R100(M, 3) R100(M, 4) \
                 R100(M, 5) R100(M, 6) R100(M, 7) R100(M, 8) R100(M, 9)

typedef void level_fn (long n, int per);

/* The asm after each call keeps it from being a tail call (a frame that
   would vanish from the chain); -fno-ipa-icf keeps the compiler from
   merging the thousand identical bodies of a level into one. */
#define C_FN(k) \
  static NOINLINE void c_##k (long n, int per) \
  { \
    for (int i = 0; i < per; i++) \
      keep[kept++] = malloc (16 + (size_t) (n % 1000)); \
    __asm__ volatile ("" ::: "memory"); \
  }
#define DECL(k) static level_fn a_##k, b_##k, c_##k;
#define C_PTR(k) c_##k,
#define B_PTR(k) b_##k,
#define A_PTR(k) a_##k,

R1000 (DECL)
static level_fn *const cs[WIDTH] = { R1000 (C_PTR) };
static level_fn *const bs[WIDTH] = { R1000 (B_PTR) };
static level_fn *const as[WIDTH] = { R1000 (A_PTR) };

#define B_FN(k) \
  static NOINLINE void b_##k (long n, int per) \
  { \
    cs[n / 100 % WIDTH] (n, per); \
    __asm__ volatile ("" ::: "memory"); \
  }
#define A_FN(k) \
  static NOINLINE void a_##k (long n, int per) \
  { \
    bs[n / 10 % WIDTH] (n, per); \
    __asm__ volatile ("" ::: "memory"); \
  }

R1000 (C_FN)
R1000 (B_FN)
R1000 (A_FN)

int
main (int argc, char **argv)
{
  int per = argc > 1 ? atoi (argv[1]) : 2;
  keep = malloc ((size_t) (CHAINS * per) * sizeof *keep);
  for (long n = 0; n < CHAINS; n++)
    as[n % WIDTH] (n, per);
  return 0;
}
