/* hash.c - the reader's keyed hash (SipHash-1-3) and its one open-
   addressing table (linear probing, at most half full). */
#define _GNU_SOURCE
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t hi_hash_probes;

static uint64_t key[2];
static int keyed;

/* A key per process, from the kernel; if it has none to give (early boot,
   seccomp), from what varies per run (clock, pid, ASLR). */
static void
make_key (void)
{
  if (getrandom (key, sizeof key, GRND_NONBLOCK) != (ssize_t) sizeof key)
    {
      struct timespec ts;
      clock_gettime (CLOCK_MONOTONIC, &ts);
      key[0] = (uint64_t) ts.tv_nsec ^ ((uint64_t) ts.tv_sec << 30)
               ^ (uint64_t) (uintptr_t) &ts;
      key[1] = (uint64_t) getpid () ^ (uint64_t) (uintptr_t) &make_key
               ^ UINT64_C (0x9e3779b97f4a7c15);
    }
  keyed = 1;
}

#define ROTL(x, b) (uint64_t) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND \
  do { \
    v0 += v1; v1 = ROTL (v1, 13); v1 ^= v0; v0 = ROTL (v0, 32); \
    v2 += v3; v3 = ROTL (v3, 16); v3 ^= v2; \
    v0 += v3; v3 = ROTL (v3, 21); v3 ^= v0; \
    v2 += v1; v1 = ROTL (v1, 17); v1 ^= v2; v2 = ROTL (v2, 32); \
  } while (0)

uint64_t
hi_hash_bytes (const void *p, size_t len)
{
  if (!keyed)
    make_key ();
  uint64_t v0 = key[0] ^ UINT64_C (0x736f6d6570736575);
  uint64_t v1 = key[1] ^ UINT64_C (0x646f72616e646f6d);
  uint64_t v2 = key[0] ^ UINT64_C (0x6c7967656e657261);
  uint64_t v3 = key[1] ^ UINT64_C (0x7465646279746573);
  const unsigned char *in = p;
  size_t left = len;
  for (; left >= 8; in += 8, left -= 8)
    {
      uint64_t m;
      memcpy (&m, in, 8);
      v3 ^= m;
      SIPROUND;
      v0 ^= m;
    }
  uint64_t b = (uint64_t) len << 56;
  for (size_t i = 0; i < left; i++)
    b |= (uint64_t) in[i] << (8 * i);
  v3 ^= b;
  SIPROUND;
  v0 ^= b;
  v2 ^= 0xff;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t
hi_hash_u64 (uint64_t x)
{
  return hi_hash_bytes (&x, sizeof x);
}

void
hi_hash_init (struct hi_hash *t)
{
  memset (t, 0, sizeof *t);
}

void
hi_hash_free (struct hi_hash *t)
{
  free (t->slots);
  memset (t, 0, sizeof *t);
}

uint32_t
hi_hash_find (struct hi_hash *t, uint64_t hash, hi_hash_eq eq,
              const void *ctx)
{
  if (!t->slots)
    return UINT32_MAX;
  uint32_t h32 = (uint32_t) hash;
  for (uint32_t i = h32 & t->mask;; i = (i + 1) & t->mask)
    {
      const struct hi_hash_slot *s = &t->slots[i];
      hi_hash_probes++;
      if (!s->id)
        return UINT32_MAX;
      if (s->h32 == h32 && eq (ctx, s->id - 1))
        return s->id - 1;
    }
}

static void
place (struct hi_hash_slot *slots, uint32_t mask, struct hi_hash_slot e)
{
  uint32_t i = e.h32 & mask;
  for (; slots[i].id; i = (i + 1) & mask)
    hi_hash_probes++;
  hi_hash_probes++;
  slots[i] = e;
}

int
hi_hash_insert (struct hi_hash *t, uint64_t hash, uint32_t id)
{
  uint64_t cap = t->slots ? (uint64_t) t->mask + 1 : 0;
  if (2 * ((uint64_t) t->n + 1) > cap)
    {
      uint64_t ncap = cap ? 2 * cap : 64;
      if (ncap > (UINT64_C (1) << 32))
        return -1;
      struct hi_hash_slot *slots = calloc (ncap, sizeof *slots);
      if (!slots)
        return -1;
      for (uint64_t i = 0; i < cap; i++)
        if (t->slots[i].id)
          place (slots, (uint32_t) (ncap - 1), t->slots[i]);
      free (t->slots);
      t->slots = slots;
      t->mask = (uint32_t) (ncap - 1);
    }
  place (t->slots, t->mask, (struct hi_hash_slot) { id + 1, (uint32_t) hash });
  t->n++;
  return 0;
}
