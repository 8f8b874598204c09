/* procinfo.c - the process as the monitor recorded it (format 3): the
   command line made safe to print, and how long the process had run
   when the data was taken.  Nothing read here is trusted: lengths are
   bounded, the arguments' NULs checked, times kept in range. */
#include "hi-reader.h"

#include <stdlib.h>
#include <string.h>

/* A time past 2262 (INT64_MAX ns) is no clock's reading. */
#define TIME_MAX ((uint64_t) INT64_MAX)

/* C0 controls, DEL, and the C1 controls as UTF-8 encodes them: what
   hi_escape escapes.  How many bytes at P (of N) form one; 0 if none. */
static size_t
control_at (const unsigned char *p, size_t n)
{
  if (p[0] < 0x20 || p[0] == 0x7f)
    return 1;
  return n >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f ? 2 : 0;
}

/* Bytes the shell takes as part of a word, quoted or not.  Bytes of
   UTF-8 (>= 0x80) are, once C1 controls are set apart. */
static int
plain (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c >= '0' && c <= '9') || c >= 0x80
         || (c != '\0' && strchr ("_@%+=:,./-", c) != NULL);
}

/* Argument ARG of N bytes, shell-quoted where needed, at O. */
static char *
put_arg (char *o, const unsigned char *arg, size_t n)
{
  static const char hex[] = "0123456789abcdef";
  int controls = 0, all_plain = n > 0;
  for (size_t i = 0; i < n; i++)
    {
      controls |= control_at (arg + i, n - i) != 0;
      all_plain &= plain (arg[i]);
    }
  if (all_plain && !controls)
    {
      memcpy (o, arg, n);
      return o + n;
    }
  if (!controls)
    {
      /* '...', each ' as '\'' */
      *o++ = '\'';
      for (size_t i = 0; i < n; i++)
        if (arg[i] == '\'')
          {
            memcpy (o, "'\\''", 4);
            o += 4;
          }
        else
          *o++ = (char) arg[i];
      *o++ = '\'';
      return o;
    }
  /* $'...' (bash, zsh, ksh): controls as \xHH, never raw on a terminal. */
  *o++ = '$';
  *o++ = '\'';
  for (size_t i = 0; i < n; i++)
    {
      size_t c = control_at (arg + i, n - i);
      for (size_t k = 0; k < c; k++)
        {
          *o++ = '\\';
          *o++ = 'x';
          *o++ = hex[arg[i + k] >> 4];
          *o++ = hex[arg[i + k] & 15];
        }
      if (c)
        i += c - 1;
      else if (arg[i] == '\\' || arg[i] == '\'')
        {
          *o++ = '\\';
          *o++ = (char) arg[i];
        }
      else
        *o++ = (char) arg[i];
    }
  *o++ = '\'';
  return o;
}

char *
hi_command_text (const char *cmdline, size_t len, int cut)
{
  if (len == 0 || len > HI_CMDLINE_MAX)
    return NULL;
  /* Per byte at most 4 out (a byte of a C1 pair as \xHH, a ' as '\''),
     per argument 4 more (quotes, space): at most LEN + 1 arguments;
     then the mark of a cut line and the NUL. */
  char *text = malloc (8 * len + 16);
  if (!text)
    return NULL;
  const unsigned char *p = (const unsigned char *) cmdline;
  char *o = text;
  /* Each NUL separates two arguments: "a\0" is "a" and "". */
  for (size_t at = 0;;)
    {
      const unsigned char *nul = memchr (p + at, '\0', len - at);
      size_t n = nul ? (size_t) (nul - (p + at)) : len - at;
      if (o != text)
        *o++ = ' ';
      o = put_arg (o, p + at, n);
      if (!nul)
        break;
      at += n + 1;
    }
  if (cut)
    {
      memcpy (o, " ...", 4);
      o += 4;
    }
  *o = '\0';
  return text;
}

static void
damage (struct hi_model *m)
{
  m->damage.process++;
  m->damaged++;
}

/* A clock reading from the input: 0 (not recorded) if out of range. */
static uint64_t
in_range (struct hi_model *m, uint64_t ns)
{
  if (ns <= TIME_MAX)
    return ns;
  damage (m);
  return 0;
}

int
hi_target_time (const struct hi_target *t, uint64_t *realtime_ns,
                uint64_t *monotonic_ns)
{
  *realtime_ns = *monotonic_ns = 0;
  if (hi_target_process_time (t, realtime_ns, monotonic_ns) == 0)
    return HI_READ_LIVE;
  if (hi_target_core_time (t, realtime_ns) == 0)
    return HI_READ_CORE_FILE;
  return HI_READ_NONE;
}

hi_status
hi_procinfo_set (struct hi_model *m, const struct hi_process *p,
                 const struct hi_target *t)
{
  uint64_t start_rt = 0, start_mono = 0, at_rt = 0, at_mono = 0;
  if (p)
    {
      start_rt = in_range (m, p->start_realtime_ns);
      start_mono = in_range (m, p->start_monotonic_ns);
      int cut = (p->flags & HI_PROCESS_CMDLINE_CUT) != 0;
      if (p->cmdline_len > HI_CMDLINE_MAX)
        damage (m);
      else if (p->cmdline_len > 0)
        {
          /* Each argument ends in a NUL unless the line was cut. */
          if (!cut && p->cmdline[p->cmdline_len - 1] != '\0')
            {
              damage (m);
              cut = 1;
            }
          size_t len = p->cmdline_len;
          if (p->cmdline[len - 1] == '\0')
            len--;
          m->command = hi_command_text (p->cmdline, len, cut);
          if (!m->command && len > 0)
            return HI_E_NOMEM;
          m->command_cut = cut;
        }
    }
  if (m->root.snapshot_realtime_ns || m->root.snapshot_monotonic_ns)
    {
      m->read_source = HI_READ_SNAPSHOT;
      at_rt = in_range (m, m->root.snapshot_realtime_ns);
      at_mono = in_range (m, m->root.snapshot_monotonic_ns);
    }
  else
    m->read_source = hi_target_time (t, &at_rt, &at_mono);
  m->start_realtime_ns = start_rt;
  m->read_ns = at_rt;
  /* The monotonic clock when both ends have it (the process's own clock
     for a snapshot, the same machine's for a live process): exact, and
     blind to the wall clock being set.  A snapshot taken before its
     process started is damage. */
  if (start_mono && at_mono)
    {
      if (at_mono >= start_mono)
        m->run_ns = at_mono - start_mono;
      else if (m->read_source == HI_READ_SNAPSHOT)
        damage (m);
    }
  else if (start_rt && at_rt && at_rt >= start_rt)
    m->run_ns = at_rt - start_rt;
  return HI_OK;
}
