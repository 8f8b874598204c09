/* serve-http.c - `heapinspect serve`'s requests: what is refused (a
   method other than GET and HEAD, too many header fields, a missing or
   wrong bearer token), the query's checks, which page answers, and the
   reply's headers.  Nothing of a request names a file: pages are
   chosen by exact paths, processes by number. */
#define _GNU_SOURCE
#include "serve.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct serve_config *config;

void
serve_http_init (const struct serve_config *c)
{
  config = c;
}

/* The refused requests' classes, each said at most every 10 seconds. */
#define LOG_CLASSES 32
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct
{
  const char *class;
  time_t last;
  unsigned long quiet;       /* refused since the last line, unsaid */
} classes[LOG_CLASSES];

/* Say DETAIL of a request refused as LABEL, keyed by KEY (compared as
   strings). */
static void
refused (const char *key, const char *label, const char *detail)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  pthread_mutex_lock (&log_mutex);
  int i;
  for (i = 0; i < LOG_CLASSES && classes[i].class
              && strcmp (classes[i].class, key) != 0; i++)
    ;
  if (i == LOG_CLASSES)
    i = LOG_CLASSES - 1;     /* more classes than kept: share the last */
  int same = classes[i].class && strcmp (classes[i].class, key) == 0;
  if (same && now.tv_sec - classes[i].last < 10)
    {
      classes[i].quiet++;
      pthread_mutex_unlock (&log_mutex);
      return;
    }
  char line[512], safe[1024];
  snprintf (line, sizeof line, "%s", detail);
  line[strcspn (line, "\r\n")] = '\0';
  hi_escape (line, safe, sizeof safe);
  unsigned long quiet = same ? classes[i].quiet : 0;
  if (quiet)
    fprintf (stderr, "heapinspect serve: refused (%s): %s (and %lu more "
             "since the last such line)\n", label, safe, quiet);
  else
    fprintf (stderr, "heapinspect serve: refused (%s): %s\n", label, safe);
  classes[i].class = key;
  classes[i].last = now.tv_sec;
  classes[i].quiet = 0;
  pthread_mutex_unlock (&log_mutex);
}

