/* options.c - the report options' one parser, shared by heapinspect(1)
   and the heap commands in gdb, so both accept, refuse and mean the same
   words. */
#include "hi-reader.h"
#include "report/rmodel.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct
{
  const char *name;
  int takes_value;
} table[] = {
#define HI_X_ROW(id, name, value) { name, value },
  HI_REPORT_OPTIONS (HI_X_ROW)
#undef HI_X_ROW
};

const char *
hi_option_name (int id)
{
  return id >= 0 && id < HI_N_REPORT_OPTIONS ? table[id].name : NULL;
}

int
hi_option_find (const char *name, size_t len, int *takes_value)
{
  int found = -1;
  for (int i = 0; i < HI_N_REPORT_OPTIONS; i++)
    {
      if (strncmp (table[i].name, name, len) != 0)
        continue;
      if (table[i].name[len] == '\0')
        {
          found = i;             /* the full name wins over prefixes */
          break;
        }
      found = found == -1 ? i : -2;
    }
  if (len == 0)
    found = -1;
  if (found >= 0 && takes_value)
    *takes_value = table[found].takes_value;
  return found;
}

/* Say in ERR what --NAME takes, quoting VALUE (made printable, cut). */
static int
refuse (char *err, size_t errsize, const char *name, const char *what,
        const char *value)
{
  char shown[80];
  hi_escape (value ? value : "", shown, sizeof shown);
  if (value && strlen (value) > 64)
    strcpy (shown + 61, "...");
  if (value && *value)
    snprintf (err, errsize, "--%s takes %s, not '%s'", name, what, shown);
  else
    snprintf (err, errsize, "--%s needs %s", name, what);
  return -1;
}

/* S as a decimal number of at most MAX: 0, or -1 for anything else. */
static int
parse_decimal (const char *s, uint64_t max, uint64_t *out)
{
  uint64_t v = 0;
  if (!*s)
    return -1;
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9')
        return -1;
      v = v * 10 + (uint64_t) (*s - '0');
      if (v > max)
        return -1;
    }
  *out = v;
  return 0;
}

/* S as a percentage from 0 to 100 with at most 3 decimals ("0.5", "1",
   "2.25", ".5", an optional "%" after), in thousandths of a percent. */
static int
parse_percent (const char *s, int32_t *out)
{
  uint64_t whole = 0, frac = 0;
  int digits = 0, decimals = 0;
  for (; *s >= '0' && *s <= '9'; s++, digits++)
    if ((whole = whole * 10 + (uint64_t) (*s - '0')) > 100)
      return -1;
  if (*s == '.')
    {
      for (s++; *s >= '0' && *s <= '9'; s++, decimals++)
        if (decimals < 3)
          frac = frac * 10 + (uint64_t) (*s - '0');
        else
          return -1;
      if (decimals == 0)
        return -1;              /* "5." */
    }
  if (*s == '%')
    s++;
  if (*s || digits + decimals == 0)
    return -1;
  for (int d = decimals; d < 3; d++)
    frac *= 10;
  uint64_t v = whole * 1000 + frac;
  if (v > 100000)
    return -1;
  *out = (int32_t) v;
  return 0;
}

