/* options-unit.c - unit tests of the report options' one parser
   (reader/report/options.c): each option sets exactly its field, each
   bad value is refused with its line and leaves the options alone,
   prefixes resolve as getopt_long's do, and words are unquoted as the
   shell would. */
#include "hi-reader.h"
#include "unit-check.h"

#include <stdint.h>
#include <string.h>

/* 1 if A and B hold the same options (strings compared by address: the
   parser keeps the caller's value, it does not copy it). */
static int
same (const struct hi_options *a, const struct hi_options *b)
{
  return a->depth == b->depth && a->offsets == b->offsets
         && a->verbosity == b->verbosity && a->format == b->format
         && a->threshold == b->threshold && a->limit == b->limit
         && a->exact_bytes == b->exact_bytes && a->long_names == b->long_names
         && a->lines == b->lines && a->focus == b->focus
         && a->ignore == b->ignore && a->module == b->module
         && a->suppressions == b->suppressions
         && a->default_suppressions == b->default_suppressions
         && a->weight == b->weight;
}

/* Set NAME to VALUE on the defaults; WANT is the defaults with the one
   field the option owns changed by the caller's EDIT. */
#define ACCEPT(label, name, value, edit)                                     \
  do                                                                         \
    {                                                                        \
      struct hi_options o = HI_OPTIONS_DEFAULT, want = HI_OPTIONS_DEFAULT;   \
      char err[256] = "";                                                    \
      int r = hi_option_set (&o, name, value, err, sizeof err);              \
      edit;                                                                  \
      check (r == 0 && same (&o, &want), "options: " label " sets its field", \
             "returned %d (%s), or another field moved", r, err);            \
    }                                                                        \
  while (0)

static void
refuse (const char *label, const char *name, const char *value,
        const char *message)
{
  struct hi_options o = HI_OPTIONS_DEFAULT, want = HI_OPTIONS_DEFAULT;
  char err[256] = "", name_buf[300];
  int r = hi_option_set (&o, name, value, err, sizeof err);
  snprintf (name_buf, sizeof name_buf, "options: %s is refused with its line",
            label);
  check (r == -1 && strcmp (err, message) == 0 && same (&o, &want), name_buf,
         "returned %d, said '%s', want '%s'", r, err, message);
}

static void
test_accept (void)
{
  ACCEPT ("--depth=1", "depth", "1", want.depth = 1);
  ACCEPT ("--depth=10000", "depth", "10000", want.depth = 10000);
  ACCEPT ("--depth=010 (decimal)", "depth", "010", want.depth = 10);
  ACCEPT ("--offsets", "offsets", NULL, want.offsets = 1);
  ACCEPT ("--terse", "terse", NULL, want.verbosity = HI_TERSE);
  ACCEPT ("--verbose", "verbose", NULL, want.verbosity = HI_VERBOSE);
  ACCEPT ("--format=json", "format", "json", want.format = HI_JSON);
  ACCEPT ("--format=text", "format", "text", want.format = HI_TEXT);
  ACCEPT ("--format=pprof", "format", "pprof", want.format = HI_PPROF);
  ACCEPT ("--format=pprof-text", "format", "pprof-text",
          want.format = HI_PPROF_TEXT);
  ACCEPT ("--format=folded", "format", "folded", want.format = HI_FOLDED);
  ACCEPT ("--format=svg", "format", "svg", want.format = HI_SVG);
  ACCEPT ("--format=massif", "format", "massif", want.format = HI_MASSIF);
  ACCEPT ("--weight=inuse_space", "weight", "inuse_space",
          want.weight = HI_WEIGHT_INUSE_SPACE);
  ACCEPT ("--weight=inuse_objects", "weight", "inuse_objects",
          want.weight = HI_WEIGHT_INUSE_OBJECTS);
  ACCEPT ("--weight=alloc_space", "weight", "alloc_space",
          want.weight = HI_WEIGHT_ALLOC_SPACE);
  ACCEPT ("--weight=alloc_objects", "weight", "alloc_objects",
          want.weight = HI_WEIGHT_ALLOC_OBJECTS);
  ACCEPT ("--weight=peak_space", "weight", "peak_space",
          want.weight = HI_WEIGHT_PEAK_SPACE);
  ACCEPT ("--weight=peak_objects", "weight", "peak_objects",
          want.weight = HI_WEIGHT_PEAK_OBJECTS);
  ACCEPT ("--threshold=0.5", "threshold", "0.5", want.threshold = 500);
  ACCEPT ("--threshold=1", "threshold", "1", want.threshold = 1000);
  ACCEPT ("--threshold=0", "threshold", "0", want.threshold = 0);
  ACCEPT ("--threshold=2.25", "threshold", "2.25", want.threshold = 2250);
  ACCEPT ("--threshold=0.001", "threshold", "0.001", want.threshold = 1);
  ACCEPT ("--threshold=100", "threshold", "100", want.threshold = 100000);
  ACCEPT ("--threshold=100.000", "threshold", "100.000",
          want.threshold = 100000);
  ACCEPT ("--threshold=.5", "threshold", ".5", want.threshold = 500);
  ACCEPT ("--threshold=1.5%", "threshold", "1.5%", want.threshold = 1500);
  ACCEPT ("--threshold=007.10", "threshold", "007.10", want.threshold = 7100);
  ACCEPT ("--limit=0", "limit", "0", want.limit = 0);
  ACCEPT ("--limit=20", "limit", "20", want.limit = 20);
  ACCEPT ("--limit=4294967294", "limit", "4294967294",
          want.limit = UINT32_MAX - 1);
  ACCEPT ("--bytes", "bytes", NULL, want.exact_bytes = 1);
  ACCEPT ("--long-names", "long-names", NULL, want.long_names = 1);
  ACCEPT ("--no-lines", "no-lines", NULL, want.lines = 0);
  static const char re[] = "^std::(a|b)\\\"$'*";
  ACCEPT ("--focus=RE", "focus", re, want.focus = re);
  ACCEPT ("--ignore=RE", "ignore", re, want.ignore = re);
  static const char mod[] = "libc.so.6";
  ACCEPT ("--module=NAME", "module", mod, want.module = mod);
  static const char file[] = "/tmp/my supp's";
  ACCEPT ("--suppressions=FILE", "suppressions", file,
          want.suppressions = file);
  ACCEPT ("--no-default-suppressions", "no-default-suppressions", NULL,
          want.default_suppressions = 0);

  /* Options add up; the last of two values wins. */
  struct hi_options o = HI_OPTIONS_DEFAULT, want = HI_OPTIONS_DEFAULT;
  char err[256];
  int r = hi_option_set (&o, "threshold", "3", err, sizeof err)
          | hi_option_set (&o, "bytes", NULL, err, sizeof err)
          | hi_option_set (&o, "terse", NULL, err, sizeof err)
          | hi_option_set (&o, "verbose", NULL, err, sizeof err)
          | hi_option_set (&o, "threshold", "0.25", err, sizeof err);
  want.threshold = 250;
  want.exact_bytes = 1;
  want.verbosity = HI_VERBOSE;
  check (r == 0 && same (&o, &want), "options: options add up, the last wins",
         "returned %d", r);
}

