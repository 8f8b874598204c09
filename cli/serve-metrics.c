/* serve-metrics.c - /metrics of `heapinspect serve`: every served
   process read without stopping it (the --no-stop read), its `stat`
   figures (hi_stat_compute) and its top chains by live bytes (the
   folded profile, hi_report), in Prometheus' text exposition format
   0.0.4.  Metric families are written whole, one after another, as the
   format wants: the processes are read first, then written.

   The chain label: the innermost CHAIN_FRAMES frames of a chain that
   are not the allocator's own (malloc, operator new, strdup, ...),
   innermost first, joined by '<' ("leaf<caller<caller's caller"), cut
   at CHAIN_LABEL_MAX bytes on a character boundary; chains that give
   the same label are summed.  TOP_CHAINS of them per process, the most
   live bytes first: at most TOP_CHAINS series per process, whatever the
   program does (label cardinality is what a Prometheus server pays). */
#define _GNU_SOURCE
#include "serve-pages.h"
#include "hi-reader.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOP_CHAINS 10
#define CHAIN_FRAMES 3
#define CHAIN_LABEL_MAX 200
/* Reads of a process that allocated while it was read (torn) before it
   is said to be down. */
#define READ_TRIES 3
/* Seconds a scrape may spend finding chains (symbolizing them) anew for
   processes that changed; the others keep those of an earlier scrape,
   and the oldest are found anew first. */
#define CHAIN_BUDGET 0.08
#define STR_(x) #x
#define STR(x) STR_ (x)

struct chain
{
  char label[CHAIN_LABEL_MAX + 1];
  uint64_t bytes;
};

/* What one process gave. */
struct figures
{
  pid_t pid;
  unsigned long long start;     /* /proc/PID/stat's starttime */
  int up;
  struct hi_stat st;
  struct chain *top;            /* n_top of them, most bytes first */
  size_t n_top;
  double found;                 /* when top was found (now_seconds), or 0 */
};

/* The top chains of the previous scrape, by pid: a process whose counts
   of allocations and frees (and bytes) are those of the previous scrape
   allocated and freed nothing since, so its chains' figures are the
   same; they are not computed again (symbolizing is most of a read).
   Exact, not a sampling: any allocation or free makes them computed
   anew, within CHAIN_BUDGET a scrape; past it, a process's chains are
   those of its last read that found them (counted by
   heapinspect_chains_deferred).  Entries of processes no longer served
   are dropped at each scrape.  Under scrape_lock. */
static struct figures *cache;
static size_t n_cache;

/* The allocator's own functions: a chain's label starts below them. */
static int
allocator_frame (const char *name, size_t len)
{
  static const char *const names[] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "strdup",
    "strndup", "__strdup", "__strndup", "aligned_alloc", "memalign",
    "posix_memalign", "valloc", "pvalloc", "xmalloc", "xcalloc",
    "xrealloc", "xstrdup", "operator new", "operator new[]",
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen (names[i]) == len && memcmp (names[i], name, len) == 0)
      return 1;
  return 0;
}

/* The label of the folded stack of LEN bytes at LINE (root first, ';'
   between frames) into OUT (CHAIN_LABEL_MAX + 1 bytes). */
static void
chain_label (const char *line, size_t len, char *out)
{
  size_t n = 0, frames = 0;
  size_t end = len;
  out[0] = '\0';
  while (end > 0 && frames < CHAIN_FRAMES)
    {
      size_t start = end;
      while (start > 0 && line[start - 1] != ';')
        start--;
      if (!(frames == 0 && allocator_frame (line + start, end - start)))
        {
          char piece[CHAIN_LABEL_MAX + 2];
          int k = snprintf (piece, sizeof piece, "%s%.*s",
                            frames ? "<" : "", (int) (end - start),
                            line + start);
          size_t plen = k < 0 ? 0 : strlen (piece);
          if (n + plen > CHAIN_LABEL_MAX)
            plen = CHAIN_LABEL_MAX - n;
          /* Cut on a character boundary (no UTF-8 continuation byte
             first outside). */
          while (plen > 0 && plen < strlen (piece)
                 && ((unsigned char) piece[plen] & 0xc0) == 0x80)
            plen--;
          memcpy (out + n, piece, plen);
          n += plen;
          out[n] = '\0';
          frames++;
          if (n >= CHAIN_LABEL_MAX)
            break;
        }
      end = start > 0 ? start - 1 : 0;
      if (start == 0)
        break;
    }
  if (n == 0)
    snprintf (out, CHAIN_LABEL_MAX + 1, "[unknown]");
}

