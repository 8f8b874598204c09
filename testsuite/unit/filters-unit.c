/* filters-unit.c - unit tests of the pure parts of issue 11's filters:
   short C++ names (named cases, and random hostile strings with guard
   bytes), LeakSanitizer's template matching and file syntax, and the
   site flags of --focus, --ignore, --module, a suppressions file and the
   built-in list on hand-built chains.  Prints "PASS: name" or "FAIL:
   name: why" per check (filters-unit.exp turns them into DejaGnu
   results); exit status 1 if any failed. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/cxxname.h"
#include "analysis/filter.h"
#include "symbols/symbolize.h"
#include "unit-check.h"
#include "util/strtab.h"

/* ---- short C++ names ---- */

static const struct
{
  const char *what, *in, *out;
} names[] = {
  { "C name untouched", "make_widget", "make_widget" },
  { "C name with a dot untouched", "_GLOBAL__sub_I_eh_alloc.cc",
    "_GLOBAL__sub_I_eh_alloc.cc" },
  { "module+offset untouched", "libstdc++.so.6+0xa57ba",
    "libstdc++.so.6+0xa57ba" },
  { "placeholder untouched", "<deeper>", "<deeper>" },
  { "empty name", "", "" },
  { "issue's vector example",
    "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
    "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)",
    "std::vector<...>::_M_realloc_insert<...>" },
  { "vector example without return type",
    "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
    "(__gnu_cxx::__normal_iterator<int*, std::vector<int> >, int const&)",
    "std::vector<...>::_M_realloc_insert<...>" },
  { "plain function's parameters", "Configuration::Lookup(char const*, bool const&)",
    "Configuration::Lookup" },
  { "trailing const", "Foo::size() const", "Foo::size" },
  { "ref qualifier and noexcept", "Foo::get() const && noexcept", "Foo::get" },
  { "operator<", "bool operator<(Foo const&, Foo const&)", "operator<" },
  { "operator<<", "std::ostream& operator<<(std::ostream&, Foo const&)",
    "operator<<" },
  { "templated operator<< with a space",
    "std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
    "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
    "std::operator<< <...>" },
  { "operator< of a template", "bool operator< <int>(Foo<int> const&, Foo<int> const&)",
    "operator< <...>" },
  { "operator>>", "Foo::operator>>(int)", "Foo::operator>>" },
  { "operator<=>", "auto Foo::operator<=>(Foo const&) const", "Foo::operator<=>" },
  { "operator->", "Foo::operator->() const", "Foo::operator->" },
  { "operator()", "Foo::operator()(int) const", "Foo::operator()" },
  { "operator[]", "Foo::operator[](unsigned long)", "Foo::operator[]" },
  { "operator new[]", "operator new[](unsigned long)", "operator new[]" },
  { "operator new with nothrow", "operator new(unsigned long, std::nothrow_t const&)",
    "operator new" },
  { "operator delete", "operator delete(void*, unsigned long)", "operator delete" },
  { "conversion operator", "Foo::operator bool() const", "Foo::operator bool" },
  { "conversion to a template type",
    "Foo::operator std::vector<int, std::allocator<int> >() const",
    "Foo::operator std::vector<...>" },
  { "anonymous namespace", "(anonymous namespace)::pool::allocate(unsigned long)",
    "(anonymous namespace)::pool::allocate" },
  { "anonymous namespace after a return type",
    "void* (anonymous namespace)::pool::allocate(unsigned long)",
    "(anonymous namespace)::pool::allocate" },
  { "lambda", "main::{lambda(int)#1}::operator()(int) const",
    "main::{lambda(...)#1}::operator()" },
  { "lambda without parameters", "main::{lambda()#2}::_FUN()",
    "main::{lambda()#2}::_FUN" },
  { "lambda inside a template argument",
    "std::_Function_handler<void (int), main::{lambda(int)#1}>::_M_invoke"
    "(std::_Any_data const&, int&&)",
    "std::_Function_handler<...>::_M_invoke" },
  { "abi tag",
    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
    "::_M_create[abi:cxx11](unsigned long&, unsigned long)",
    "std::__cxx11::basic_string<...>::_M_create" },
  { "abi tag on a function", "foo[abi:cxx11]()", "foo" },
  { "clone suffix", "foo(int) [clone .isra.0]", "foo" },
  { "function pointer return type", "int (*f<int>(int))(double)", "f<...>" },
  { "signal-like function pointer",
    "void (*signal(int, void (*)(int)))(int)", "signal" },
  { "function pointer parameter", "qsort_r(void*, unsigned long, int (*)(void const*, void const*))",
    "qsort_r" },
  { "local entity", "f(int)::Local::get() const", "f::Local::get" },
  { "destructor", "std::vector<int, std::allocator<int> >::~vector()",
    "std::vector<...>::~vector" },
  { "empty template list", "f<>()", "f<>" },
  { "thunk prefix kept", "non-virtual thunk to Foo::bar(int)",
    "non-virtual thunk to Foo::bar" },
  { "map node allocation",
    "std::_Rb_tree_node<std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, "
    "std::allocator<char> > const, std::vector<int, std::allocator<int> > > >* "
    "__gnu_cxx::new_allocator<std::_Rb_tree_node<std::pair<std::__cxx11::basic_string<char, "
    "std::char_traits<char>, std::allocator<char> > const, std::vector<int, std::allocator<int> > > > >"
    "::allocate(unsigned long, void const*)",
    "__gnu_cxx::new_allocator<...>::allocate" },
  { "decltype return type",
    "decltype (({parm#1}.size)()) size<Foo>(Foo const&)", "size<...>" },
  { "unbalanced '<' does not crash", "foo<bar(int", "foo<...>" },
  { "unbalanced ')' does not crash", "foo)(int)", "foo)" },
  { "lone operator", "operator", "operator" },
  { "only a parameter list", "(int)", "(int)" },
};

