/* procinfo-unit.c - unit tests of the process record the reader takes
   from the monitor (format 3): the command line as shown (quoting,
   escapes, cuts), the validation of every field of the record and of
   the snapshot's times, and version 2 roots read without one.  Prints
   "PASS: name" or "FAIL: name: why" per check (procinfo.exp turns them
   into DejaGnu results); exit status 1 if any failed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hi-reader.h"
#include "model/model.h"
#include "unit-check.h"

/* --- The command line as shown ----------------------------------------- */

static void
command_is (const char *name, const char *cmdline, size_t len, int cut,
            const char *expect)
{
  char *got = hi_command_text (cmdline, len, cut);
  check (got && strcmp (got, expect) == 0, name, "got [%s], expected [%s]",
         got ? got : "(null)", expect);
  free (got);
}

static void
test_command_text (void)
{
  command_is ("command: plain words as they are", "ls\0-l\0/tmp", 10, 0,
              "ls -l /tmp");
  command_is ("command: a space is quoted", "echo\0a b", 8, 0,
              "echo 'a b'");
  command_is ("command: a quote is quoted", "echo\0it's", 9, 0,
              "echo 'it'\\''s'");
  command_is ("command: an empty argument is ''", "a\0\0b", 4, 0,
              "a '' b");
  command_is ("command: an empty last argument is ''", "a\0", 2, 0,
              "a ''");
  command_is ("command: UTF-8 as it is", "caf\xc3\xa9\0\xf0\x9f\x98\x80",
              10, 0, "caf\xc3\xa9 \xf0\x9f\x98\x80");
  command_is ("command: a byte that is no UTF-8 is escaped",
              "caf\xe9", 4, 0, "$'caf\\xe9'");
  command_is ("command: overlong UTF-8 is escaped", "\xc0\xaf", 2, 0,
              "$'\\xc0\\xaf'");
  command_is ("command: a UTF-16 surrogate in UTF-8 is escaped",
              "\xed\xa0\x80", 3, 0, "$'\\xed\\xa0\\x80'");
  command_is ("command: UTF-8 past U+10FFFF is escaped",
              "\xf4\x90\x80\x80", 4, 0, "$'\\xf4\\x90\\x80\\x80'");
  command_is ("command: a cut UTF-8 sequence is escaped", "a\xe2\x82", 3, 0,
              "$'a\\xe2\\x82'");
  command_is ("command: a backslash without controls is single-quoted",
              "a\\b", 3, 0, "'a\\b'");
  command_is ("command: a tab is escaped inside $''", "tab\there", 8, 0,
              "$'tab\\x09here'");
  command_is ("command: ESC and DEL are escaped", "\x1b[31m\x7f", 6, 0,
              "$'\\x1b[31m\\x7f'");
  command_is ("command: a C1 control in UTF-8 is escaped whole",
              "csi\xc2\x9b", 5, 0, "$'csi\\xc2\\x9b'");
  command_is ("command: U+00A0 is no C1 control, a lone 0xc2 no UTF-8",
              "\xc2\xa0x\xc2", 4, 0, "$'\xc2\xa0x\\xc2'");
  command_is ("command: quotes and backslashes beside controls",
              "it's\\\n", 6, 0, "$'it\\'s\\\\\\x0a'");
  command_is ("command: a cut line ends with ...", "ls\0-l", 5, 1,
              "ls -l ...");
  check (hi_command_text ("x", 0, 0) == NULL, "command: none for length 0",
         "not NULL");
  check (hi_command_text ("x", HI_CMDLINE_MAX + 1, 0) == NULL,
         "command: none for a length over HI_CMDLINE_MAX", "not NULL");

  /* The longest expansions fit: a line of quotes, of C1 controls, of
     NULs (empty arguments); the ASan build checks the bounds. */
  static char line[HI_CMDLINE_MAX];
  const struct { const char *name; const char *unit; size_t n;
                 const char *out; size_t outn; const char *head;
                 size_t headn; } worst[] = {
    { "command: a line of quotes", "'", 1, "'\\''", 4, "''\\'''", 6 },
    { "command: a line of C1 controls", "\xc2\x85", 2, "\\xc2\\x85", 8,
      "$'", 2 },
    { "command: a line of NULs", "\0", 1, "'' ", 3, "", 0 },
  };
  for (size_t k = 0; k < sizeof worst / sizeof worst[0]; k++)
    {
      for (size_t i = 0; i < sizeof line; i++)
        line[i] = worst[k].unit[i % worst[k].n];
      char *got = hi_command_text (line, sizeof line, 1);
      size_t len = got ? strlen (got) : 0;
      int ok = got != NULL && len > 4 && strcmp (got + len - 4, " ...") == 0
               && strncmp (got, worst[k].head, worst[k].headn) == 0;
      check (ok, worst[k].name, "[%.40s...] (%zu bytes)",
             got ? got : "(null)", len);
      free (got);
    }
}