static int
by_bytes (const void *a, const void *b)
{
  const struct chain *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? 1 : -1;
  return strcmp (x->label, y->label);
}

static int
by_label (const void *a, const void *b)
{
  return strcmp (((const struct chain *) a)->label,
                 ((const struct chain *) b)->label);
}

/* M's chains by live bytes, as the folded profile weighs them (one
   implementation of the chains' names: hi_report's), labelled and
   summed by label; the TOP_CHAINS first into F. */
static void
top_chains (const struct hi_model *m, struct figures *f)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&text, &len);
  if (!out)
    return;
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.format = HI_FOLDED;
  opt.lines = 0;                /* names only: no line tables to read */
  opt.default_suppressions = 0;
  opt.weight = HI_WEIGHT_INUSE_SPACE;
  hi_status s = hi_report (m, NULL, "metrics", HI_OPT_TABLES_DEFAULT, &opt,
                           out, NULL);
  if (fclose (out) != 0 || s != HI_OK || !text)
    {
      free (text);
      return;
    }
  size_t n = 0, cap = 0;
  struct chain *all = NULL;
  for (char *line = text; *line;)
    {
      char *nl = strchr (line, '\n');
      char *next = nl ? nl + 1 : line + strlen (line);
      char *sp = memrchr (line, ' ', (size_t) ((nl ? nl : next) - line));
      if (sp)
        {
          if (n == cap)
            {
              size_t ncap = cap ? 2 * cap : 64;
              struct chain *g = realloc (all, ncap * sizeof *all);
              if (!g)
                break;
              all = g;
              cap = ncap;
            }
          chain_label (line, (size_t) (sp - line), all[n].label);
          all[n].bytes = strtoull (sp + 1, NULL, 10);
          n++;
        }
      line = next;
    }
  free (text);
  /* Sum the chains of one label. */
  qsort (all, n, sizeof *all, by_label);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k > 0 && strcmp (all[k - 1].label, all[i].label) == 0)
      all[k - 1].bytes += all[i].bytes;
    else
      all[k++] = all[i];
  qsort (all, k, sizeof *all, by_bytes);
  f->n_top = k < TOP_CHAINS ? k : TOP_CHAINS;
  f->top = all;
  if (f->n_top)
    {
      struct chain *g = realloc (all, f->n_top * sizeof *all);
      if (g)
        f->top = g;
    }
}

static int
by_pid (const void *a, const void *b)
{
  const struct figures *x = a, *y = b;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The process's start time since boot, in clock ticks (tells a pid
   reused apart); 0 if unknown. */
static unsigned long long
start_time (pid_t pid)
{
  char path[64], text[1024];
  snprintf (path, sizeof path, "/proc/%ld/stat", (long) pid);
  FILE *fp = fopen (path, "re");
  if (!fp)
    return 0;
  size_t n = fread (text, 1, sizeof text - 1, fp);
  fclose (fp);
  text[n] = '\0';
  /* Field 22, counted after the name's closing parenthesis (field 2,
     which may hold anything). */
  char *p = strrchr (text, ')');
  unsigned long long v = 0;
  for (int field = 2; p && field < 22; field++)
    p = strchr (p + 1, ' ');
  if (p)
    v = strtoull (p + 1, NULL, 10);
  return v;
}

/* The previous scrape's entry of the process of PID that started at
   START, or NULL. */
static struct figures *
cached (pid_t pid, unsigned long long start)
{
  struct figures key = { .pid = pid };
  struct figures *c = n_cache ? bsearch (&key, cache, n_cache, sizeof *cache,
                                         by_pid) : NULL;
  return c && c->start == start && start != 0 && c->up ? c : NULL;
}