static void
test_names (void)
{
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      char out[512], name[128];
      hi_cxx_short_name (names[i].in, out, sizeof out);
      snprintf (name, sizeof name, "short name: %s", names[i].what);
      check (strcmp (out, names[i].out) == 0, name, "'%s' gave '%s', not '%s'",
             names[i].in, out, names[i].out);
    }
  /* A cut output: the start of the short name, NUL-terminated, nothing
     written past SIZE. */
  char buf[16];
  memset (buf, 'Z', sizeof buf);
  hi_cxx_short_name ("std::vector<int>::push_back(int const&)", buf, 8);
  check (strcmp (buf, "std::ve") == 0 && buf[8] == 'Z',
         "short name: cut to its buffer", "'%.16s'", buf);
  memset (buf, 'Z', sizeof buf);
  hi_cxx_short_name ("main", buf, 1);
  check (buf[0] == '\0' && buf[1] == 'Z', "short name: buffer of one byte",
         "'%.16s'", buf);
  hi_cxx_short_name ("main", buf, 0);
  check (buf[0] == '\0' && buf[1] == 'Z', "short name: buffer of no byte",
         "'%.16s'", buf);
}

/* Random strings of C++ name characters, in heap buffers sized exactly
   (ASan sees a read past the NUL) and outputs with guard bytes. */
static void
test_names_fuzz (void)
{
  static const char alphabet[] = "<>()[]{}:: ,*&~#$^-.aboperatornewdelete"
                                 "constanymous namespace)lambda";
  unsigned seed = 12345;
  int bad = 0;
  long rounds = 100000;
  for (long r = 0; r < rounds && !bad; r++)
    {
      size_t len = (size_t) (rand_r (&seed) % 80);
      char *in = malloc (len + 1);
      for (size_t i = 0; i < len; i++)
        in[i] = rand_r (&seed) % 8 == 0
                ? (char) (rand_r (&seed) % 255 + 1)
                : alphabet[rand_r (&seed) % (sizeof alphabet - 1)];
      in[len] = '\0';
      /* Sometimes a keyword at a random place. */
      if (len > 12 && rand_r (&seed) % 3 == 0)
        memcpy (in + rand_r (&seed) % (len - 10), "operator<", 9);
      size_t size = (size_t) (rand_r (&seed) % 100);
      char *out = malloc (size + 8);
      memset (out, 0x5a, size + 8);
      hi_cxx_short_name (in, out, size);
      for (size_t i = size; i < size + 8; i++)
        bad |= out[i] != 0x5a;
      if (size > 0)
        bad |= memchr (out, '\0', size) == NULL;
      if (bad)
        printf ("fuzz input: '%s' size %zu\n", in, size);
      free (in);
      free (out);
    }
  check (!bad, "short name: random strings stay in their buffers", "see above");
}

