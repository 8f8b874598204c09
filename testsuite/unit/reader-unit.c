/* reader-unit.c - unit tests of the reader's pure functions: the keyed
   hash table under keys chosen to collide, string interning, and the
   chains the analysis builds from a model.  Prints "PASS: name" or
   "FAIL: name: why" per check (reader-unit.exp turns them into DejaGnu
   results); exit status 1 if any failed. */
#define _GNU_SOURCE
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"
#include "util/hash.h"
#include "symbols/modsyms.h"
#include "util/strtab.h"
#include "unit-check.h"
#include "util/text.h"


/* Keys 2^44 apart: a multiplicative hash that keeps high bits only after
   a shift (the reader's old one) sends them all to one slot. */
static uint64_t *keys;

static int
same_key (const void *ctx, uint32_t id)
{
  return keys[id] == *(const uint64_t *) ctx;
}

static void
test_hash_collisions (void)
{
  enum { N = 200000 };
  keys = malloc (N * sizeof *keys);
  struct hi_hash t;
  hi_hash_init (&t);
  uint64_t before = hi_hash_probes;
  int ok = keys != NULL;
  for (uint32_t i = 0; ok && i < N; i++)
    {
      keys[i] = (uint64_t) (i + 1) << 44;
      uint64_t h = hi_hash_u64 (keys[i]);
      ok = hi_hash_find (&t, h, same_key, &keys[i]) == UINT32_MAX
           && hi_hash_insert (&t, h, i) == 0;
    }
  check (ok, "hash: colliding keys are all new when inserted", "insert");
  int found = 0;
  for (uint32_t i = 0; ok && i < N; i++)
    found += hi_hash_find (&t, hi_hash_u64 (keys[i]), same_key, &keys[i]) == i;
  check (found == N, "hash: every colliding key is found", "%d of %d", found,
         N);
  uint64_t absent = (uint64_t) (N + 1) << 44;
  check (hi_hash_find (&t, hi_hash_u64 (absent), same_key, &absent)
         == UINT32_MAX, "hash: a key never inserted is not found", "found");
  /* 3 operations per key (find, insert with its rehashes, find): at half
     load a keyed hash needs a few slots per operation; the old hash
     needed N/2 on average. */
  uint64_t probes = hi_hash_probes - before;
  check (probes <= 8 * (uint64_t) N * 3,
         "hash: probes stay linear in the number of colliding keys",
         "%" PRIu64 " probes for %d keys", probes, N);
  hi_hash_free (&t);
  free (keys);
}

static void
test_hash_keyed (void)
{
  /* The same bytes hash alike; different ones (almost surely) not. */
  check (hi_hash_bytes ("abc", 3) == hi_hash_bytes ("abc", 3)
         && hi_hash_bytes ("abc", 3) != hi_hash_bytes ("abd", 3)
         && hi_hash_u64 (1) != hi_hash_u64 (2),
         "hash: deterministic within a process, spread between keys", "%s",
         "differs");
}

static void
test_strtab (void)
{
  struct hi_strtab t;
  hi_strtab_init (&t);
  char buf[32];
  int ok = 1;
  uint64_t before = hi_hash_probes;
  for (int i = 0; i < 50000 && ok; i++)
    {
      snprintf (buf, sizeof buf, "0x%" PRIx64, (uint64_t) i << 20);
      ok = hi_strtab_intern (&t, buf) == (uint32_t) i;
    }
  for (int i = 0; i < 50000 && ok; i++)
    {
      snprintf (buf, sizeof buf, "0x%" PRIx64, (uint64_t) i << 20);
      ok = hi_strtab_intern (&t, buf) == (uint32_t) i
           && strcmp (t.strs[i], buf) == 0;
    }
  check (ok && t.n == 50000, "strtab: dense ids, same id for the same string",
         "n %u", t.n);
  uint64_t probes = hi_hash_probes - before;
  check (probes <= 8 * 100000, "strtab: probes linear in lookups",
         "%" PRIu64, probes);
  hi_strtab_free (&t);
}

/* A model built in memory: nodes 2 (0x1000 under the root), 3 (0x2000
   under 2), 4 (0x3000, a chain cut at the depth cap); site 1 ends at 3,
   site 2 at 4. */