/* Move C's chains to F. */
static void
take_chains (struct figures *f, struct figures *c)
{
  f->top = c->top;
  f->n_top = c->n_top;
  f->found = c->found;
  c->top = NULL;
  c->n_top = 0;
}

static double now_seconds (void);

/* Read process PID without stopping it into F; F->up says whether it
   could be read: not if it is gone, has no monitor, or allocated during
   each of READ_TRIES reads. */
static void
read_process (pid_t pid, struct figures *f, double *budget, size_t *deferred)
{
  memset (f, 0, sizeof *f);
  f->pid = pid;
  f->start = start_time (pid);
  struct figures *c = cached (pid, f->start);
  for (int i = 0; i < READ_TRIES; i++)
    {
      struct hi_target t;
      if (hi_target_open_process ((int) pid, 0, &t) != HI_OK)
        return;
      struct hi_model *m = NULL;
      hi_status s = hi_model_load (&t, &m);
      hi_status after = hi_target_finish (&t);
      hi_target_close (&t);
      if (s == HI_E_NOT_READY)
        {
          /* Monitored, nothing allocated yet: all figures 0. */
          f->up = 1;
          return;
        }
      if (s != HI_OK)
        return;
      if (after != HI_OK)
        {
          hi_model_free (m);
          continue;             /* torn: read it again */
        }
      hi_stat_compute (m, &f->st);
      int same = c && c->found > 0
                 && c->st.allocations == f->st.allocations
                 && c->st.frees == f->st.frees
                 && c->st.bytes_allocated == f->st.bytes_allocated
                 && c->st.bytes_freed == f->st.bytes_freed;
      if (same)
        {
          /* Nothing allocated or freed since: the same chains, now. */
          take_chains (f, c);
          f->found = now_seconds ();
        }
      else if (f->st.live_bytes == 0)
        f->found = now_seconds ();
      else if (*budget > 0)
        {
          double t0 = now_seconds ();
          top_chains (m, f);
          f->found = now_seconds ();
          *budget -= f->found - t0;
        }
      else
        {
          if (c)
            take_chains (f, c);
          ++*deferred;
        }
      hi_model_free (m);
      f->up = 1;
      return;
    }
}

/* A growing text. */
struct buf
{
  char *s;
  size_t len, cap;
  int failed;
};

static void
put (struct buf *b, const char *s, size_t len)
{
  if (b->failed)
    return;
  if (b->len + len + 1 > b->cap)
    {
      size_t cap = b->cap ? b->cap : 4096;
      while (b->len + len + 1 > cap)
        cap *= 2;
      char *g = realloc (b->s, cap);
      if (!g)
        {
          b->failed = 1;
          return;
        }
      b->s = g;
      b->cap = cap;
    }
  memcpy (b->s + b->len, s, len);
  b->len += len;
  b->s[b->len] = '\0';
}

static void __attribute__ ((format (printf, 2, 3)))
putf (struct buf *b, const char *fmt, ...)
{
  char tmp[512];
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (tmp, sizeof tmp, fmt, ap);
  va_end (ap);
  if (n > 0)
    put (b, tmp, (size_t) n < sizeof tmp ? (size_t) n : sizeof tmp - 1);
}

/* Length of the valid UTF-8 character at S (of at most AVAIL bytes), or
   0 if S starts no valid one. */
static size_t
utf8_len (const unsigned char *s, size_t avail)
{
  size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
             : s[0] >= 0xe0 && s[0] <= 0xef ? 3
             : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
  if (n == 0 || n > avail)
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  /* Overlong forms, surrogates and code points past U+10FFFF. */
  if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
      || (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
      || (n == 4 && s[0] == 0xf0 && s[1] < 0x90)
      || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
    return 0;
  return n;
}

/* S as a label value: the format's escapes for backslash, double quote
   and newline; a byte that is not UTF-8 (Prometheus refuses those) as
   the four characters \xHH. */
static void
put_label_value (struct buf *b, const char *s)
{
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      size_t n = utf8_len (p, strlen ((const char *) p));
      if (*p == '\\')
        put (b, "\\\\", 2);
      else if (*p == '"')
        put (b, "\\\"", 2);
      else if (*p == '\n')
        put (b, "\\n", 2);
      else if (n == 0)
        {
          char hex[8];
          snprintf (hex, sizeof hex, "\\\\x%02x", *p);
          put (b, hex, strlen (hex));
          n = 1;
        }
      else
        put (b, (const char *) p, n);
      p += n ? n : 1;
    }
}

