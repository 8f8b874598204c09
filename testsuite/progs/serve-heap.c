/* serve-heap.c - a known heap for heapinspect.serve: serve_keep holds
   40 blocks of 1000 bytes, serve_small 10 blocks of 24; then "ready"
   and, for each line "N" on standard input, serve_more allocates N
   blocks of 100 bytes (kept) and answers "done N".  Ends at the end of
   its input.  An argument names the process (its comm, prctl). */
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[1 << 16];
static size_t n_keep;

__attribute__ ((noinline)) static void
serve_keep (void)
{
  for (int i = 0; i < 40; i++)
    keep[n_keep++] = malloc (1000);
}

__attribute__ ((noinline)) static void
serve_small (void)
{
  for (int i = 0; i < 10; i++)
    keep[n_keep++] = malloc (24);
}

__attribute__ ((noinline)) static void
serve_more (long n)
{
  for (long i = 0; i < n && n_keep < sizeof keep / sizeof *keep; i++)
    keep[n_keep++] = malloc (100);
}

static void
say (const char *what, long n)
{
  char buf[64];
  int len = snprintf (buf, sizeof buf, "%s %ld\n", what, n);
  if (write (1, buf, (size_t) len) != len)
    exit (1);
}

int
main (int argc, char **argv)
{
  if (argc > 1)
    prctl (PR_SET_NAME, argv[1], 0, 0, 0);
  serve_keep ();
  serve_small ();
  say ("ready", (long) getpid ());
  char line[64];
  size_t at = 0;
  char c;
  while (read (0, &c, 1) == 1)
    if (c == '\n')
      {
        line[at] = '\0';
        long n = strtol (line, NULL, 10);
        serve_more (n);
        say ("done", n);
        at = 0;
      }
    else if (at < sizeof line - 1)
      line[at++] = c;
  return 0;
}
