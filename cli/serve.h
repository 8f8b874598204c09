/* serve.h - `heapinspect serve`'s own declarations: the server's
   settings, the processes it finds (serve-procs.c), the reads of them,
   its pages besides /metrics (serve-pprof.c, serve-html.c) and the
   request handler (serve-http.c).  serve-pages.h has what the pages
   share with serve-metrics.c. */
#ifndef HI_SERVE_H
#define HI_SERVE_H

#include "cli.h"
#include "serve-pages.h"

#include <microhttpd.h>
#include <stdarg.h>

/* The port `heapinspect serve` listens on without --listen's. */
#define SERVE_PORT_DEFAULT 9475
/* -p PID given at most this many times. */
#define SERVE_PIDS_MAX 256
/* ?seconds=S takes at most this many seconds. */
#define SERVE_SECONDS_MAX 60
/* The limits on clients (serve.c), said in heapinspect-serve(1). */
#define SERVE_CONNECTIONS_MAX 256    /* connections at once */
#define SERVE_PER_IP_MAX 128         /* ... from one address */
#define SERVE_IDLE_TIMEOUT 15        /* seconds without a byte */
#define SERVE_HEADER_DEADLINE 10     /* seconds to send the request's
                                        line and headers */
#define SERVE_REQUEST_DEADLINE 120   /* seconds a request may take in all */
#define SERVE_MEMORY_PER_CONN 16384  /* bytes of request line and headers */
#define SERVE_HEADERS_MAX 64         /* header fields in a request */

/* What the options decide. */
struct serve_config
{
  const char *listen;           /* --listen ADDR:PORT, or NULL */
  pid_t pids[SERVE_PIDS_MAX];   /* -p: only these; none: every one */
  size_t n_pids;
  const char *token_file;       /* --token-file */
  int allow_unauthenticated;    /* --allow-unauthenticated */
  const char *pidfile;          /* --pidfile */
  char *token;                  /* the token read (malloc'd), or NULL */
  size_t token_len;
};

/* serve-procs.c: the processes served, found again for each request
   (a listing at most a second old is reused).  Thread-safe. */
/* Serve only the N processes of PIDS (N 0: every one found). */
void serve_procs_restrict (const pid_t *pids, size_t n);
/* The processes served, now: *OUT (malloc'd, free it) and *N.  0, or
   -1 out of memory. */
int serve_procs_list (struct serve_proc **out, size_t *n);
/* Process PID if it is served: 1 with *OUT filled, else 0. */
int serve_proc_find (pid_t pid, struct serve_proc *out);

/* One read of process PID without stopping it (the --no-stop read),
   under the reader's lock (the reader is not thread-safe: reads take
   turns).  The model, or NULL with *ST saying why. */
struct hi_model *serve_read (pid_t pid, hi_status *st);
/* The reader's lock, for any other call of the reader. */
void serve_reader_lock (void);
void serve_reader_unlock (void);
/* A read that failed with ST: 404 when the process is gone or no
   longer monitored, else 500; R's body says it in one line. */
void serve_read_failed (pid_t pid, hi_status st, struct serve_reply *r);

/* Replies. */
/* R as STATUS with a text/plain body of FMT's text and a newline. */
/* The report of M (P's) in OPT's format, tables TABLES, into R as
   CONTENT_TYPE: 200, or 500 with one line (serve-html.c). */
void serve_reply_report (const struct serve_proc *p, struct hi_model *m,
                         const char *tables, const struct hi_options *opt,
                         const char *content_type, struct serve_reply *r);
void serve_reply_text (struct serve_reply *r, int status, const char *fmt,
                       ...) __attribute__ ((format (printf, 3, 4)));
/* S with HTML's five special characters as entities, and control
   characters as U+FFFD, to F: names from the processes are hostile. */
void serve_html_escape (FILE *f, const char *s);

/* The pages (each fills R). */
/* /debug/pprof/heap (ALLOCS 0) and /debug/pprof/allocs (1) of P: the
   profile as Go's net/http/pprof serves it, gzip'd protobuf; DEBUG
   nonzero: the text form; SECONDS nonzero: the delta over that many
   seconds (a wait the server's end cuts short: 503). */
void serve_page_pprof (const struct serve_proc *p, int allocs, int debug,
                       unsigned seconds, struct serve_reply *r);
/* /: the processes, with links to their pages. */
void serve_page_index (const struct serve_proc *procs, size_t n,
                       struct serve_reply *r);
/* /api/report?pid=N&tables=T: the JSON report of P's tables T. */
void serve_page_report (const struct serve_proc *p, const char *tables,
                        struct serve_reply *r);
/* /flamegraph?pid=N: P's flame graph, the SVG heapinspect flamegraph
   writes. */
void serve_page_flamegraph (const struct serve_proc *p,
                            struct serve_reply *r);

/* The server is ending: waits in the pages end now.  Thread-safe. */
void serve_stop_waits (void);
/* Wait SECONDS, or less if the server ends: 0, or -1 if it ends. */
int serve_wait (unsigned seconds);

/* serve-http.c: the request handler (MHD's access handler) with CONFIG,
   and the log of refused requests. */
void serve_http_init (const struct serve_config *config);
enum MHD_Result serve_http_handler (void *cls, struct MHD_Connection *c,
                                    const char *url, const char *method,
                                    const char *version,
                                    const char *upload_data,
                                    size_t *upload_data_size, void **con_cls);
/* Connection C's request has begun (its line and headers are in): it
   now has SERVE_REQUEST_DEADLINE seconds in all (serve.c). */
void serve_conn_busy (struct MHD_Connection *c);
/* MHD's own messages (MHD_OPTION_EXTERNAL_LOGGER): requests it refused
   itself (a malformed request line, headers too large, too many
   connections), said as serve_log_refused says ours. */
void serve_log_mhd (void *cls, const char *fmt, va_list ap);
/* One line on stderr for a request refused as CLASS (a static string),
   at most one per class every 10 seconds, with how many were refused
   since the last.  Thread-safe. */
void serve_log_refused (const char *class, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

#endif