static void
test_chains (void)
{
  struct hi_node nodes[5] = {
    { 0, 0, 0 }, { 0, 0, 0 }, { 0x1000, 0, 0 }, { 0x2000, 2, 1 },
    { 0x3000, HI_NODE_CUT, 2 },
  };
  struct hi_site sites[3];
  memset (sites, 0, sizeof sites);
  sites[1].node = 3, sites[1].depth = 2, sites[1].allocs[0] = 1;
  sites[2].node = 4, sites[2].depth = 1, sites[2].allocs[1] = 2;
  struct hi_model m;
  memset (&m, 0, sizeof m);
  m.nodes = nodes, m.n_nodes = 5;
  m.sites = sites, m.n_sites = 3;
  struct hi_symbolizer *sym = hi_symbolizer_new (&m, NULL);
  struct hi_options opt = { .depth = 5, .offsets = 0, .verbosity = HI_NORMAL, .format = HI_TEXT, .threshold = -1, .lines = 1, .default_suppressions = 1 };
  struct hi_analysis a;
  hi_status s = sym ? hi_analysis_init (&a, &m, sym, &opt) : HI_E_NOMEM;
  check (s == HI_OK, "chains: analysis of a small model", "%s",
         hi_strerror (s));
  if (s != HI_OK)
    return;
  /* Frame 0 is the cut; nodes 2, 3 and 4 get frames 1, 2 and 3. */
  uint32_t want[] = { 1, 2, HI_FRAME_CUT, 3 };
  int ok = a.chain_start[0] == 0 && a.chain_start[1] == 0
           && a.chain_start[2] == 2 && a.chain_start[3] == 4;
  for (int i = 0; ok && i < 4; i++)
    ok = a.chain_frames[i] == want[i];
  check (ok, "chains: outermost first, a cut chain starts with the cut frame",
         "starts %u %u %u %u", a.chain_start[0], a.chain_start[1],
         a.chain_start[2], a.chain_start[3]);
  char path[256];
  hi_site_path (&a, 1, path, sizeof path);
  check (strcmp (path, "0x1000 > 0x2000") == 0, "chains: path of a whole chain",
         "%s", path);
  hi_site_path (&a, 2, path, sizeof path);
  check (strcmp (path, "... > 0x3000") == 0, "chains: path of a cut chain",
         "%s", path);
  hi_site_path (&a, 0, path, sizeof path);
  check (strcmp (path, "<no call chain recorded>") == 0,
         "chains: the unknown site has no chain", "%s", path);
  check (a.total_allocs == 3 && a.sum[2].allocs == 2,
         "chains: per-site sums over size classes", "%" PRIu64,
         a.total_allocs);
  hi_analysis_free (&a);
  hi_symbolizer_free (sym);
}

/* Naming nodes: 100000 nodes with colliding return addresses, each
   symbolized once, with work linear in the nodes. */
static void
test_name_nodes_collisions (void)
{
  enum { N = 100000 };
  struct hi_model m;
  memset (&m, 0, sizeof m);
  m.n_nodes = N + 2;
  m.nodes = calloc (m.n_nodes, sizeof *m.nodes);
  m.n_sites = 1;
  m.sites = calloc (1, sizeof *m.sites);
  if (!m.nodes || !m.sites)
    return;
  for (uint32_t i = 0; i < N; i++)
    m.nodes[i + 2] = (struct hi_node) { (uint64_t) (i / 2 + 1) << 44, 0, 0 };
  struct hi_symbolizer *sym = hi_symbolizer_new (&m, NULL);
  struct hi_options opt = { .depth = 5, .offsets = 0, .verbosity = HI_NORMAL, .format = HI_TEXT, .threshold = -1, .lines = 1, .default_suppressions = 1 };
  struct hi_analysis a;
  uint64_t before = hi_hash_probes;
  hi_status s = sym ? hi_analysis_init (&a, &m, sym, &opt) : HI_E_NOMEM;
  uint64_t probes = hi_hash_probes - before;
  check (s == HI_OK, "name nodes: colliding return addresses", "%s",
         hi_strerror (s));
  if (s == HI_OK)
    {
      /* Two nodes per address: N / 2 frames and names, plus the cut
         frame "<deeper>". */
      check (a.funcs.n == N / 2 + 1 && a.n_frames == N / 2 + 1,
             "name nodes: one frame and name per distinct address",
             "%u names, %u frames", a.funcs.n, a.n_frames);
      check (probes <= 16 * (uint64_t) N,
             "name nodes: probes linear in the nodes",
             "%" PRIu64 " probes for %d nodes", probes, N);
      hi_analysis_free (&a);
    }
  hi_symbolizer_free (sym);
  free (m.nodes);
  free (m.sites);
}

