/* serve-html.c - `heapinspect serve`'s pages for people and scripts:
   / (the processes, with links to their pages), /api/report (the JSON
   report, as --format=json -t TABLES) and /flamegraph (the SVG flame
   graph, as `heapinspect flamegraph` writes it).  What comes from the
   processes (comm, exe, function names) is hostile: escaped here, and
   in the reader's emitters. */
#define _GNU_SOURCE
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
serve_html_escape (FILE *f, const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    switch (*p)
      {
      case '&': fputs ("&amp;", f); break;
      case '<': fputs ("&lt;", f); break;
      case '>': fputs ("&gt;", f); break;
      case '"': fputs ("&quot;", f); break;
      case '\'': fputs ("&#39;", f); break;
      default:
        if (*p < 0x20 || *p == 0x7f)
          fputs ("&#xfffd;", f);
        else
          fputc (*p, f);
      }
}

void
serve_reply_report (const struct serve_proc *p, struct hi_model *m,
                    const char *tables, const struct hi_options *opt,
                    const char *content_type, struct serve_reply *r)
{
  char name[32];
  snprintf (name, sizeof name, "process %d", (int) p->pid);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    {
      serve_reply_text (r, 500, "out of memory");
      return;
    }
  serve_reader_lock ();
  hi_status s = hi_report (m, NULL, name, tables, opt, f, NULL);
  serve_reader_unlock ();
  if (fclose (f) != 0 && s == HI_OK)
    s = HI_E_NOMEM;
  if (s != HI_OK)
    {
      free (buf);
      serve_reply_text (r, 500, "process %d: %s", (int) p->pid,
                        hi_strerror (s));
      return;
    }
  r->status = 200;
  r->content_type = content_type;
  r->content_encoding = NULL;
  r->body = buf;
  r->len = len;
}

void
serve_page_report (const struct serve_proc *p, const char *tables,
                   struct serve_reply *r)
{
  if (!tables || !*tables)
    tables = HI_OPT_TABLES_DEFAULT;
  if (!hi_tables_valid (tables))
    {
      serve_reply_text (r, 400, "tables= takes a list of: %s",
                        hi_table_names ());
      return;
    }
  hi_status st;
  struct hi_model *m = serve_read (p->pid, &st);
  if (!m)
    {
      serve_read_failed (p->pid, st, r);
      return;
    }
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.format = HI_JSON;
  opt.tables_given = 1;
  serve_reply_report (p, m, tables, &opt, "application/json", r);
  hi_model_free (m);
}

void
serve_page_flamegraph (const struct serve_proc *p, struct serve_reply *r)
{
  hi_status st;
  struct hi_model *m = serve_read (p->pid, &st);
  if (!m)
    {
      serve_read_failed (p->pid, st, r);
      return;
    }
  struct hi_options opt = HI_OPTIONS_DEFAULT;
  opt.format = HI_SVG;
  serve_reply_report (p, m, HI_OPT_TABLES_DEFAULT, &opt, "image/svg+xml",
                      r);
  hi_model_free (m);
}

/* One row of the index: P, its live bytes (read now), its links. */
static void
row (FILE *f, const struct serve_proc *p)
{
  hi_status st;
  struct hi_model *m = serve_read (p->pid, &st);
  struct hi_stat s;
  if (m)
    {
      serve_reader_lock ();
      hi_stat_compute (m, &s);
      serve_reader_unlock ();
      hi_model_free (m);
    }
  int pid = (int) p->pid;
  fprintf (f, "<tr><td class=\"pid\">%d</td><td class=\"comm\">", pid);
  serve_html_escape (f, p->comm);
  fputs ("</td><td class=\"exe\">", f);
  serve_html_escape (f, p->exe);
  if (m)
    fprintf (f, "</td><td class=\"live\">%llu</td>",
             (unsigned long long) s.live_bytes);
  else
    fputs ("</td><td class=\"live\">gone</td>", f);
  fprintf (f, "<td><a href=\"/debug/pprof/heap?pid=%d\">heap</a> "
           "<a href=\"/debug/pprof/heap?pid=%d&amp;debug=1\">heap (text)</a> "
           "<a href=\"/debug/pprof/allocs?pid=%d\">allocs</a> "
           "<a href=\"/api/report?pid=%d&amp;tables=leaks,bins\">report</a> "
           "<a href=\"/flamegraph?pid=%d\">flame graph</a></td></tr>\n",
           pid, pid, pid, pid, pid);
}

void
serve_page_index (const struct serve_proc *procs, size_t n,
                  struct serve_reply *r)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    {
      serve_reply_text (r, 500, "out of memory");
      return;
    }
  fputs ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
         "<title>heapinspect serve</title>"
         "<style>body{font-family:sans-serif}td,th{padding:2px 8px;"
         "text-align:left}td.live{text-align:right}</style></head><body>\n"
         "<h1>heapinspect serve</h1>\n", f);
  fprintf (f, "<p>%zu monitored process%s. "
           "<a href=\"/metrics\">/metrics</a></p>\n", n,
           n == 1 ? "" : "es");
  fputs ("<table id=\"processes\"><tr><th>pid</th><th>command</th>"
         "<th>executable</th><th>live bytes</th><th>pages</th></tr>\n", f);
  for (size_t i = 0; i < n; i++)
    row (f, &procs[i]);
  fputs ("</table>\n</body></html>\n", f);
  if (fclose (f) != 0)
    {
      free (buf);
      serve_reply_text (r, 500, "out of memory");
      return;
    }
  r->status = 200;
  r->content_type = "text/html; charset=utf-8";
  r->content_encoding = NULL;
  r->body = buf;
  r->len = len;
}