/* --- A process image in memory, as a target --------------------------- */

#define ROOT_AT    0x10000u
#define NODES_AT   0x20000u
#define SITES_AT   0x30000u
#define PROCESS_AT 0x40000u

struct image
{
  struct hi_root root;
  uint32_t root_bytes;          /* what memory holds at ROOT_AT */
  struct hi_node nodes[2];
  struct hi_site sites[1];
  struct hi_process process;
  int process_readable;
};

static int
image_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct image *im = ctx;
  const struct { uint64_t at; const void *p; size_t n; } r[] = {
    { ROOT_AT, &im->root, im->root_bytes },
    { NODES_AT, im->nodes, sizeof im->nodes },
    { SITES_AT, im->sites, sizeof im->sites },
    { PROCESS_AT, &im->process,
      im->process_readable ? sizeof im->process : 0 },
  };
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (addr >= r[i].at && addr - r[i].at <= r[i].n
        && len <= r[i].n - (addr - r[i].at))
      {
        memcpy (buf, (const char *) r[i].p + (addr - r[i].at), len);
        return 0;
      }
  return -1;
}

static int
image_symbol (void *ctx, const char *name, uint64_t *addr)
{
  (void) ctx;
  if (strcmp (name, "heapinspect_root") != 0)
    return -1;
  *addr = ROOT_AT;
  return 0;
}

static const struct hi_target_ops image_ops = {
  image_read, image_symbol, NULL, NULL, NULL, NULL, NULL
};

static void
arena (struct hi_root *r, uint32_t i, uint64_t addr, uint64_t count,
       uint32_t kind, uint32_t size)
{
  r->arenas[i] = (struct hi_arena_desc) { addr, count, count, kind, size };
}

/* A whole image of format 3: the command line "prog\0a b\0", started at
   realtime 5e9 / monotonic 1e9, its snapshot taken 2.5 s later by both
   clocks. */
static void
image_v3 (struct image *im)
{
  memset (im, 0, sizeof *im);
  struct hi_root *r = &im->root;
  r->magic = HI_ROOT_MAGIC;
  r->version = HI_FORMAT_VERSION;
  r->root_size = sizeof *r;
  r->pointer_size = sizeof (void *);
  r->byte_order = HI_ORDER_LITTLE;
  r->max_depth = 64;
  r->pid = 42;
  r->ready = 1;
  r->n_arenas = 3;
  arena (r, 0, NODES_AT, 2, HI_ARENA_NODES, sizeof (struct hi_node));
  arena (r, 1, SITES_AT, 1, HI_ARENA_SITES, sizeof (struct hi_site));
  arena (r, 2, PROCESS_AT, 1, HI_ARENA_PROCESS, sizeof (struct hi_process));
  im->nodes[HI_NODE_CUT].parent = HI_NODE_ROOT;
  r->snapshot_realtime_ns = UINT64_C(7500000000);
  r->snapshot_monotonic_ns = UINT64_C(3500000000);
  im->root_bytes = sizeof *r;
  im->process.start_realtime_ns = UINT64_C(5000000000);
  im->process.start_monotonic_ns = UINT64_C(1000000000);
  memcpy (im->process.cmdline, "prog\0a b\0", 9);
  im->process.cmdline_len = 9;
  im->process_readable = 1;
}

/* Load IM; the status, and the model in *OUT (or NULL). */
static hi_status
load (struct image *im, struct hi_model **out)
{
  struct hi_target t = { &image_ops, im, 0 };
  *out = NULL;
  return hi_model_load (&t, out);
}

/* Load IM and compare the process fields with the expected ones. */
static void
expect (const char *name, struct image *im, const char *command, int cut,
        uint64_t start, uint64_t read, int source, uint64_t run,
        uint64_t damage)
{
  struct hi_model *m;
  hi_status s = load (im, &m);
  if (s != HI_OK)
    {
      check (0, name, "load: %s", hi_strerror (s));
      return;
    }
  int same_command = command ? m->command && strcmp (m->command, command) == 0
                             : m->command == NULL;
  check (same_command && m->command_cut == cut
         && m->start_realtime_ns == start && m->read_ns == read
         && m->read_source == source && m->run_ns == run
         && m->damage.process == damage && m->damaged == damage,
         name, "command [%s] cut %d start %" PRIu64 " read %" PRIu64
         " source %d run %" PRIu64 " damage %" PRIu64 "/%" PRIu64,
         m->command ? m->command : "(null)", m->command_cut,
         m->start_realtime_ns, m->read_ns, m->read_source, m->run_ns,
         m->damage.process, m->damaged);
  hi_model_free (m);
}