/* ---- LeakSanitizer's templates ---- */

static void
test_templates (void)
{
  static const struct
  {
    const char *templ, *str;
    int match;
  } t[] = {
    { "FooBar", "FooBar", 1 }, { "Bar", "FooBar", 1 }, { "oBa", "FooBar", 1 },
    { "Baz", "FooBar", 0 }, { "^Foo", "FooBar", 1 }, { "^Bar", "FooBar", 0 },
    { "Bar$", "FooBar", 1 }, { "Foo$", "FooBar", 0 }, { "^FooBar$", "FooBar", 1 },
    { "^Foo$", "FooBar", 0 }, { "F*r", "FooBar", 1 }, { "^F*B*r$", "FooBar", 1 },
    { "*", "x", 1 }, { "", "x", 1 }, { "*", "", 0 }, { "", "", 0 },
    { "^*Bar", "FooBar", 1 }, { "Foo*$", "FooBar", 1 },
    /* LSan finds each piece at its first occurrence, without backtracking */
    { "a*b$", "abab", 0 }, { "a*b", "abab", 1 },
    /* after '$' the template is not looked at */
    { "Foo$Bar", "Foo", 1 },
    { "std::vector<int", "std::vector<int, std::allocator<int> >::push_back", 1 },
    { "libc.so", "libc.so.6", 1 }, { "^libc.so.6$", "libc.so.6", 1 },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      char name[160];
      snprintf (name, sizeof name, "template: '%s' %s '%s'", t[i].templ,
                t[i].match ? "matches" : "does not match", t[i].str);
      check (hi_template_match (t[i].templ, t[i].str) == t[i].match, name,
             "wrong");
    }
  check (!hi_template_match ("x", NULL), "template: a missing name matches nothing",
         "wrong");
}

