/* output-name.c - bounds-checked expansion of the HEAPINSPECT_OUTPUT
   pattern (%p, %%), one copy for the monitor and the CLI. */
#include "common/output-name.h"

int
hi_expand_output (char *dst, size_t cap, const char *pattern, long pid)
{
  if (!dst || cap == 0)
    return -1;
  dst[0] = '\0';
  if (!pattern || !*pattern || cap > (size_t) 1 << 30)
    return -1;
  size_t n = 0;
  for (const char *t = pattern; *t; t++)
    {
      char digits[24];
      const char *add = t;
      size_t len = 1;
      if (*t == '%')
        {
          t++;
          if (*t == '%')
            add = t;
          else if (*t == 'p')
            {
              /* Digits backwards; the sign last.  Negating as unsigned
                 keeps LONG_MIN defined. */
              unsigned long v = pid < 0 ? 0ul - (unsigned long) pid
                                        : (unsigned long) pid;
              size_t i = sizeof digits;
              do
                digits[--i] = (char) ('0' + v % 10);
              while ((v /= 10) != 0);
              if (pid < 0)
                digits[--i] = '-';
              add = digits + i;
              len = sizeof digits - i;
            }
          else
            {
              dst[0] = '\0';
              return -1;
            }
        }
      if (len >= cap - n)   /* room for these bytes and the NUL */
        {
          dst[0] = '\0';
          return -1;
        }
      for (size_t i = 0; i < len; i++)
        dst[n++] = add[i];
    }
  dst[n] = '\0';
  return (int) n;
}
