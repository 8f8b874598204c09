/* text.c - numbers and strings as the reports write them: mprof's
   two-character percentages, human units, JSON strings, and the table
   names of the registry for messages. */
#include "util/text.h"
#include "hi-reader.h"

#include <inttypes.h>
#include <pthread.h>
#include <string.h>

/* floor (PART * K / WHOLE) for PART < WHOLE, without overflow. */
static uint64_t
scaled (uint64_t part, uint64_t whole, unsigned k)
{
  if (part <= UINT64_MAX / k)
    return part * k / whole;
  uint64_t q = 0, r = 0;      /* K additions of PART, modulo WHOLE */
  for (unsigned i = 0; i < k; i++)
    if (part >= whole - r)
      q++, r = part - (whole - r);
    else
      r += part;
  return q;
}

void
hi_pct2 (char *out, uint64_t part, uint64_t whole)
{
  if (part == 0 || whole == 0)
    strcpy (out, "  ");
  else if (part >= whole)
    strcpy (out, "**");
  else
    {
      uint64_t pct = scaled (part, whole, 100);
      if (pct == 0)
        strcpy (out, " .");
      else
        snprintf (out, 3, "%2u", (unsigned) pct);
    }
}

void
hi_human_bytes (uint64_t bytes, char *out, size_t size)
{
  static const char units[] = "KMGTPE";
  if (bytes < 1024)
    {
      snprintf (out, size, bytes ? "%" PRIu64 "B" : "0", bytes);
      return;
    }
  /* Tenths of the unit, rounded half up, carried to the next unit when
     it reaches 1024.0. */
  int u = 0;
  uint64_t scale = 1024;
  while (u < 5 && bytes / scale >= 1024)
    scale *= 1024, u++;
  uint64_t whole = bytes / scale, rest = bytes % scale;
  uint64_t tenths = (rest * 10 + scale / 2) / scale;
  if (rest > UINT64_MAX / 10)          /* scale of 2^60: no overflow */
    tenths = (rest / 16 * 10 + scale / 32) / (scale / 16);
  if (tenths == 10)
    whole++, tenths = 0;
  if (whole == 1024 && u < 5)
    whole = 1, tenths = 0, u++;
  snprintf (out, size, "%" PRIu64 ".%" PRIu64 "%c", whole, tenths, units[u]);
}

/* Length of the well-formed UTF-8 sequence at S (RFC 3629: no
   overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static int
utf8_length (const unsigned char *s)
{
  unsigned char c = s[0];
  int n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2
          : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f)
      || (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
    return 0;
  return n;
}

void
hi_json_string (FILE *f, const char *s)
{
  fputc ('"', f);
  /* Names and paths come from the input and from files: a byte that is
     not UTF-8 becomes U+FFFD, so the document stays valid JSON. */
  const unsigned char *p = (const unsigned char *) (s ? s : "");
  while (*p)
    {
      unsigned char c = *p;
      int n = utf8_length (p);
      if (c == '"' || c == '\\')
        fprintf (f, "\\%c", c);
      else if (c < 0x20 || c == 0x7f)
        fprintf (f, "\\u%04x", c);
      else if (n == 0)
        fputs ("\\ufffd", f), n = 1;
      else
        fwrite (p, 1, (size_t) n, f);
      p += n > 0 ? n : 1;
    }
  fputc ('"', f);
}

void
hi_join_names (const char *const *names, size_t n, const char *last,
               char *out, size_t size)
{
  size_t at = 0;
  if (size)
    out[0] = '\0';
  for (size_t i = 0; i < n && at < size; i++)
    at += (size_t) snprintf (out + at, size - at, "%s%s",
                             i == 0 ? "" : i + 1 == n ? last : ", ",
                             names[i]);
}

static char table_names[256];

static void
join_table_names (void)
{
#define HI_X_NAME(id, name, build, names) name,
  static const char *const names[] = { HI_TABLES (HI_X_NAME) };
#undef HI_X_NAME
  hi_join_names (names, sizeof names / sizeof *names, ", ", table_names,
                 sizeof table_names);
}

const char *
hi_table_names (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, join_table_names);
  return table_names;
}