static void
test_process_record (void)
{
  struct image im;
  const uint64_t start = UINT64_C(5000000000), snap = UINT64_C(7500000000);
  const uint64_t run = UINT64_C(2500000000);

  image_v3 (&im);
  expect ("record: whole, from a snapshot", &im, "prog 'a b'", 0, start,
          snap, HI_READ_SNAPSHOT, run, 0);

  /* Run time: the monotonic clocks win over the wall clock. */
  image_v3 (&im);
  im.root.snapshot_realtime_ns = start - 1;    /* the clock was set back */
  expect ("record: run time by the monotonic clocks, wall clock set back",
          &im, "prog 'a b'", 0, start, start - 1, HI_READ_SNAPSHOT, run, 0);
  image_v3 (&im);
  im.root.snapshot_monotonic_ns = 0;
  im.process.start_monotonic_ns = 0;
  expect ("record: run time by the wall clocks without monotonic ones",
          &im, "prog 'a b'", 0, start, snap, HI_READ_SNAPSHOT, run, 0);
  image_v3 (&im);
  im.root.snapshot_monotonic_ns = 0;
  im.process.start_monotonic_ns = 0;
  im.root.snapshot_realtime_ns = start - 1;
  expect ("record: no run time when the wall clocks run backwards", &im,
          "prog 'a b'", 0, start, start - 1, HI_READ_SNAPSHOT, 0, 0);
  image_v3 (&im);
  im.root.snapshot_monotonic_ns = im.process.start_monotonic_ns - 1;
  expect ("record: a snapshot before the start is damage", &im,
          "prog 'a b'", 0, start, snap, HI_READ_SNAPSHOT, 0, 1);

  /* Clocks out of range (past INT64_MAX ns). */
  image_v3 (&im);
  im.process.start_realtime_ns = UINT64_MAX;
  expect ("record: a start time out of range is damage", &im, "prog 'a b'",
          0, 0, snap, HI_READ_SNAPSHOT, run, 1);
  image_v3 (&im);
  im.process.start_monotonic_ns = (uint64_t) INT64_MAX + 1;
  expect ("record: a monotonic start out of range is damage", &im,
          "prog 'a b'", 0, start, snap, HI_READ_SNAPSHOT, run, 1);
  image_v3 (&im);
  im.root.snapshot_realtime_ns = UINT64_MAX;
  im.root.snapshot_monotonic_ns = UINT64_MAX;
  expect ("record: snapshot times out of range are damage", &im,
          "prog 'a b'", 0, start, 0, HI_READ_SNAPSHOT, 0, 2);
  image_v3 (&im);
  im.root.snapshot_realtime_ns = im.root.snapshot_monotonic_ns = 0;
  expect ("record: not a snapshot, no target clock: no read time", &im,
          "prog 'a b'", 0, start, 0, HI_READ_NONE, 0, 0);
  image_v3 (&im);
  im.process.start_realtime_ns = im.process.start_monotonic_ns = 0;
  expect ("record: no start time: no run time", &im, "prog 'a b'", 0, 0,
          snap, HI_READ_SNAPSHOT, 0, 0);

  /* The command line. */
  image_v3 (&im);
  im.process.cmdline_len = HI_CMDLINE_MAX + 1;
  expect ("record: a command line longer than its field is damage", &im,
          NULL, 0, start, snap, HI_READ_SNAPSHOT, run, 1);
  image_v3 (&im);
  im.process.cmdline_len = UINT32_MAX;
  expect ("record: a command line length of all ones is damage", &im,
          NULL, 0, start, snap, HI_READ_SNAPSHOT, run, 1);
  image_v3 (&im);
  im.process.cmdline_len = 8;                   /* "prog\0a b" */
  expect ("record: an unterminated, uncut command line is damage, shown cut",
          &im, "prog 'a b' ...", 1, start, snap, HI_READ_SNAPSHOT, run, 1);
  image_v3 (&im);
  im.process.cmdline_len = 8;
  im.process.flags = HI_PROCESS_CMDLINE_CUT;
  expect ("record: a cut command line ends with ...", &im, "prog 'a b' ...",
          1, start, snap, HI_READ_SNAPSHOT, run, 0);
  image_v3 (&im);
  im.process.flags = HI_PROCESS_CMDLINE_CUT;
  expect ("record: cut after a whole argument", &im, "prog 'a b' ...", 1,
          start, snap, HI_READ_SNAPSHOT, run, 0);
  image_v3 (&im);
  im.process.flags = ~HI_PROCESS_CMDLINE_CUT;
  expect ("record: unknown flags are ignored", &im, "prog 'a b'", 0, start,
          snap, HI_READ_SNAPSHOT, run, 0);
  image_v3 (&im);
  im.process.cmdline_len = 0;
  expect ("record: no command line recorded", &im, NULL, 0, start, snap,
          HI_READ_SNAPSHOT, run, 0);
  image_v3 (&im);
  memset (im.process.cmdline, '\x1b', sizeof im.process.cmdline);
  im.process.cmdline_len = HI_CMDLINE_MAX;
  im.process.flags = HI_PROCESS_CMDLINE_CUT;
  struct hi_model *m;
  int ok = load (&im, &m) == HI_OK && m->command
           && strlen (m->command) == 2 + 4 * (HI_CMDLINE_MAX) + 1 + 4
           && strchr (m->command, '\x1b') == NULL;
  check (ok, "record: a full line of ESC, every one escaped", "%s",
         m && m->command ? "not so" : "no command");
  hi_model_free (m);

  /* The record's arena. */
  image_v3 (&im);
  im.root.arenas[2].count = 2;
  im.root.arenas[2].capacity = 2;
  expect ("record: an arena of two records is damage", &im, NULL, 0, 0, snap,
          HI_READ_SNAPSHOT, 0, 1);
  image_v3 (&im);
  im.root.arenas[2].entry_size--;
  expect ("record: an arena of the wrong entry size is damage", &im, NULL, 0,
          0, snap, HI_READ_SNAPSHOT, 0, 1);
  image_v3 (&im);
  im.root.arenas[2].capacity = 0;
  expect ("record: an arena whose count passes its capacity is damage", &im,
          NULL, 0, 0, snap, HI_READ_SNAPSHOT, 0, 1);
  image_v3 (&im);
  im.process_readable = 0;
  expect ("record: an unreadable record is damage, the tables still load",
          &im, NULL, 0, 0, snap, HI_READ_SNAPSHOT, 0, 1);
  image_v3 (&im);
  im.root.arenas[2].count = 0;
  expect ("record: an empty arena: not recorded, no damage", &im, NULL, 0, 0,
          snap, HI_READ_SNAPSHOT, 0, 0);
  image_v3 (&im);
  im.root.n_arenas = 4;
  im.root.arenas[3] = im.root.arenas[2];
  expect ("record: two record arenas are damage", &im, NULL, 0, 0, snap,
          HI_READ_SNAPSHOT, 0, 1);
}