static void
test_escape (void)
{
  char out[64];
  hi_escape ("a\x1b[31mb\x07\x7f\xc2\x9b" "c\xc3\xa9", out, sizeof out);
  check (strcmp (out, "a\\x1b[31mb\\x07\\x7f\\xc2\\x9bc\xc3\xa9") == 0,
         "escape: C0, DEL and UTF-8 C1 controls as \\xHH, the rest kept",
         "%s", out);
  hi_escape ("\x1b\x1b\x1b", out, 9);
  check (strcmp (out, "\\x1b\\x1b") == 0,
         "escape: cut at whole escapes when OUT is short", "%s", out);
}

/* A core of N 16-byte segments listed in a shuffled order, the last two
   overlapping: each address reads its own segment's bytes (segments are
   sorted and binary-searched, an overlap cut where the next begins). */
static void
test_core_segments (void)
{
  enum { N = 20000 };
  char path[] = "/tmp/reader-unit-core-XXXXXX";
  int fd = mkstemp (path);
  FILE *f = fd >= 0 ? fdopen (fd, "wb") : NULL;
  if (!f)
    {
      check (0, "core segments: temporary file", "cannot create");
      return;
    }
  Elf64_Ehdr eh;
  memset (&eh, 0, sizeof eh);
  memcpy (eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_CORE;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof eh;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof (Elf64_Phdr);
  eh.e_phnum = N;
  fwrite (&eh, sizeof eh, 1, f);
  uint64_t data = sizeof eh + (uint64_t) N * sizeof (Elf64_Phdr);
  for (uint32_t i = 0; i < N; i++)
    {
      /* Segment k = i * 7919 mod N (a permutation) at 0x10000 * (k + 1);
         the last one starts inside the one before it. */
      uint32_t k = (uint32_t) ((uint64_t) i * 7919 % N);
      Elf64_Phdr ph;
      memset (&ph, 0, sizeof ph);
      ph.p_type = PT_LOAD;
      ph.p_flags = PF_R | PF_W;
      ph.p_vaddr = k == N - 1 ? 0x10000 * (uint64_t) (N - 1) + 8
                              : 0x10000 * (uint64_t) (k + 1);
      ph.p_offset = data + 16 * (uint64_t) k;
      ph.p_filesz = ph.p_memsz = 16;
      fwrite (&ph, sizeof ph, 1, f);
    }
  for (uint64_t k = 0; k < N; k++)
    {
      uint64_t v[2] = { k, ~k };
      fwrite (v, sizeof v, 1, f);
    }
  fclose (f);
  struct hi_target t;
  hi_status st = hi_target_open_core (path, NULL, &t);
  check (st == HI_OK, "core segments: opened", "%s", hi_strerror (st));
  if (st != HI_OK)
    {
      unlink (path);
      return;
    }
  int bad = 0;
  for (uint64_t k = 0; k + 2 < N; k++)
    {
      uint64_t v[2];
      bad += t.ops->read_memory (t.ctx, 0x10000 * (k + 1), v, sizeof v) != 0
             || v[0] != k || v[1] != ~k;
    }
  uint64_t w[2], x;
  /* Segment N-2 (at 0x10000 * (N-1)) is cut to 8 bytes by segment N-1. */
  int cut = t.ops->read_memory (t.ctx, 0x10000 * (uint64_t) (N - 1), &x, 8) == 0
            && x == N - 2
            && t.ops->read_memory (t.ctx, 0x10000 * (uint64_t) (N - 1) + 8, w,
                                   16) == 0
            && w[0] == N - 1 && w[1] == ~(uint64_t) (N - 1);
  int outside = t.ops->read_memory (t.ctx, 0x10000 + 16, &x, 1) != 0
                && t.ops->read_memory (t.ctx, 0x8000, &x, 1) != 0;
  check (bad == 0, "core segments: every segment reads its own bytes",
         "%d wrong", bad);
  check (cut, "core segments: an overlap ends where the next begins", "%s",
         "wrong bytes");
  check (outside, "core segments: gaps are not readable", "%s", "readable");
  /* The regions a root scan reads: every writable segment, by address. */
  uint64_t addr, size, prev = 0;
  size_t regions = 0;
  int ordered = 1;
  while (t.ops->region (t.ctx, regions, &addr, &size) == 0)
    {
      ordered &= addr > prev || regions == 0;
      prev = addr;
      regions++;
    }
  check (regions == N && ordered,
         "core segments: scan regions are the writable segments by address",
         "%zu regions", regions);
  check (hi_target_missing (&t) == 0, "core segments: nothing missing",
         "%" PRIu64, hi_target_missing (&t));
  hi_target_close (&t);
  unlink (path);
}

/* Symbol names as a user wrote them: GCC's clone and part suffixes and
   symbol versions dropped before demangling (the demangler's
   " [clone .isra.0]" must never be cut into "[clone "). */
static void
test_clean_names (void)
{
  static const char *const cases[][2] = {
    { "f.isra.0", "f" }, { "f.part.0", "f" }, { "f.constprop.0", "f" },
    { "f.constprop.0.isra.0", "f" }, { "f.cold", "f" }, { "f.part.0.cold", "f" },
    { "f.localalias", "f" }, { "f.lto_priv.0", "f" },
    { "memcpy@@GLIBC_2.14", "memcpy" }, { "puts@GLIBC_2.2.5", "puts" },
    { "_ZL3fooP3bar.isra.0", "foo(bar*)" },
    { "_ZN2ns6widget4makeEi.part.0", "ns::widget::make(int)" },
    { "_ZN2ns6widget4makeEi.cold", "ns::widget::make(int)" },
    { "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)" },
    { "main", "main" }, { ".hidden", ".hidden" }, { "_Z", "_Z" },
  };
  size_t bad = 0;
  char out[256] = "";
  for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !bad; i++)
    {
      hi_clean_name (cases[i][0], out, sizeof out);
      if (strcmp (out, cases[i][1]) != 0)
        bad = i + 1;
    }
  check (!bad, "clean names: clones, parts, versions and C++ names",
         "%s gave %s, expected %s", bad ? cases[bad - 1][0] : "", out,
         bad ? cases[bad - 1][1] : "");
  char small[4];
  hi_clean_name ("_ZL3fooP3bar.isra.0", small, sizeof small);
  check (strcmp (small, "foo") == 0, "clean names: cut to the buffer",
         "%s", small);
}

