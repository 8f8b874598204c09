/* unit-rows.h - finding a row in the text emitter's output, for the C
   unit tests of the tables (header only, as unit-check.h). */
#ifndef HI_UNIT_ROWS_H
#define HI_UNIT_ROWS_H

#include <regex.h>
#include <string.h>

/* Whether TEXT has a whole line of the N cells CELLS (literal strings)
   in order, two spaces or more apart: the text emitter aligns columns
   by content width, so the cells, not the widths, are what a row is. */
static int __attribute__ ((unused))
has_row (const char *text, int n, const char *const *cells)
{
  if (!text)
    return 0;
  char re[1024] = "^ *";
  size_t len = strlen (re);
  for (int i = 0; i < n; i++)
    {
      if (i > 0 && len + 5 < sizeof re)
        memcpy (re + len, " {2,}", 6), len += 5;
      for (const char *c = cells[i]; *c && len + 3 < sizeof re; c++)
        {
          if (strchr ("\\^$.[]|()*+?{}", *c))
            re[len++] = '\\';
          re[len++] = *c;
        }
      re[len] = 0;
    }
  if (len + 3 >= sizeof re)
    return 0;
  strcat (re, " *$");
  regex_t rx;
  if (regcomp (&rx, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0)
    return 0;
  int found = regexec (&rx, text, 0, NULL, 0) == 0;
  regfree (&rx);
  return found;
}

#define HAS_ROW(text, ...) \
  has_row (text, (int) (sizeof ((const char *const[]) { __VA_ARGS__ }) \
                        / sizeof (const char *)), \
           (const char *const[]) { __VA_ARGS__ })

#endif
