/* hash.h - the reader's one hash table.  Keys come from files written by
   someone else (return addresses, names, chains), so hashes are keyed per
   process (SipHash-1-3 with a key from getrandom): nobody can choose keys
   that collide.  The table maps a 64-bit hash to dense ids the caller
   owns; the caller compares keys. */
#ifndef HI_HASH_H
#define HI_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The keyed hash of LEN bytes at P, and of one 64-bit value. */
uint64_t hi_hash_bytes (const void *p, size_t len);
uint64_t hi_hash_u64 (uint64_t x);

struct hi_hash_slot
{
  uint32_t id;               /* id + 1; 0: empty */
  uint32_t h32;              /* low bits of the hash (position and filter) */
};

struct hi_hash
{
  struct hi_hash_slot *slots;
  uint32_t mask, n;
};

/* An empty table (no memory until the first insert). */
void hi_hash_init (struct hi_hash *t);
void hi_hash_free (struct hi_hash *t);

/* 1 if the key of ID equals the key being looked up (CTX). */
typedef int (*hi_hash_eq) (const void *ctx, uint32_t id);

/* The id stored under HASH whose key EQ accepts, or UINT32_MAX. */
uint32_t hi_hash_find (struct hi_hash *t, uint64_t hash, hi_hash_eq eq,
                       const void *ctx);
/* Store ID (< UINT32_MAX) under HASH; the caller found no equal key.
   0, or -1 if out of memory (the table is unchanged). */
int hi_hash_insert (struct hi_hash *t, uint64_t hash, uint32_t id);

/* Slots examined by every lookup and insert of this process: a test hook
   for bounding the work (not thread-safe, like the rest of the reader). */
extern uint64_t hi_hash_probes;

#endif