int
hi_option_set (struct hi_options *o, const char *name, const char *value,
               char *err, size_t errsize)
{
  int takes_value;
  int id = hi_option_find (name, strlen (name), &takes_value);
  if (id < 0 || strcmp (table[id].name, name) != 0)
    {
      snprintf (err, errsize, "unknown option '--%.64s'", name);
      return -1;
    }
  if (!takes_value && value)
    {
      snprintf (err, errsize, "--%s takes no value", name);
      return -1;
    }
  if (takes_value && !value)
    {
      snprintf (err, errsize, "--%s needs a value", name);
      return -1;
    }
  uint64_t n;
  switch ((enum hi_report_option) id)
    {
    case HI_ROPT_DEPTH:
      if (parse_decimal (value, HI_OPT_DEPTH_MAX, &n) != 0 || n < 1)
        return refuse (err, errsize, name, "a number from 1 to 10000", value);
      o->depth = (int) n;
      break;
    case HI_ROPT_OFFSETS:
      o->offsets = 1;
      break;
    case HI_ROPT_TERSE:
      o->verbosity = HI_TERSE;
      break;
    case HI_ROPT_VERBOSE:
      o->verbosity = HI_VERBOSE;
      break;
    case HI_ROPT_FORMAT:
      {
        static const char *const formats[] = {
#define HI_X_NAME(id, name, emit) [HI_##id] = name,
          HI_FORMATS (HI_X_NAME)
#undef HI_X_NAME
        };
        size_t i = 0;
        while (i < sizeof formats / sizeof *formats
               && strcmp (value, formats[i]) != 0)
          i++;
        if (i == sizeof formats / sizeof *formats)
          {
            char list[128];
            hi_join_names (formats, sizeof formats / sizeof *formats, " or ",
                           list, sizeof list);
            return refuse (err, errsize, name, list, value);
          }
        o->format = (enum hi_format) i;
      }
      break;
    case HI_ROPT_WEIGHT:
      {
        enum hi_weight w = HI_WEIGHT_INUSE_SPACE;
        while (w <= HI_WEIGHT_LAST
               && strcmp (value, hi_weight_name (w)) != 0)
          w++;
        if (w > HI_WEIGHT_LAST)
          return refuse (err, errsize, name, "inuse_space, inuse_objects, "
                         "alloc_space, alloc_objects, peak_space or "
                         "peak_objects", value);
        o->weight = w;
      }
      break;
    case HI_ROPT_THRESHOLD:
      if (parse_percent (value, &o->threshold) != 0)
        return refuse (err, errsize, name, "a percentage from 0 to 100 with "
                       "at most 3 decimals (0.5)", value);
      break;
    case HI_ROPT_LIMIT:
      /* The largest value means "not given" (HI_OPT_LIMIT_AUTO). */
      if (parse_decimal (value, HI_OPT_LIMIT_AUTO - 1, &n) != 0)
        return refuse (err, errsize, name, "a number of rows (0: no limit)",
                       value);
      o->limit = (uint32_t) n;
      break;
    case HI_ROPT_BYTES:
      o->exact_bytes = 1;
      break;
    case HI_ROPT_LONG_NAMES:
      o->long_names = 1;
      break;
    case HI_ROPT_NO_LINES:
      o->lines = 0;
      break;
    case HI_ROPT_FOCUS:
    case HI_ROPT_IGNORE:
      if (!*value)
        return refuse (err, errsize, name, "a regular expression", value);
      *(id == HI_ROPT_FOCUS ? &o->focus : &o->ignore) = value;
      break;
    case HI_ROPT_MODULE:
      if (!*value)
        return refuse (err, errsize, name, "a module name (libc.so.6)", value);
      o->module = value;
      break;
    case HI_ROPT_SUPPRESSIONS:
      if (!*value)
        return refuse (err, errsize, name, "a file name", value);
      o->suppressions = value;
      break;
    case HI_ROPT_NO_DEFAULT_SUPPRESSIONS:
      o->default_suppressions = 0;
      break;
    case HI_N_REPORT_OPTIONS:
      break;
    }
  return 0;
}

int
hi_own_report_check (const struct hi_options *o, const char *what,
                     char *err, size_t errsize)
{
  if (o->tables_given)
    snprintf (err, errsize, "%s prints its own tables: -t does not go with "
              "it", what);
  else if (o->format != HI_TEXT && o->format != HI_JSON)
    snprintf (err, errsize, "%s writes text or JSON: --format=text or "
              "--format=json", what);
  else
    return 0;
  return -1;
}

int
hi_unquote (char *word)
{
  char *out = word;
  for (const char *p = word; *p; p++)
    {
      if (*p == '\'')
        {
          const char *end = strchr (p + 1, '\'');
          if (!end)
            return -1;
          memmove (out, p + 1, (size_t) (end - p - 1));
          out += end - p - 1;
          p = end;
        }
      else if (*p == '"')
        {
          for (p++; *p != '"'; p++)
            {
              if (!*p)
                return -1;
              if (*p == '\\' && p[1] && strchr ("\\\"$`", p[1]))
                p++;
              *out++ = *p;
            }
        }
      else if (*p == '\\')
        {
          if (!*++p)
            return -2;
          *out++ = *p;
        }
      else
        *out++ = *p;
    }
  *out = '\0';
  return 0;
}