static void
test_refuse (void)
{
  static const char depth[] = "a number from 1 to 10000";
  static const char pct[] = "a percentage from 0 to 100 with at most 3 "
                            "decimals (0.5)";
  static const char *const bad_depth[] = { "0", "10001", "-1", "+3", "0x10",
                                           " 3", "3 ", "3x", "99999999999999999999" };
  for (size_t i = 0; i < sizeof bad_depth / sizeof *bad_depth; i++)
    {
      char label[64], msg[200];
      snprintf (label, sizeof label, "--depth='%s'", bad_depth[i]);
      snprintf (msg, sizeof msg, "--depth takes %s, not '%s'", depth,
                bad_depth[i]);
      refuse (label, "depth", bad_depth[i], msg);
    }
  static const char *const bad_pct[] = { "-1", "-0.5", "100.001", "101",
                                         "1000", "0.0005", "1.2345", "abc",
                                         "1.", ".", "%", "1%%", "1,5", "0x1",
                                         "1e2", " 1", "1 ", "+1", "nan",
                                         "99999999999999999999" };
  for (size_t i = 0; i < sizeof bad_pct / sizeof *bad_pct; i++)
    {
      char label[64], msg[200];
      snprintf (label, sizeof label, "--threshold='%s'", bad_pct[i]);
      snprintf (msg, sizeof msg, "--threshold takes %s, not '%s'", pct,
                bad_pct[i]);
      refuse (label, "threshold", bad_pct[i], msg);
    }
  refuse ("--limit=-1", "limit", "-1",
          "--limit takes a number of rows (0: no limit), not '-1'");
  /* 2^32-1 is HI_OPT_LIMIT_AUTO, "no --limit given": never a user's. */
  refuse ("--limit=4294967295", "limit", "4294967295",
          "--limit takes a number of rows (0: no limit), not '4294967295'");
  refuse ("--limit=4294967296", "limit", "4294967296",
          "--limit takes a number of rows (0: no limit), not '4294967296'");
  refuse ("--limit=1.5", "limit", "1.5",
          "--limit takes a number of rows (0: no limit), not '1.5'");
  refuse ("--format=xml", "format", "xml",
          "--format takes text, json, pprof, pprof-text, folded, svg or massif, not 'xml'");
  refuse ("--format=JSON", "format", "JSON",
          "--format takes text, json, pprof, pprof-text, folded, svg or "
          "massif, not 'JSON'");
  refuse ("--weight=inuse", "weight", "inuse",
          "--weight takes inuse_space, inuse_objects, alloc_space, "
          "alloc_objects, peak_space or peak_objects, not 'inuse'");
  refuse ("--weight=", "weight", "", "--weight needs inuse_space, "
          "inuse_objects, alloc_space, alloc_objects, peak_space or "
          "peak_objects");
  refuse ("--depth=", "depth", "", "--depth needs a number from 1 to 10000");
  refuse ("--threshold=", "threshold", "", "--threshold needs " "a percentage "
          "from 0 to 100 with at most 3 decimals (0.5)");
  refuse ("--focus=", "focus", "", "--focus needs a regular expression");
  refuse ("--ignore=", "ignore", "", "--ignore needs a regular expression");
  refuse ("--module=", "module", "", "--module needs a module name (libc.so.6)");
  refuse ("--suppressions=", "suppressions", "",
          "--suppressions needs a file name");
  refuse ("--depth without a value", "depth", NULL, "--depth needs a value");
  refuse ("--focus without a value", "focus", NULL, "--focus needs a value");
  refuse ("--bytes=1", "bytes", "1", "--bytes takes no value");
  refuse ("--no-lines=yes", "no-lines", "yes", "--no-lines takes no value");
  refuse ("an unknown option", "colour", NULL, "unknown option '--colour'");
  refuse ("a prefix (the full name only)", "thresh", "1",
          "unknown option '--thresh'");
  /* A value is shown printable and cut: a terminal gets no escape. */
  refuse ("a control character in a value", "depth", "1\033[2J",
          "--depth takes a number from 1 to 10000, not '1\\x1b[2J'");
  char lng[200], msg[300];
  memset (lng, '7', sizeof lng - 1);
  lng[sizeof lng - 1] = '\0';
  snprintf (msg, sizeof msg, "--limit takes a number of rows (0: no limit), "
            "not '%.61s...'", lng);
  refuse ("a long value", "limit", lng, msg);
}

