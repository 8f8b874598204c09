/* procinfo.c - the process as the monitor recorded it (format 3): the
   command line made safe to print, and how long the process had run
   when the data was taken.  Nothing read here is trusted: lengths are
   bounded, the arguments' NULs checked, times kept in range. */
#include "model/model.h"
#include "hi-reader.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A time past 2262 (INT64_MAX ns) is no clock's reading. */
#define TIME_MAX ((uint64_t) INT64_MAX)

/* The length of the valid UTF-8 sequence of 2 to 4 bytes at P (of N):
   no overlong form, no surrogate, nothing past U+10FFFF; 0 if none. */
static size_t
utf8_at (const unsigned char *p, size_t n)
{
  size_t len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2
               : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
  if (len == 0 || len > n)
    return 0;
  unsigned lo = 0x80, hi = 0xbf;      /* the second byte's range */
  if (p[0] == 0xe0)
    lo = 0xa0;
  else if (p[0] == 0xed)
    hi = 0x9f;
  else if (p[0] == 0xf0)
    lo = 0x90;
  else if (p[0] == 0xf4)
    hi = 0x8f;
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (size_t k = 2; k < len; k++)
    if (p[k] < 0x80 || p[k] > 0xbf)
      return 0;
  return len;
}

/* What starts at P (of N bytes): *LEN bytes that are shown as they are
   (0), or as \xHH each (1): C0 controls and DEL, the C1 controls as
   UTF-8 encodes them (what hi_escape escapes), and bytes that are not
   UTF-8, so the text is valid UTF-8 (JSON needs it) and safe on a
   terminal. */
static int
escaped_at (const unsigned char *p, size_t n, size_t *len)
{
  *len = 1;
  if (p[0] < 0x20 || p[0] == 0x7f)
    return 1;
  if (p[0] < 0x80)
    return 0;
  size_t u = utf8_at (p, n);
  if (u == 0)
    return 1;
  *len = u;
  return p[0] == 0xc2 && p[1] <= 0x9f;
}

/* ASCII bytes the shell takes as part of a word. */
static int
plain (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c >= '0' && c <= '9')
         || (c != '\0' && strchr ("_@%+=:,./-", c) != NULL);
}

/* Argument ARG of N bytes at O: as it is when every byte is plain or
   UTF-8; else in '...', or in $'...' (bash, zsh, ksh) when some bytes
   must be escaped. */
static char *
put_arg (char *o, const unsigned char *arg, size_t n)
{
  static const char hex[] = "0123456789abcdef";
  int escapes = 0, all_plain = n > 0;
  for (size_t i = 0, len; i < n; i += len)
    {
      escapes |= escaped_at (arg + i, n - i, &len);
      all_plain &= len > 1 || plain (arg[i]);
    }
  if (all_plain && !escapes)
    {
      memcpy (o, arg, n);
      return o + n;
    }
  if (!escapes)
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
  *o++ = '$';
  *o++ = '\'';
  for (size_t i = 0, len; i < n; i += len)
    if (escaped_at (arg + i, n - i, &len))
      for (size_t k = 0; k < len; k++)
        {
          *o++ = '\\';
          *o++ = 'x';
          *o++ = hex[arg[i + k] >> 4];
          *o++ = hex[arg[i + k] & 15];
        }
    else if (arg[i] == '\\' || arg[i] == '\'')
      {
        *o++ = '\\';
        *o++ = (char) arg[i];
      }
    else
      {
        memcpy (o, arg + i, len);
        o += len;
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

/* An attached monitor's periods (format 6; before, one period: the
   run time): how long it was attached, whether it is detached and
   since when, as of AT_RT, AT_MONO (the read's clocks, 0 if not
   known). */
static void
periods (struct hi_model *m, const struct hi_process *p, uint64_t at_rt,
         uint64_t at_mono)
{
  m->attached_ns = m->run_ns;
  if (m->root.version < 6)
    return;
  uint64_t sum = in_range (m, p->attached_ns);
  uint64_t period = in_range (m, p->period_monotonic_ns);
  if (p->flags & HI_PROCESS_DETACHED)
    {
      uint64_t d_rt = in_range (m, p->detached_realtime_ns);
      uint64_t d_mono = in_range (m, p->detached_monotonic_ns);
      m->detached = 1;
      m->attached_ns = sum;
      if (d_mono && at_mono && at_mono >= d_mono)
        m->detached_ns = at_mono - d_mono;
      else if (d_rt && at_rt && at_rt >= d_rt)
        m->detached_ns = at_rt - d_rt;
      return;
    }
  /* Attached now: the periods that ended, and this one so far. */
  m->attached_ns = 0;
  if (period && at_mono && at_mono >= period && sum <= TIME_MAX)
    m->attached_ns = sum + (at_mono - period);
  else if (!sum)
    m->attached_ns = m->run_ns;   /* one period: the run time (a core) */
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
      m->attached = (p->flags & HI_PROCESS_ATTACHED) != 0;
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
  if (p && m->attached)
    periods (m, p, at_rt, at_mono);
  return HI_OK;
}

int
hi_target_monitor_detached (const struct hi_target *t)
{
  uint64_t addr;
  struct hi_root r;
  memset (&r, 0, sizeof r);
  if (t->ops->lookup_symbol (t->ctx, "heapinspect_root", &addr) != 0
      || t->ops->read_memory (t->ctx, addr, &r, HI_ROOT_SIZE_V2) != 0
      || r.magic != HI_ROOT_MAGIC)
    return -1;
  if (r.version < 6 || r.version > HI_FORMAT_VERSION || !r.ready)
    return 0;
  if (r.root_size != sizeof r
      || t->ops->read_memory (t->ctx, addr, &r, sizeof r) != 0)
    return -1;
  uint32_t n = r.n_arenas < HI_MAX_ARENAS + HI_MAX_MORE_ARENAS
               ? r.n_arenas : HI_MAX_ARENAS + HI_MAX_MORE_ARENAS;
  for (uint32_t i = 0; i < n; i++)
    {
      const struct hi_arena_desc *a = hi_model_arena_desc (&r, i);
      uint32_t flags;
      if (a->kind != HI_ARENA_PROCESS || a->count != 1
          || a->entry_size != sizeof (struct hi_process))
        continue;
      if (t->ops->read_memory (t->ctx,
                               a->addr + offsetof (struct hi_process, flags),
                               &flags, sizeof flags) != 0)
        return -1;
      return (flags & (HI_PROCESS_ATTACHED | HI_PROCESS_DETACHED))
             == (HI_PROCESS_ATTACHED | HI_PROCESS_DETACHED);
    }
  return 0;
}
