/* filter.h - which sites the tables leave out: --focus, --ignore and
   --module (every table), suppressions in LeakSanitizer's format and the
   built-in list of the C and C++ libraries' one-time buffers (the leak
   table, which counts them).  The result is A->site_flags. */
#ifndef HI_FILTER_H
#define HI_FILTER_H

#include "analysis/analysis.h"

/* LeakSanitizer's matching of one suppression template against STR, as
   sanitizer_common's TemplateMatch does it: '*' matches any run of
   characters, '^' at the start anchors the template to STR's start, '$'
   anchors it to STR's end; otherwise a substring match.  Like LSan, the
   pieces between '*'s are found at their first occurrence, without
   backtracking ("a*b$" does not match "abab"), an empty STR matches
   nothing and an empty template everything else.  1 if it matches. */
int hi_template_match (const char *templ, const char *str);

/* Suppressions read from a file of `leak:PATTERN` lines. */
struct hi_suppressions
{
  char **templ;              /* the patterns (owned) */
  uint32_t n, cap;
  uint32_t ignored;          /* lines of other sanitizers' kinds */
};

void hi_suppressions_init (struct hi_suppressions *s);
void hi_suppressions_free (struct hi_suppressions *s);
/* Add the suppressions of TEXT (LEN bytes, from the file named SOURCE in
   messages) to S.  As LeakSanitizer reads them: one per line, leading
   blanks and trailing blanks and CRs left out, empty lines and lines
   starting with '#' skipped, `leak:PATTERN` kept.  Lines of the other
   sanitizers' kinds (`race:`, `called_from_lib:`, `interceptor_via_fun:`,
   UBSan's check names, ...: a word of lower-case letters, digits, '_'
   and '-' before the ':') are skipped and counted in S->ignored, so a
   file shared with them works; anything else is HI_E_SUPPRESSIONS with
   "SOURCE:LINE: ..." as the detail (LeakSanitizer refuses it too).
   HI_E_NOMEM if out of memory. */
hi_status hi_suppressions_parse (struct hi_suppressions *s, const char *text,
                                 size_t len, const char *source);
/* hi_suppressions_parse of the file PATH (at most 16 MiB);
   HI_E_SUPPRESSIONS with "PATH: reason" when it cannot be read. */
hi_status hi_suppressions_load (struct hi_suppressions *s, const char *path);
/* 1 if one of S's patterns matches STR (NULL matches nothing). */
int hi_suppressions_match (const struct hi_suppressions *s, const char *str);

/* 1 if site S of A holds one of the C library's or libstdc++'s one-time
   buffers (stdio buffers, locale and iconv data, time zone strings, the
   dynamic loader's records of loaded libraries, libstdc++'s emergency
   exception pool): the built-in list, matched on the chain's allocating
   end (suppress-default.c says which functions, and why).  CACHE: NULL,
   or a->n_frames zeroed bytes the calls for one analysis share (what
   the rules found of each frame). */
int hi_default_suppressed (const struct hi_analysis *a, uint64_t s,
                           uint8_t *cache);

/* Compiled filters and suppressions of a set of options. */
struct hi_filters;

/* Compile OPT's --focus and --ignore (POSIX extended regular
   expressions) and read its --suppressions file into *OUT (free with
   hi_filters_free; NULL when OPT asks for nothing, not even the built-in
   list).  HI_E_REGEX or HI_E_SUPPRESSIONS, with a one-line detail for
   hi_strerror, when one is wrong; HI_E_NOMEM. */
hi_status hi_filters_new (const struct hi_options *opt,
                          struct hi_filters **out);
void hi_filters_free (struct hi_filters *f);
/* Lines of other sanitizers' kinds skipped in F's suppressions file. */
uint32_t hi_filters_ignored (const struct hi_filters *f);

/* Set A->site_flags from F (NULL: none): a site is HI_SITE_FILTERED when
   --focus matches none of its frames' function names (as shown: short
   C++ names unless --long-names, without the " (module)" of names two
   modules share), --ignore matches one, or --module names none of its
   frames' modules; HI_SITE_SUPPRESSED when a pattern of the file matches
   one of its frames' function (as shown, or its full demangled name),
   module or source file name; HI_SITE_SUPPRESSED_DEFAULT
   when the built-in list holds it.  The frame of a chain cut at the
   depth cap (<deeper>) is never matched; a site that never allocated
   (A->sum all zero: the unused site 0, sites the model dropped) gets no
   flag, so the tables' counts of chains left out agree.  HI_OK or
   HI_E_NOMEM. */
hi_status hi_filters_apply (const struct hi_filters *f, struct hi_analysis *a);

/* 1 if the module base name MOD is the module NAME names: NAME's base
   name equal to MOD, or MOD's start up to a '.' (libc and libc.so name
   libc.so.6). */
int hi_module_named (const char *name, const char *mod);

#endif