void
serve_log_refused (const char *class, const char *fmt, ...)
{
  char detail[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (detail, sizeof detail, fmt, ap);
  va_end (ap);
  refused (class, class, detail);
}

void
serve_log_mhd (void *cls, const char *fmt, va_list ap)
{
  (void) cls;
  char detail[512];
  vsnprintf (detail, sizeof detail, fmt, ap);
  /* Keyed by MHD's message (its format): a malformed request line, a
     header too large, the connection limit are classes apart. */
  refused (fmt, "http", detail);
}

/* 1 if the LEN bytes at A equal B's, in a time that depends only on
   the lengths. */
static int
same_secret (const char *a, size_t len, const char *b, size_t blen)
{
  unsigned char diff = len != blen;
  for (size_t i = 0; i < blen; i++)
    diff |= (unsigned char) (b[i] ^ (i < len ? a[i] : 0));
  return diff == 0;
}

/* The request carries the token: "Authorization: Bearer TOKEN". */
static int
authorized (struct MHD_Connection *c)
{
  if (!config->token)
    return 1;
  const char *h = MHD_lookup_connection_value (c, MHD_HEADER_KIND,
                                               MHD_HTTP_HEADER_AUTHORIZATION);
  if (!h || strncasecmp (h, "Bearer ", 7) != 0)
    return 0;
  h += 7;
  while (*h == ' ')
    h++;
  return same_secret (h, strlen (h), config->token, config->token_len);
}

/* A decimal number of at most 9 digits in S: 0 and *OUT, or -1. */
static int
number (const char *s, long *out)
{
  size_t n = strspn (s, "0123456789");
  if (n == 0 || n > 9 || s[n])
    return -1;
  *out = strtol (s, NULL, 10);
  return 0;
}

/* Send R (its body then belongs to MHD) with the headers of its kind;
   ATTACHMENT: the file name a profile is saved as, or NULL. */
static enum MHD_Result
send_reply (struct MHD_Connection *c, struct serve_reply *r,
            const char *attachment)
{
  struct MHD_Response *resp
    = MHD_create_response_from_buffer (r->len, r->body ? r->body : (char *) "",
                                       r->body ? MHD_RESPMEM_MUST_FREE
                                               : MHD_RESPMEM_PERSISTENT);
  if (!resp)
    {
      free (r->body);
      return MHD_NO;
    }
  MHD_add_response_header (resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                           r->content_type ? r->content_type
                                           : "text/plain; charset=utf-8");
  if (r->content_encoding)
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CONTENT_ENCODING,
                             r->content_encoding);
  if (attachment && r->status == 200)
    {
      char cd[64];
      snprintf (cd, sizeof cd, "attachment; filename=\"%s\"", attachment);
      MHD_add_response_header (resp, "Content-Disposition", cd);
    }
  MHD_add_response_header (resp, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header (resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  /* Pages show what the processes hold: no other origin's script or
     style, no frames; the flame graph's own script runs. */
  MHD_add_response_header (resp, "Content-Security-Policy",
                           "default-src 'none'; style-src 'unsafe-inline'; "
                           "script-src 'unsafe-inline'; "
                           "frame-ancestors 'none'");
  if (r->status == 401)
    MHD_add_response_header (resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                             "Bearer realm=\"heapinspect\"");
  if (r->status == 405)
    MHD_add_response_header (resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  enum MHD_Result ok = MHD_queue_response (c, (unsigned) r->status, resp);
  MHD_destroy_response (resp);
  return ok;
}

/* The process a page is for: ?pid=N, or the one served when there is
   one.  1 with *P, else 0 with R filled (400, 404). */
static int
choose (struct MHD_Connection *c, struct serve_proc *p, struct serve_reply *r)
{
  const char *arg = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND,
                                                 "pid");
  long pid;
  if (arg)
    {
      if (number (arg, &pid) != 0 || pid == 0)
        {
          serve_log_refused ("bad query", "pid= is not a process id");
          serve_reply_text (r, 400, "pid= takes a process id: ?pid=N "
                            "(see / for the processes served)");
          return 0;
        }
      if (!serve_proc_find ((pid_t) pid, p))
        {
          serve_reply_text (r, 404, "process %ld is not served: not "
                            "monitored, not readable by this server's "
                            "user, or gone (see /)", pid);
          return 0;
        }
      return 1;
    }
  struct serve_proc *v;
  size_t n;
  if (serve_procs_list (&v, &n) != 0)
    {
      serve_reply_text (r, 500, "out of memory");
      return 0;
    }
  if (n == 1)
    *p = v[0];
  else if (n == 0)
    serve_reply_text (r, 404, "no monitored process is served");
  else
    {
      char pids[160] = "";
      size_t at = 0;
      for (size_t i = 0; i < n && at < sizeof pids - 16; i++)
        at += (size_t) snprintf (pids + at, sizeof pids - at, "%s%d",
                                 i ? ", " : "", (int) v[i].pid);
      serve_reply_text (r, 400, "%zu processes are served: choose one "
                        "with ?pid=N (%s%s; see /)", n, pids,
                        at >= sizeof pids - 16 ? ", ..." : "");
    }
  free (v);
  return n == 1;
}

/* A numeric query argument NAME in [MIN, MAX]: 0 and *OUT (0 if
   absent), or -1 with R filled (400). */
static int
query_number (struct MHD_Connection *c, const char *name, long min,
              long max, long *out, struct serve_reply *r)
{
  const char *arg = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND,
                                                 name);
  *out = 0;
  if (!arg)
    return 0;
  if (number (arg, out) != 0 || *out < min || *out > max)
    {
      serve_log_refused ("bad query", "%s= out of range", name);
      serve_reply_text (r, 400, "%s= takes a number from %ld to %ld", name,
                        min, max);
      return -1;
    }
  return 0;
}

/* The page for URL, into R; *ATTACHMENT for a profile's file name. */
static void
route (struct MHD_Connection *c, const char *url, struct serve_reply *r,
       const char **attachment)
{
  struct serve_proc p;
  if (strcmp (url, "/") == 0)
    {
      struct serve_proc *v;
      size_t n;
      if (serve_procs_list (&v, &n) != 0)
        serve_reply_text (r, 500, "out of memory");
      else
        {
          serve_page_index (v, n, r);
          free (v);
        }
    }
  else if (strcmp (url, "/metrics") == 0)
    {
      struct serve_proc *v;
      size_t n;
      if (serve_procs_list (&v, &n) != 0)
        serve_reply_text (r, 500, "out of memory");
      else
        {
          serve_page_metrics (v, n, r);
          free (v);
        }
    }
  else if (strcmp (url, "/debug/pprof/heap") == 0
           || strcmp (url, "/debug/pprof/allocs") == 0)
    {
      int allocs = url[13] == 'a';
      long debug, seconds;
      /* ?seconds=0 is no window (Go's pprof refuses it too). */
      if (query_number (c, "debug", 0, 2, &debug, r) != 0
          || query_number (c, "seconds", 1, SERVE_SECONDS_MAX, &seconds, r)
             != 0
          || !choose (c, &p, r))
        return;
      serve_page_pprof (&p, allocs, debug != 0, (unsigned) seconds, r);
      if (!debug)
        *attachment = allocs ? "allocs" : "heap";
    }
  else if (strcmp (url, "/api/report") == 0)
    {
      if (choose (c, &p, r))
        serve_page_report (&p, MHD_lookup_connection_value
                                 (c, MHD_GET_ARGUMENT_KIND, "tables"), r);
    }
  else if (strcmp (url, "/flamegraph") == 0)
    {
      if (choose (c, &p, r))
        serve_page_flamegraph (&p, r);
    }
  else
    serve_reply_text (r, 404, "no such page: /, /metrics, "
                      "/debug/pprof/heap, /debug/pprof/allocs, /api/report, "
                      "/flamegraph");
}

enum MHD_Result
serve_http_handler (void *cls, struct MHD_Connection *c, const char *url,
                    const char *method, const char *version,
                    const char *upload_data, size_t *upload_data_size,
                    void **con_cls)
{
  (void) cls;
  (void) version;
  (void) upload_data;
  (void) upload_data_size;
  if (*con_cls)
    return MHD_YES;          /* answered at the first call */
  *con_cls = (void *) 1;
  serve_conn_busy (c);
  struct serve_reply r;
  memset (&r, 0, sizeof r);
  const char *attachment = NULL;
  int headers = MHD_get_connection_values (c, MHD_HEADER_KIND, NULL, NULL);
  if (headers > SERVE_HEADERS_MAX)
    {
      serve_log_refused ("too many headers", "%d header fields", headers);
      serve_reply_text (&r, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
                        "at most %d header fields", SERVE_HEADERS_MAX);
    }
  else if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)
    {
      serve_log_refused ("method", "%.32s %.200s", method, url);
      serve_reply_text (&r, 405, "read-only: GET and HEAD only");
    }
  else if (!authorized (c))
    {
      serve_log_refused ("unauthorized", "no or wrong bearer token for "
                         "%.200s", url);
      serve_reply_text (&r, 401, "unauthorized: send Authorization: "
                        "Bearer TOKEN");
    }
  else
    route (c, url, &r, &attachment);
  return send_reply (c, &r, attachment);
}
