/* serve-metrics-pending.c - stands in for serve-metrics.c (/metrics,
   written on another branch) so that this branch links: replaced at the
   merge, when this file is deleted. */
#define _GNU_SOURCE
#include "serve-pages.h"

#include <stdlib.h>
#include <string.h>

void
serve_page_metrics (const struct serve_proc *procs, size_t n,
                    struct serve_reply *r)
{
  (void) procs;
  (void) n;
  static const char msg[] = "/metrics is not built yet\n";
  r->status = 503;
  r->content_type = "text/plain; charset=utf-8";
  r->content_encoding = NULL;
  r->body = strdup (msg);
  r->len = r->body ? sizeof msg - 1 : 0;
}
