/* suppress.c - suppression files in LeakSanitizer's format (leak:PATTERN
   lines) and its template matching, so users' existing files work. */
#include "util/errors.h"
#include "util/vec.h"
#include "analysis/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
hi_template_match (const char *templ, const char *str)
{
  if (!str || !*str)
    return 0;
  int anchored = *templ == '^';
  templ += anchored;
  int star = 0;
  while (*templ)
    {
      if (*templ == '*')
        {
          templ++;
          star = 1;
          anchored = 0;
          continue;
        }
      /* '$' ends the match: what follows it in the template is never
         looked at (LSan's rule). */
      if (*templ == '$')
        return !*str || star;
      if (!*str)
        return 0;
      size_t len = strcspn (templ, "*$");
      /* The piece's first occurrence, no later one: as LSan does. */
      const char *at = str;
      for (; *at; at++)
        if (strncmp (at, templ, len) == 0)
          break;
      if (!*at || (anchored && at != str))
        return 0;
      str = at + len;
      templ += len;
      anchored = 0;
      star = 0;
    }
  return 1;
}

void
hi_suppressions_init (struct hi_suppressions *s)
{
  memset (s, 0, sizeof *s);
}

void
hi_suppressions_free (struct hi_suppressions *s)
{
  hi_free_strings (s->templ, s->n);
  memset (s, 0, sizeof *s);
}

static int
add_template (struct hi_suppressions *s, const char *p, size_t len)
{
  if (hi_grow32 ((void **) &s->templ, &s->cap, (size_t) s->n + 1,
                 sizeof *s->templ) != 0)
    return 0;
  char *t = malloc (len + 1);
  if (!t)
    return 0;
  memcpy (t, p, len);
  t[len] = '\0';
  s->templ[s->n++] = t;
  return 1;
}

/* A kind of another sanitizer: a word of [a-z0-9_-] before the ':'. */
static int
is_kind (const char *p, size_t len)
{
  if (len == 0)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9')
          || p[i] == '_' || p[i] == '-'))
      return 0;
  return 1;
}

hi_status
hi_suppressions_parse (struct hi_suppressions *s, const char *text,
                       size_t len, const char *source)
{
  char where[256];
  hi_escape (source, where, sizeof where);
  const char *end = text + len;
  unsigned long lineno = 0;
  for (const char *line = text; line < end;)
    {
      const char *nl = memchr (line, '\n', (size_t) (end - line));
      const char *stop = nl ? nl : end;
      const char *next = nl ? nl + 1 : end;
      lineno++;
      while (line < stop && (*line == ' ' || *line == '\t'))
        line++;
      while (stop > line
             && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r'))
        stop--;
      if (line == stop || *line == '#')
        {
          line = next;
          continue;
        }
      const char *colon = memchr (line, ':', (size_t) (stop - line));
      size_t kind = colon ? (size_t) (colon - line) : 0;
      if (colon && kind == 4 && memcmp (line, "leak", 4) == 0)
        {
          if (memchr (colon + 1, '\0', (size_t) (stop - colon - 1)))
            return hi_fail_text (HI_E_SUPPRESSIONS,
                                 "%s:%lu: a NUL byte in the pattern",
                                 where, lineno);
          if (!add_template (s, colon + 1, (size_t) (stop - colon - 1)))
            return HI_E_NOMEM;
        }
      else if (colon && is_kind (line, kind))
        s->ignored++;
      else
        return hi_fail_text (HI_E_SUPPRESSIONS,
                             "%s:%lu: not a leak:PATTERN line", where,
                             lineno);
      line = next;
    }
  return HI_OK;
}

hi_status
hi_suppressions_load (struct hi_suppressions *s, const char *path)
{
  char where[256];
  hi_escape (path, where, sizeof where);
  int fd = hi_open_regular (path);
  if (fd < 0)
    return hi_fail_text (HI_E_SUPPRESSIONS, "%s: %s", where,
                         errno == EINVAL ? "not a regular file"
                         : strerror (errno));
  struct stat st;
  enum { MAX = 16 << 20 };
  if (fstat (fd, &st) != 0)
    {
      int err = errno;
      close (fd);
      return hi_fail_text (HI_E_SUPPRESSIONS, "%s: %s", where,
                           strerror (err));
    }
  if (st.st_size > MAX)
    {
      close (fd);
      return hi_fail_text (HI_E_SUPPRESSIONS, "%s: larger than 16 MiB",
                           where);
    }
  size_t size = (size_t) st.st_size, got = 0;
  char *text = malloc (size + 1);
  if (!text)
    {
      close (fd);
      return HI_E_NOMEM;
    }
  /* Read what the file holds now, even if it changed since fstat. */
  while (got < size)
    {
      ssize_t r = read (fd, text + got, size - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          int err = errno;
          close (fd);
          free (text);
          return hi_fail_text (HI_E_SUPPRESSIONS, "%s: %s", where,
                               strerror (err));
        }
      if (r == 0)
        break;
      got += (size_t) r;
    }
  close (fd);
  hi_status st2 = hi_suppressions_parse (s, text, got, path);
  free (text);
  return st2;
}

int
hi_suppressions_match (const struct hi_suppressions *s, const char *str)
{
  if (!str)
    return 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (hi_template_match (s->templ[i], str))
      return 1;
  return 0;
}
