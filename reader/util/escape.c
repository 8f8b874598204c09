/* escape.c - names and paths read from an input, made safe to print:
   a terminal must never receive control sequences chosen by whoever
   wrote a core or a snapshot. */
#include "hi-reader.h"

#include <string.h>

void
hi_escape (const char *in, char *out, size_t size)
{
  static const char hex[] = "0123456789abcdef";
  size_t at = 0;
  if (size == 0)
    return;
  for (const unsigned char *p = (const unsigned char *) in; *p; p++)
    {
      /* C0 controls and DEL, and the C1 controls as UTF-8 encodes them
         (U+0080..U+009F, which some terminals obey like ESC [). */
      int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
      if (*p < 0x20 || *p == 0x7f || c1)
        {
          int n = c1 ? 2 : 1;
          if (at + 4 * (size_t) n >= size)
            break;
          for (int k = 0; k < n; k++)
            {
              out[at++] = '\\';
              out[at++] = 'x';
              out[at++] = hex[p[k] >> 4];
              out[at++] = hex[p[k] & 15];
            }
          p += n - 1;
          continue;
        }
      if (at + 1 >= size)
        break;
      out[at++] = (char) *p;
    }
  out[at] = '\0';
}
