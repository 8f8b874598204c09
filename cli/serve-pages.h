/* serve-pages.h - the pages of `heapinspect serve`: each fills one reply,
   reading the monitored processes without stopping them (the --no-stop
   read).  serve.c routes requests to them and sends the reply. */
#ifndef HI_SERVE_PAGES_H
#define HI_SERVE_PAGES_H

#include <stddef.h>
#include <sys/types.h>

struct serve_reply
{
  int status;                   /* HTTP status: 200, 400, 404, 500, 503 */
  const char *content_type;     /* a static string */
  const char *content_encoding; /* "gzip", or NULL */
  char *body;                   /* malloc'd; the server frees it */
  size_t len;
};

/* One monitored process the server found (serve-procs.c). */
struct serve_proc
{
  pid_t pid;
  char comm[17];                /* /proc/PID/comm */
  char exe[4096];               /* /proc/PID/exe's target, or "" */
};

/* /metrics: Prometheus' text exposition format for PROCS
   (serve-metrics.c). */
void serve_page_metrics (const struct serve_proc *procs, size_t n,
                         struct serve_reply *r);

#endif
