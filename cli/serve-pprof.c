/* serve-pprof.c - /debug/pprof/heap and /debug/pprof/allocs as Go's
   net/http/pprof serves them: the reader's pprof emitter's output (the
   gzip'd profile.proto of `heapinspect --format=pprof`), or with
   ?debug=1 its heap profile text (--format=pprof-text), the in-use and
   allocation sample types both; allocs only opens on alloc_space.
   ?seconds=S: the delta over S seconds, read, wait, read again, the
   first read's counters taken from the second's (hi_model_subtract). */
#define _GNU_SOURCE
#include "serve.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
serve_reply_text (struct serve_reply *r, int status, const char *fmt, ...)
{
  va_list ap;
  char *body = NULL;
  va_start (ap, fmt);
  int n = vasprintf (&body, fmt, ap);
  va_end (ap);
  if (n < 0)
    body = NULL, n = 0;
  else
    {
      char *nl = realloc (body, (size_t) n + 2);
      if (nl)
        {
          body = nl;
          body[n++] = '\n';
          body[n] = '\0';
        }
    }
  r->status = status;
  r->content_type = "text/plain; charset=utf-8";
  r->content_encoding = NULL;
  r->body = body;
  r->len = body ? (size_t) n : 0;
}

/* The server's end wakes the waits. */
static pthread_mutex_t wait_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;
static int stopping;

void
serve_stop_waits (void)
{
  pthread_mutex_lock (&wait_mutex);
  stopping = 1;
  pthread_cond_broadcast (&wait_cond);
  pthread_mutex_unlock (&wait_mutex);
}

int
serve_wait (unsigned seconds)
{
  struct timespec until;
  clock_gettime (CLOCK_REALTIME, &until);
  until.tv_sec += seconds;
  pthread_mutex_lock (&wait_mutex);
  while (!stopping
         && pthread_cond_timedwait (&wait_cond, &wait_mutex, &until) == 0)
    ;
  int r = stopping ? -1 : 0;
  pthread_mutex_unlock (&wait_mutex);
  return r;
}

/* hi_report of M's chains (P's) in FORMAT, weight WEIGHT, into R. */
static void
profile (const struct serve_proc *p, struct hi_model *m,
         enum hi_format format, enum hi_weight weight, struct serve_reply *r)
{
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.format = format;
  opt.weight = weight;
  /* Go's: the profile as a file to save, its text as text. */
  serve_reply_report (p, m, HI_OPT_TABLES_DEFAULT, &opt,
                      format == HI_PPROF ? "application/octet-stream"
                                         : "text/plain; charset=utf-8", r);
}

void
serve_page_pprof (const struct serve_proc *p, int allocs, int debug,
                  unsigned seconds, struct serve_reply *r)
{
  hi_status st;
  struct hi_model *m = serve_read (p->pid, &st);
  if (!m)
    {
      serve_read_failed (p->pid, st, r);
      return;
    }
  if (seconds)
    {
      if (serve_wait (seconds) != 0)
        {
          hi_model_free (m);
          serve_reply_text (r, 503, "the server is ending");
          return;
        }
      struct hi_model *later = serve_read (p->pid, &st);
      if (!later)
        {
          hi_model_free (m);
          serve_read_failed (p->pid, st, r);
          return;
        }
      st = hi_model_subtract (later, m);
      hi_model_free (m);
      m = later;
      if (st != HI_OK)
        {
          hi_model_free (m);
          serve_reply_text (r, 404, "process %d: not the same process "
                            "after %u seconds", (int) p->pid, seconds);
          return;
        }
    }
  profile (p, m, debug ? HI_PPROF_TEXT : HI_PPROF,
           allocs ? HI_WEIGHT_ALLOC_SPACE : HI_WEIGHT_INUSE_SPACE, r);
  hi_model_free (m);
}