static void
test_find (void)
{
  static const struct
  {
    const char *word;
    int id, takes_value;
  } cases[] = {
    { "depth", HI_ROPT_DEPTH, 1 }, { "dep", HI_ROPT_DEPTH, 1 },
    { "thr", HI_ROPT_THRESHOLD, 1 }, { "long-names", HI_ROPT_LONG_NAMES, 0 },
    { "no-l", HI_ROPT_NO_LINES, 0 }, { "no", -2, 0 }, { "f", -2, 0 },
    { "fo", -2, 0 }, { "foc", HI_ROPT_FOCUS, 1 }, { "formats", -1, 0 }, { "", -1, 0 },
    { "no-default-suppressions", HI_ROPT_NO_DEFAULT_SUPPRESSIONS, 0 },
    { "suppressions", HI_ROPT_SUPPRESSIONS, 1 }, { "x", -1, 0 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    {
      int takes = -1;
      int id = hi_option_find (cases[i].word, strlen (cases[i].word), &takes);
      char name[96];
      snprintf (name, sizeof name, "options: '%s' finds its option",
                cases[i].word);
      check (id == cases[i].id
             && (id < 0 || takes == cases[i].takes_value), name,
             "got %d (takes %d), want %d", id, takes, cases[i].id);
    }
  /* The length bounds the name: "depth=3" is looked up as "depth". */
  check (hi_option_find ("depth=3", 5, NULL) == HI_ROPT_DEPTH,
         "options: a name is read to its length", "no");
  int all = 1;
  for (int i = 0; i < HI_N_REPORT_OPTIONS; i++)
    all &= hi_option_find (hi_option_name (i), strlen (hi_option_name (i)),
                           NULL) == i;
  check (all && HI_N_REPORT_OPTIONS == 16 && !hi_option_name (-1)
         && !hi_option_name (HI_N_REPORT_OPTIONS),
         "options: each of the 16 names finds itself", "no");
}

static void
test_unquote (void)
{
  static const struct
  {
    const char *in, *out;
    int status;
  } cases[] = {
    { "plain", "plain", 0 },
    { "--focus='a b'", "--focus=a b", 0 },
    { "'--focus=a b'", "--focus=a b", 0 },
    { "--focus=\"a b\"", "--focus=a b", 0 },
    { "'a\"b\\c$d'", "a\"b\\c$d", 0 },
    { "\"a\\\"b\\\\c\\$d\\`e\\f'g\"", "a\"b\\c$d`e\\f'g", 0 },
    { "a\\'b\\\"c\\\\d\\ e", "a'b\"c\\d e", 0 },
    { "x'y'\"z\"", "xyz", 0 },
    { "''", "", 0 },
    { "$arg0%s#(*|)", "$arg0%s#(*|)", 0 },
    { "'abc", NULL, -1 },
    { "\"abc", NULL, -1 },
    { "\"ab\\\"", NULL, -1 },
    { "abc\\", NULL, -2 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    {
      char w[64], name[128];
      snprintf (w, sizeof w, "%s", cases[i].in);
      int s = hi_unquote (w);
      snprintf (name, sizeof name, "options: unquote %s", cases[i].in);
      check (s == cases[i].status && (s != 0 || strcmp (w, cases[i].out) == 0),
             name, "status %d, got '%s'", s, s == 0 ? w : "");
    }
}

int
main (void)
{
  test_accept ();
  test_refuse ();
  test_find ();
  test_unquote ();
  return failed;
}