static void
test_file_syntax (void)
{
  struct hi_suppressions s;
  hi_suppressions_init (&s);
  const char text[] =
    "# LSan's syntax\n"
    "\n"
    "   \t\n"
    "leak:FooBar\n"
    "  \tleak:^baz$  \r\n"
    "called_from_lib:libfoo.so\n"
    "race:Thread*\n"
    "interceptor_via_fun:qux\n"
    "signed-integer-overflow:file.c\n"
    "leak:last";                       /* no newline at the end */
  hi_status st = hi_suppressions_parse (&s, text, sizeof text - 1, "supp");
  check (st == HI_OK && s.n == 3 && strcmp (s.templ[0], "FooBar") == 0
         && strcmp (s.templ[1], "^baz$") == 0 && strcmp (s.templ[2], "last") == 0,
         "suppressions: leak lines kept, blanks, comments and CRs left out",
         "status %d, %u patterns", (int) st, s.n);
  check (s.ignored == 4, "suppressions: other sanitizers' kinds counted",
         "%u", s.ignored);
  check (hi_suppressions_match (&s, "xFooBarx") && hi_suppressions_match (&s, "baz")
         && !hi_suppressions_match (&s, "bazz") && !hi_suppressions_match (&s, "quux"),
         "suppressions: matched as templates", "wrong");
  hi_suppressions_free (&s);

  static const struct
  {
    const char *what, *text, *msg;
  } bad[] = {
    { "a line without a kind", "leak:a\nFooBar\n",
      "cannot use the suppressions file: my.supp:2: not a leak:PATTERN line" },
    { "an upper-case kind", "\n\nLeak:x\n",
      "cannot use the suppressions file: my.supp:3: not a leak:PATTERN line" },
    { "a line starting with ':'", ":x",
      "cannot use the suppressions file: my.supp:1: not a leak:PATTERN line" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      hi_suppressions_init (&s);
      st = hi_suppressions_parse (&s, bad[i].text, strlen (bad[i].text),
                                  "my.supp");
      char name[128];
      snprintf (name, sizeof name, "suppressions: %s is refused with its line",
                bad[i].what);
      const char *msg = hi_strerror (st);
      check (st == HI_E_SUPPRESSIONS && strcmp (msg, bad[i].msg) == 0, name,
             "status %d: %s", (int) st, msg);
      hi_suppressions_free (&s);
    }
  hi_suppressions_init (&s);
  st = hi_suppressions_parse (&s, "leak:a\0b\n", 9, "nul.supp");
  check (st == HI_E_SUPPRESSIONS
         && strcmp (hi_strerror (st), "cannot use the suppressions file: "
                    "nul.supp:1: a NUL byte in the pattern") == 0,
         "suppressions: a NUL byte is refused", "%s", hi_strerror (st));
  hi_suppressions_free (&s);

  hi_suppressions_init (&s);
  st = hi_suppressions_load (&s, "/nonexistent/heapinspect.supp");
  check (st == HI_E_SUPPRESSIONS
         && strcmp (hi_strerror (st), "cannot use the suppressions file: "
                    "/nonexistent/heapinspect.supp: No such file or directory") == 0,
         "suppressions: a missing file is one line with its name", "%s",
         hi_strerror (st));
  st = hi_suppressions_load (&s, "/");
  check (st == HI_E_SUPPRESSIONS
         && strcmp (hi_strerror (st), "cannot use the suppressions file: "
                    "/: not a regular file") == 0,
         "suppressions: a directory is refused", "%s", hi_strerror (st));
  hi_suppressions_free (&s);

  /* A real file, through the options. */
  char path[] = "/tmp/filters-unit-XXXXXX";
  int fd = mkstemp (path);
  const char body[] = "leak:FooBar\nrace:x\n";
  int wrote = fd >= 0 && write (fd, body, sizeof body - 1) == (ssize_t) (sizeof body - 1);
  if (fd >= 0)
    close (fd);
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.suppressions = path;
  uint32_t ignored = 99;
  st = hi_filters_check (&opt, &ignored);
  check (wrote && st == HI_OK && ignored == 1,
         "filters check: a good file passes, its other kinds counted",
         "status %d, ignored %u", (int) st, ignored);
  unlink (path);
}

static void
test_regex_errors (void)
{
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.focus = "main(";
  hi_status st = hi_filters_check (&opt, NULL);
  const char *msg = hi_strerror (st);
  check (st == HI_E_REGEX
         && strncmp (msg, "not a valid regular expression: --focus=main(: ", 47) == 0
         && !strchr (msg, '\n'),
         "filters check: a bad --focus is one line naming it", "%s", msg);
  opt.focus = "ma.n";
  opt.ignore = "a{2,1}";
  st = hi_filters_check (&opt, NULL);
  msg = hi_strerror (st);
  check (st == HI_E_REGEX
         && strncmp (msg, "not a valid regular expression: --ignore=a{2,1}: ", 49) == 0,
         "filters check: a bad --ignore is one line naming it", "%s", msg);
  opt.ignore = "x\033[31m(";
  st = hi_filters_check (&opt, NULL);
  msg = hi_strerror (st);
  check (st == HI_E_REGEX && !strchr (msg, '\033') && strstr (msg, "x\\x1b[31m("),
         "filters check: control characters of a bad expression escaped", "%s", msg);
  opt.ignore = "^(alloc|free)$";
  check (hi_filters_check (&opt, NULL) == HI_OK,
         "filters check: good expressions pass", "%s", hi_strerror (st));
  check (hi_module_named ("libc", "libc.so.6") && hi_module_named ("libc.so", "libc.so.6")
         && hi_module_named ("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6")
         && !hi_module_named ("libc", "libcrypto.so.3")
         && !hi_module_named ("libc.so.6.1", "libc.so.6")
         && !hi_module_named ("", "libc.so.6") && !hi_module_named ("/", "libc.so.6"),
         "module names: base name, or up to a dot", "wrong");
}

/* ---- site flags on hand-built chains ---- */

struct chains
{
  struct hi_model m;
  struct hi_analysis a;
  uint32_t starts[32];
  uint32_t ids[256];
};

static void
chains_init (struct chains *x, const struct hi_options *opt)
{
  memset (x, 0, sizeof *x);
  x->a.m = &x->m;
  x->a.opt = *opt;
  hi_strtab_init (&x->a.funcs);
  hi_strtab_init (&x->a.labels);
  hi_strtab_init (&x->a.strs);
  x->a.frames = calloc (256, sizeof *x->a.frames);
  x->a.frames_cap = 256;
  x->a.n_frames = 1;            /* frame 0: the cut */
  x->a.frames[0].func = hi_strtab_intern (&x->a.funcs, "<deeper>");
  x->a.frames[0].module = x->a.frames[0].file = HI_NONE;
  x->a.frames[0].name = x->a.frames[0].long_name = HI_NONE;
  x->a.chain_start = x->starts;
  x->a.chain_frames = x->ids;
}

/* A site whose chain is the frames FRAMES (outermost first), each
   "func", "func@module", "func@module@file" or "func@module@file@long"
   (LONG: the full demangled name; FILE may be empty); "..." is the cut.
   A func "name (module)" is shown for a name two modules share: its bare
   name is NAME. */
static uint64_t
chain (struct chains *x, const char *const *frames)
{
  uint64_t s = x->m.n_sites++;
  uint32_t at = x->starts[s];
  for (int i = 0; frames[i]; i++)
    {
      if (strcmp (frames[i], "...") == 0)
        {
          x->ids[at++] = HI_FRAME_CUT;
          continue;
        }
      char buf[256];
      snprintf (buf, sizeof buf, "%s", frames[i]);
      char *mod = strchr (buf, '@'), *file = NULL, *full = NULL;
      if (mod)
        {
          *mod++ = '\0';
          file = strchr (mod, '@');
          if (file)
            *file++ = '\0';
          full = file ? strchr (file, '@') : NULL;
          if (full)
            *full++ = '\0';
        }
      struct hi_frame *f = &x->a.frames[x->a.n_frames];
      f->func = hi_strtab_intern (&x->a.funcs, buf);
      char *paren = strstr (buf, " (");
      if (paren)
        *paren = '\0';
      f->name = hi_strtab_intern (&x->a.strs, buf);
      f->long_name = hi_strtab_intern (&x->a.strs, full ? full : buf);
      f->module = mod ? hi_strtab_intern (&x->a.strs, mod) : HI_NONE;
      f->file = file && *file ? hi_strtab_intern (&x->a.strs, file) : HI_NONE;
      x->ids[at++] = x->a.n_frames++;
    }
  x->starts[s + 1] = at;
  return s;
}

static void
chains_free (struct chains *x)
{
  hi_strtab_free (&x->a.funcs);
  hi_strtab_free (&x->a.labels);
  hi_strtab_free (&x->a.strs);
  free (x->a.frames);
  free (x->a.site_flags);
}

#define C(...) ((const char *const[]) { __VA_ARGS__, NULL })

/* The flags of every site of X under OPT, as a string of digits, or
   the error, into OUT of 256 bytes. */
static void
flags_of (struct chains *x, const struct hi_options *opt, char *out)
{
  struct hi_filters *f;
  hi_status st = hi_filters_new (opt, &f);
  if (st == HI_OK)
    st = hi_filters_apply (f, &x->a);
  hi_filters_free (f);
  if (st != HI_OK)
    {
      snprintf (out, 256, "error %s", hi_strerror (st));
      return;
    }
  for (uint64_t s = 0; s < x->m.n_sites; s++)
    out[s] = (char) ('0' + hi_site_flags (&x->a, s));
  out[x->m.n_sites] = '\0';
}

static void
test_flags (void)
{
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.default_suppressions = 0;
  struct chains x;
  chains_init (&x, &opt);
  chain (&x, C ("main@app", "produce@app", "make_red@app@/src/red.c"));   /* 0 */
  chain (&x, C ("main@app", "produce@app", "make_blue@app@/src/blue.c")); /* 1 */
  chain (&x, C ("main@app", "load@app", "parse@libfoo.so.1"));            /* 2 */
  chain (&x, C ("...", "helper@libfoo.so.1"));                             /* 3 */
  chain (&x, C ("main@app", "std::vector<int>::push_back@app"));          /* 4 */
  char got[256];

  flags_of (&x, &opt, got);
  check (strcmp (got, "00000") == 0 && x.a.site_flags == NULL,
         "flags: none asked, none set", "%s", got);
  opt.focus = "^make_";
  flags_of (&x, &opt, got);
  check (strcmp (got, "00111") == 0, "flags: --focus keeps chains with a matching frame",
         "%s", got);
  /* Site 4 never allocated: it gets no flag (no table counts it). */
  struct hi_site_sum sums[5] = { { 1, 1, 1, 1 }, { 1, 0, 8, 0 }, { 0, 1, 0, 0 },
                                 { 0, 0, 0, 1 }, { 0, 0, 0, 0 } };
  x.a.sum = sums;
  flags_of (&x, &opt, got);
  check (strcmp (got, "00110") == 0, "flags: a site that never allocated gets none",
         "%s", got);
  x.a.sum = NULL;
  opt.focus = "produce|helper";
  flags_of (&x, &opt, got);
  check (strcmp (got, "00101") == 0, "flags: --focus on any frame, not only the leaf",
         "%s", got);
  opt.focus = "deeper";
  flags_of (&x, &opt, got);
  check (strcmp (got, "11111") == 0, "flags: --focus never matches the cut frame",
         "%s", got);
  opt.focus = NULL;
  opt.ignore = "blue|vector<";
  flags_of (&x, &opt, got);
  check (strcmp (got, "01001") == 0, "flags: --ignore drops chains with a matching frame",
         "%s", got);
  opt.focus = "main";
  opt.ignore = "load";
  flags_of (&x, &opt, got);
  check (strcmp (got, "00110") == 0, "flags: --focus and --ignore together",
         "%s", got);
  opt.focus = opt.ignore = NULL;
  opt.module = "libfoo.so";
  flags_of (&x, &opt, got);
  check (strcmp (got, "11001") == 0, "flags: --module keeps chains through it",
         "%s", got);
  opt.module = "/usr/lib/app";
  flags_of (&x, &opt, got);
  check (strcmp (got, "00010") == 0, "flags: --module by a path's base name",
         "%s", got);
  opt.module = NULL;

  /* Names as shown (short, without " (module)") and full names. */
  struct chains y;
  chains_init (&y, &opt);
  chain (&y, C ("main@app", "strdup (libc.so.6)@libc.so.6"));              /* 0 */
  chain (&y, C ("main@app", "std::vector<...>::push_back@app@@"
                "std::vector<int, std::allocator<int> >::push_back(int const&)")); /* 1 */
  opt.focus = "^strdup$";
  flags_of (&y, &opt, got);
  check (strcmp (got, "01") == 0,
         "flags: --focus on the bare name of a name two modules share", "%s", got);
  opt.focus = "push_back\\(int";
  flags_of (&y, &opt, got);
  check (strcmp (got, "11") == 0, "flags: --focus does not see full names",
         "%s", got);
  opt.focus = "^std::vector<\\.\\.\\.>::push_back$";
  flags_of (&y, &opt, got);
  check (strcmp (got, "10") == 0, "flags: --focus sees short names", "%s", got);
  opt.focus = NULL;
  char ypath[] = "/tmp/filters-unit-XXXXXX";
  int yfd = mkstemp (ypath);
  const char ybody[] = "leak:push_back(int const&)\nleak:^strdup$\n";
  if (yfd >= 0)
    {
      if (write (yfd, ybody, sizeof ybody - 1) < 0)
        perror ("write");
      close (yfd);
    }
  opt.suppressions = ypath;
  flags_of (&y, &opt, got);
  check (strcmp (got, "22") == 0,
         "flags: suppressions match full names and bare names", "%s", got);
  opt.suppressions = NULL;
  unlink (ypath);
  chains_free (&y);

  /* A suppressions file: function, module and source file names. */
  char path[] = "/tmp/filters-unit-XXXXXX";
  int fd = mkstemp (path);
  const char body[] = "# test\nleak:^make_red$\nleak:libfoo.so\nleak:*/blue.c\n";
  if (fd >= 0)
    {
      if (write (fd, body, sizeof body - 1) < 0)
        perror ("write");
      close (fd);
    }
  opt.suppressions = path;
  flags_of (&x, &opt, got);
  check (strcmp (got, "22220") == 0,
         "flags: a suppressions file matches function, module and file names",
         "%s", got);
  unlink (path);
  opt.suppressions = "/nonexistent/x.supp";
  flags_of (&x, &opt, got);
  check (strncmp (got, "error cannot use the suppressions file: /nonexistent/x.supp: ", 61) == 0,
         "flags: an unreadable file is an error", "%s", got);
  opt.suppressions = NULL;
  chains_free (&x);
}

/* The built-in list: the chains seen at exit of python3 -c pass,
   apt-cache policy bash and a C++ program, and lookalikes it must not
   hide. */
static void
test_default_list (void)
{
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  struct chains x;
  chains_init (&x, &opt);
  const struct
  {
    const char *what;
    const char *const *frames;
    int hidden;
  } t[] = {
    { "stdio buffer", C ("main@app", "puts@libc.so.6", "_IO_file_xsputn@libc.so.6",
                         "_IO_file_overflow@libc.so.6", "_IO_doallocbuf@libc.so.6",
                         "_IO_file_doallocate@libc.so.6"), 1 },
    { "libstdc++'s emergency pool without symbols",
      C ("_dl_start_user@ld-linux-x86-64.so.2", "_dl_init@ld-linux-x86-64.so.2",
         "call_init@ld-linux-x86-64.so.2", "libstdc++.so.6+0xa57ba@libstdc++.so.6"), 1 },
    { "libstdc++'s emergency pool with symbols and inlined frames",
      C ("_dl_init@ld-linux-x86-64.so.2", "call_init@ld-linux-x86-64.so.2",
         "_GLOBAL__sub_I_eh_alloc.cc@libstdc++.so.6",
         "__static_initialization_and_destruction_0@libstdc++.so.6",
         "(anonymous namespace)::pool::pool@libstdc++.so.6"), 1 },
    { "a program's static constructor",
      C ("_dl_init@ld-linux-x86-64.so.2", "call_init@ld-linux-x86-64.so.2",
         "_GLOBAL__sub_I_main@app", "std::vector<int>::push_back@libstdc++.so.6"), 0 },
    { "libstdc++ called by the program", C ("main@app", "std::locale::locale@libstdc++.so.6"), 0 },
    { "the loader's link map", C ("...", "dl_open_worker_begin@ld-linux-x86-64.so.2",
                                  "_dl_map_object@ld-linux-x86-64.so.2",
                                  "_dl_map_object_from_fd@ld-linux-x86-64.so.2",
                                  "_dl_new_object@ld-linux-x86-64.so.2"), 1 },
    { "a library name through strdup", C ("...", "_dl_map_object@ld-linux-x86-64.so.2",
                                          "__strdup@libc.so.6"), 1 },
    { "a module's initializer under dlopen",
      C ("main@app", "dlopen@libc.so.6", "dl_open_worker@ld-linux-x86-64.so.2",
         "call_init@ld-linux-x86-64.so.2", "plugin_init@plugin.so"), 0 },
    { "the program's own strdup", C ("main@app", "__strdup@libc.so.6"), 0 },
    { "locale data", C ("main@app", "setlocale@libc.so.6", "_nl_find_locale@libc.so.6",
                        "_nl_load_locale@libc.so.6", "_nl_intern_locale_data@libc.so.6"), 1 },
    { "an alias clone", C ("...", "_nl_make_l10nflist.localalias@libc.so.6"), 1 },
    { "setlocale's name copy", C ("main@app", "setlocale@libc.so.6", "__strdup@libc.so.6"), 1 },
    { "a program's own setlocale", C ("main@app", "setlocale@app"), 0 },
    { "a static binary's stdio buffer", C ("main@app", "_IO_file_doallocate@app"), 1 },
    { "iconv cache", C ("...", "__wcsmbs_load_conv@libc.so.6",
                        "__gconv_find_transform@libc.so.6", "__gconv_lookup_cache@libc.so.6"), 1 },
    { "time zone", C ("...", "tzset_internal@libc.so.6", "__tzfile_read@libc.so.6",
                      "__tzstring_len@libc.so.6"), 1 },
    { "newlocale's result kept by the caller", C ("main@app", "__duplocale@libc.so.6"), 0 },
    { "the loader's inline calloc with debug information",
      C ("...", "_dl_map_object_from_fd@ld-linux-x86-64.so.2",
         "_dl_new_object@ld-linux-x86-64.so.2", "calloc@ld-linux-x86-64.so.2"), 1 },
    { "a strdup two modules share", C ("...", "_dl_map_object@ld-linux-x86-64.so.2",
         "strdup (ld-linux-x86-64.so.2)@ld-linux-x86-64.so.2",
         "malloc@ld-linux-x86-64.so.2"), 1 },
    { "an inlined helper of the alias table", C ("...", "read_alias_file@libc.so.6",
         "extend_alias_table@libc.so.6"), 1 },
    { "a text domain", C ("main@app", "textdomain@libc.so.6", "__textdomain@libc.so.6",
         "strdup@libc.so.6"), 1 },
    { "a program's own malloc wrapper", C ("main@app", "xmalloc@app", "malloc@app"), 0 },
    { "duplocale's result", C ("main@app", "std::locale::locale@libstdc++.so.6",
         "duplocale@libc.so.6"), 0 },
    { "a chain cut at the leaf", C ("..."), 0 },
    { "a program's function of a listed name in the leaf's caller",
      C ("main@app", "_IO_file_doallocate@app", "make@app"), 0 },
  };
  size_t n = sizeof t / sizeof t[0];
  for (size_t i = 0; i < n; i++)
    chain (&x, t[i].frames);
  char got[256];
  flags_of (&x, &opt, got);
  for (size_t i = 0; i < n; i++)
    {
      char name[160];
      snprintf (name, sizeof name, "built-in list: %s %s", t[i].what,
                t[i].hidden ? "hidden" : "shown");
      check (got[i] == (t[i].hidden ? '4' : '0'), name, "flags %s", got);
    }
  opt.default_suppressions = 0;
  flags_of (&x, &opt, got);
  check (strspn (got, "0") == n, "built-in list: off with --no-default-suppressions",
         "%s", got);
  chains_free (&x);
}

/* hi_analysis_init: a bad expression comes back before any work, the
   file's lines of other kinds are counted, flags are set and freed. */
static void
test_analysis_init (void)
{
  struct hi_node nodes[3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0x1000, 0, 1 } };
  struct hi_site sites[2];
  memset (sites, 0, sizeof sites);
  sites[1].node = 2;
  sites[1].depth = 1;
  sites[1].allocs[0] = 1;
  sites[1].bytes[0] = 8;
  struct hi_thread *thread = calloc (1, sizeof *thread);
  struct hi_model m;
  memset (&m, 0, sizeof m);
  m.nodes = nodes;
  m.n_nodes = 3;
  m.sites = sites;
  m.n_sites = 2;
  m.threads = thread;
  m.n_threads = 1;
  m.bins = thread->bins;
  struct hi_symbolizer *sym = hi_symbolizer_new (&m, NULL);
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  struct hi_analysis a;
  opt.ignore = "[";
  hi_status st = hi_analysis_init (&a, &m, sym, &opt);
  check (st == HI_E_REGEX && a.site_flags == NULL && a.frames == NULL,
         "analysis: a bad expression fails, nothing kept", "status %d", (int) st);
  opt.ignore = NULL;
  char path[] = "/tmp/filters-unit-XXXXXX";
  int fd = mkstemp (path);
  const char body[] = "race:a\nleak:^0x1000$\nthread:b\n";
  if (fd >= 0)
    {
      if (write (fd, body, sizeof body - 1) < 0)
        perror ("write");
      close (fd);
    }
  opt.suppressions = path;
  st = hi_analysis_init (&a, &m, sym, &opt);
  check (st == HI_OK && a.suppress_ignored == 2 && a.site_flags
         && a.site_flags[0] == 0 && a.site_flags[1] == HI_SITE_SUPPRESSED,
         "analysis: flags set, other kinds counted",
         "status %d, ignored %u, flags %d", (int) st, a.suppress_ignored,
         a.site_flags ? a.site_flags[1] : -1);
  if (st == HI_OK)
    hi_analysis_free (&a);
  check (a.site_flags == NULL, "analysis: flags freed", "not NULL");
  unlink (path);
  hi_symbolizer_free (sym);
  free (thread);
}

int
main (void)
{
  test_names ();
  test_names_fuzz ();
  test_templates ();
  test_file_syntax ();
  test_regex_errors ();
  test_flags ();
  test_default_list ();
  test_analysis_init ();
  return failed;
}