static void
test_versions (void)
{
  struct image im;
  struct hi_model *m;

  /* Version 2: a root of HI_ROOT_SIZE_V2 bytes, and nothing after it in
     memory; a process arena it lists is not its own (ignored). */
  image_v3 (&im);
  im.root.version = 2;
  im.root.root_size = HI_ROOT_SIZE_V2;
  im.root.snapshot_realtime_ns = im.root.snapshot_monotonic_ns = 0;
  im.root_bytes = HI_ROOT_SIZE_V2;
  expect ("version 2: read, command and times not recorded", &im, NULL, 0, 0,
          0, HI_READ_NONE, 0, 0);
  hi_status s = load (&im, &m);
  check (s == HI_OK && m->n_nodes == 2 && m->n_sites == 1
         && m->root.version == 2 && m->root.pid == 42,
         "version 2: its root and arenas are read", "%s", hi_strerror (s));
  hi_model_free (m);
  /* Fields past the version-2 root are never read from memory. */
  im.root.snapshot_realtime_ns = 1;
  im.root_bytes = sizeof im.root;
  expect ("version 2: bytes after its root are not its fields", &im, NULL, 0,
          0, 0, HI_READ_NONE, 0, 0);

  const struct { const char *name; uint32_t version, size; hi_status s; }
  bad[] = {
    { "version 2 with a root of version 3's size: damaged", 2,
      HI_ROOT_SIZE_V3, HI_E_CORRUPT },
    { "version 3 with a root of version 2's size: damaged", 3,
      HI_ROOT_SIZE_V2, HI_E_CORRUPT },
    { "version 3 with a root of version 4's size: damaged", 3,
      HI_ROOT_SIZE_V4, HI_E_CORRUPT },
    { "version 4 with a root of version 5's size: damaged", 4,
      sizeof (struct hi_root), HI_E_CORRUPT },
    { "version 5 with a root of version 4's size: damaged", 5,
      HI_ROOT_SIZE_V4, HI_E_CORRUPT },
    { "version 4 with a root of version 3's size: damaged", 4,
      HI_ROOT_SIZE_V3, HI_E_CORRUPT },
    { "version 1: a format this reader does not know", 1, HI_ROOT_SIZE_V2,
      HI_E_VERSION },
    { "version 7: a format this reader does not know", 7,
      sizeof (struct hi_root), HI_E_VERSION },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      image_v3 (&im);
      im.root.version = bad[i].version;
      im.root.root_size = bad[i].size;
      s = load (&im, &m);
      check (s == bad[i].s, bad[i].name, "%s", hi_strerror (s));
      hi_model_free (m);
    }
}