/* JSON strings: names and paths from the input may hold bytes that are
   not UTF-8; each becomes U+FFFD, well-formed UTF-8 passes whole. */
static void
test_json_string (void)
{
  static const struct { const char *in, *want; } cases[] = {
    { "plain", "\"plain\"" },
    { "q\"b\\", "\"q\\\"b\\\\\"" },
    { "tab\t", "\"tab\\u0009\"" },
    { "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
    { "a\xff" "b", "\"a\\ufffdb\"" },
    { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },   /* surrogate */
    { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },              /* overlong */
    { "\xe2\x82", "\"\\ufffd\\ufffd\"" },              /* cut short */
    { "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *out = NULL;
      size_t size = 0;
      FILE *f = open_memstream (&out, &size);
      if (!f)
        return;
      hi_json_string (f, cases[i].in);
      fclose (f);
      check (strcmp (out, cases[i].want) == 0,
             "json string: bytes that are not UTF-8 become U+FFFD",
             "case %zu: %s", i, out);
      free (out);
    }
}

int
main (void)
{
  test_escape ();
  test_core_segments ();
  test_hash_keyed ();
  test_hash_collisions ();
  test_strtab ();
  test_chains ();
  test_json_string ();
  test_name_nodes_collisions ();
  test_clean_names ();
  return failed;
}