/* NAME{pid="..",comm="..",exe=".."[,chain=".."]} */
static void
put_series (struct buf *b, const char *name, const struct serve_proc *p,
            const char *chain)
{
  putf (b, "%s{pid=\"%ld\",comm=\"", name, (long) p->pid);
  put_label_value (b, p->comm);
  put (b, "\",exe=\"", 7);
  put_label_value (b, p->exe);
  if (chain)
    {
      put (b, "\",chain=\"", 9);
      put_label_value (b, chain);
    }
  put (b, "\"} ", 3);
}

static void
put_family (struct buf *b, const char *name, const char *type,
            const char *help)
{
  putf (b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The per-process families: name, type, help, and the figure. */
enum field
{
  F_LIVE_BYTES, F_LIVE_BLOCKS, F_PEAK_BYTES, F_ALLOCATIONS, F_FREES,
  F_ALLOCATED_BYTES, F_FREED_BYTES, F_HEAP_ERRORS, F_MONITOR_BYTES
};
static const struct
{
  const char *name, *type, *help;
  enum field field;
} families[] = {
  { "heapinspect_live_bytes", "gauge",
    "Bytes in blocks allocated and not freed (stat's live_bytes).",
    F_LIVE_BYTES },
  { "heapinspect_live_blocks", "gauge",
    "Blocks allocated and not freed (stat's live_blocks).", F_LIVE_BLOCKS },
  { "heapinspect_peak_bytes", "gauge",
    "The most bytes live at once so far (stat's peak_bytes).",
    F_PEAK_BYTES },
  { "heapinspect_allocations_total", "counter",
    "Blocks allocated (stat's allocations).", F_ALLOCATIONS },
  { "heapinspect_frees_total", "counter",
    "Blocks freed (stat's frees).", F_FREES },
  { "heapinspect_allocated_bytes_total", "counter",
    "Bytes allocated (stat's bytes_allocated).", F_ALLOCATED_BYTES },
  { "heapinspect_freed_bytes_total", "counter",
    "Bytes freed (stat's bytes_freed).", F_FREED_BYTES },
  { "heapinspect_heap_errors_total", "counter",
    "Heap errors the monitor found (stat's heap_errors).", F_HEAP_ERRORS },
  { "heapinspect_monitor_bytes", "gauge",
    "The monitor's own memory: its arenas in use.", F_MONITOR_BYTES },
};

static uint64_t
field_value (const struct hi_stat *s, enum field f)
{
  switch (f)
    {
    case F_LIVE_BYTES: return s->live_bytes;
    case F_LIVE_BLOCKS: return s->live_blocks;
    case F_PEAK_BYTES: return s->peak_bytes;
    case F_ALLOCATIONS: return s->allocations;
    case F_FREES: return s->frees;
    case F_ALLOCATED_BYTES: return s->bytes_allocated;
    case F_FREED_BYTES: return s->bytes_freed;
    case F_HEAP_ERRORS: return s->errors_total;
    case F_MONITOR_BYTES: return s->monitor_bytes;
    }
  return 0;
}

static double
now_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

struct order
{
  double found;
  size_t i;
};

static int
by_found (const void *a, const void *b)
{
  const struct order *x = a, *y = b;
  if (x->found != y->found)
    return x->found < y->found ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* One scrape at a time: reads of 200 processes in parallel would only
   compete for the same CPUs, and the memory stays one scrape's. */
static pthread_mutex_t scrape_lock = PTHREAD_MUTEX_INITIALIZER;

void
serve_page_metrics (const struct serve_proc *procs, size_t n,
                    struct serve_reply *r)
{
  pthread_mutex_lock (&scrape_lock);
  double start = now_seconds ();
  struct figures *fig = calloc (n ? n : 1, sizeof *fig);
  struct buf b = { NULL, 0, 0, fig == NULL };
  /* The processes whose chains are oldest first, for the budget. */
  struct order *ord = calloc (n ? n : 1, sizeof *ord);
  for (size_t i = 0; ord && i < n; i++)
    {
      struct figures key = { .pid = procs[i].pid };
      struct figures *c = n_cache ? bsearch (&key, cache, n_cache,
                                             sizeof *cache, by_pid) : NULL;
      ord[i].found = c ? c->found : 0;
      ord[i].i = i;
    }
  if (ord)
    qsort (ord, n, sizeof *ord, by_found);
  double budget = CHAIN_BUDGET;
  size_t deferred = 0;
  for (size_t k = 0; fig && k < n; k++)
    {
      size_t i = ord ? ord[k].i : k;
      read_process (procs[i].pid, &fig[i], &budget, &deferred);
    }
  free (ord);

  put_family (&b, "heapinspect_up", "gauge",
              "1 if the process's heap could be read, 0 if not (it "
              "ended, or allocated during every read).");
  for (size_t i = 0; fig && i < n; i++)
    {
      put_series (&b, "heapinspect_up", &procs[i], NULL);
      putf (&b, "%d\n", fig[i].up);
    }
  for (size_t k = 0; k < sizeof families / sizeof *families; k++)
    {
      put_family (&b, families[k].name, families[k].type, families[k].help);
      for (size_t i = 0; fig && i < n; i++)
        if (fig[i].up)
          {
            put_series (&b, families[k].name, &procs[i], NULL);
            putf (&b, "%" PRIu64 "\n",
                  field_value (&fig[i].st, families[k].field));
          }
    }
  put_family (&b, "heapinspect_chain_live_bytes", "gauge",
              "Live bytes of a process's top " STR (TOP_CHAINS)
              " chains; chain: its " STR (CHAIN_FRAMES) " innermost "
              "frames below the "
              "allocator, innermost first, '<' between them.");
  for (size_t i = 0; fig && i < n; i++)
    for (size_t c = 0; c < fig[i].n_top; c++)
      {
        put_series (&b, "heapinspect_chain_live_bytes", &procs[i],
                    fig[i].top[c].label);
        putf (&b, "%" PRIu64 "\n", fig[i].top[c].bytes);
      }
  size_t up = 0;
  for (size_t i = 0; fig && i < n; i++)
    up += fig[i].up != 0;
  /* This scrape's figures are the next one's cache. */
  for (size_t i = 0; i < n_cache; i++)
    free (cache[i].top);
  free (cache);
  cache = fig;
  n_cache = fig ? n : 0;
  if (n_cache)
    qsort (cache, n_cache, sizeof *cache, by_pid);
  put_family (&b, "heapinspect_processes", "gauge",
              "Monitored processes served, and how many could be read.");
  putf (&b, "heapinspect_processes{state=\"served\"} %zu\n", n);
  putf (&b, "heapinspect_processes{state=\"read\"} %zu\n", up);
  put_family (&b, "heapinspect_chains_deferred", "gauge",
              "Processes that changed whose chains this scrape did not "
              "find anew (its time for them was spent): their "
              "heapinspect_chain_live_bytes are of an earlier scrape.");
  putf (&b, "heapinspect_chains_deferred %zu\n", deferred);
  put_family (&b, "heapinspect_scrape_duration_seconds", "gauge",
              "Seconds this scrape took to read every process.");
  putf (&b, "heapinspect_scrape_duration_seconds %.6f\n",
        now_seconds () - start);
  pthread_mutex_unlock (&scrape_lock);

  if (b.failed)
    {
      free (b.s);
      static const char msg[] = "out of memory\n";
      r->status = 500;
      r->content_type = "text/plain; charset=utf-8";
      r->content_encoding = NULL;
      r->body = malloc (sizeof msg);
      r->len = r->body ? sizeof msg - 1 : 0;
      if (r->body)
        memcpy (r->body, msg, sizeof msg);
      return;
    }
  r->status = 200;
  r->content_type = "text/plain; version=0.0.4; charset=utf-8";
  r->content_encoding = NULL;
  r->body = b.s;
  r->len = b.len;
}