/* Format 6: an attached monitor's periods, and version 5's shorter
   process record.  The image's snapshot is at monotonic 3.5e9, its
   start (the first attach) at 1e9. */
static void
test_periods (void)
{
  struct image im;
  struct hi_model *m;
  struct
  {
    const char *name;
    uint32_t flags;
    uint64_t sum, period, detached_mono;
    int detached;
    uint64_t attached_ns, detached_ns;
  } c[] = {
    { "periods: attached once, recording: attached the run time",
      HI_PROCESS_ATTACHED, 0, UINT64_C(1000000000), 0,
      0, UINT64_C(2500000000), 0 },
    { "periods: attached again at 3e9 after 0.4 s: 0.4 s + 0.5 s",
      HI_PROCESS_ATTACHED, UINT64_C(400000000), UINT64_C(3000000000), 0,
      0, UINT64_C(900000000), 0 },
    { "periods: detached at 1.4e9 after 0.4 s: detached 2.1 s before",
      HI_PROCESS_ATTACHED | HI_PROCESS_DETACHED, UINT64_C(400000000),
      UINT64_C(1000000000), UINT64_C(1400000000),
      1, UINT64_C(400000000), UINT64_C(2100000000) },
    { "periods: not attached: none",
      HI_PROCESS_DETACHED, UINT64_C(400000000), UINT64_C(1000000000),
      UINT64_C(1400000000), 0, 0, 0 },
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      image_v3 (&im);
      im.process.flags = c[i].flags;
      im.process.attached_ns = c[i].sum;
      im.process.period_monotonic_ns = c[i].period;
      im.process.detached_monotonic_ns = c[i].detached_mono;
      im.process.detached_realtime_ns = c[i].detached_mono ? 1 : 0;
      hi_status s = load (&im, &m);
      check (s == HI_OK && m->detached == c[i].detached
             && m->attached_ns == c[i].attached_ns
             && m->detached_ns == c[i].detached_ns && m->damaged == 0,
             c[i].name, "%s: detached %d attached %" PRIu64 " detached_ns %"
             PRIu64, hi_strerror (s), s == HI_OK ? m->detached : -1,
             s == HI_OK ? m->attached_ns : 0,
             s == HI_OK ? m->detached_ns : 0);
      hi_model_free (m);
    }
  /* Version 5: a record of HI_PROCESS_SIZE_V5 bytes, its periods
     unknown (one: the run time); version 6's size in a version 5 root,
     or version 5's in a version 6 root, is damage. */
  image_v3 (&im);
  im.root.version = 5;
  im.root.arenas[2].entry_size = HI_PROCESS_SIZE_V5;
  im.process.flags = HI_PROCESS_ATTACHED | HI_PROCESS_DETACHED;
  im.process.attached_ns = 1;   /* past its record: never read */
  hi_status s = load (&im, &m);
  check (s == HI_OK && m->command && strcmp (m->command, "prog 'a b'") == 0
         && m->attached && !m->detached
         && m->attached_ns == UINT64_C(2500000000) && m->damaged == 0,
         "periods: version 5's record read, one period", "%s",
         hi_strerror (s));
  hi_model_free (m);
  image_v3 (&im);
  im.root.version = 5;
  expect ("periods: version 6's record in a version 5 root is damage",
          &im, NULL, 0, 0, UINT64_C(7500000000), HI_READ_SNAPSHOT, 0, 1);
  image_v3 (&im);
  im.root.arenas[2].entry_size = HI_PROCESS_SIZE_V5;
  expect ("periods: version 5's record in a version 6 root is damage",
          &im, NULL, 0, 0, UINT64_C(7500000000), HI_READ_SNAPSHOT, 0, 1);
}

int
main (void)
{
  test_command_text ();
  test_process_record ();
  test_versions ();
  test_periods ();
  return failed;
}
