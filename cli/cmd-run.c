/* cmd-run.c - `heapinspect run CMD ARGS...`: run CMD with the monitor
   preloaded, then print the tables of its exit snapshot. */
#define _GNU_SOURCE
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The monitor: $HEAPINSPECT_LIB, else the build tree next to this
   program (uninstalled use), else the installed one. */
static const char *
monitor_path (char *buf, size_t size)
{
  const char *env = getenv ("HEAPINSPECT_LIB");
  if (env && *env)
    return env;
  char exe[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0)
    {
      exe[n] = '\0';
      char *slash = strrchr (exe, '/');
      if (slash)
        {
          *slash = '\0';
          snprintf (buf, size, "%s/../lib/.libs/libheapinspect.so", exe);
          if (access (buf, R_OK) == 0)
            return buf;
        }
    }
  return HI_LIBDIR "/libheapinspect.so";
}

int
hi_cmd_run (char **argv, const char *tables, const struct hi_options *opt)
{
  char libbuf[PATH_MAX + 64], preload[2 * PATH_MAX], output[PATH_MAX];
  const char *lib = monitor_path (libbuf, sizeof libbuf);
  if (access (lib, R_OK) != 0)
    {
      hi_cli_error (lib, "cannot find the monitor (set HEAPINSPECT_LIB)");
      return 1;
    }
  const char *old = getenv ("LD_PRELOAD");
  snprintf (preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "",
            old ? old : "");
  const char *out = getenv ("HEAPINSPECT_OUTPUT");
  if (!out || !*out || strcmp (out, "none") == 0)
    out = "heapinspect.%p.hip";
  pid_t pid = fork ();
  if (pid < 0)
    {
      hi_cli_error (argv[0], strerror (errno));
      return 1;
    }
  if (pid == 0)
    {
      setenv ("LD_PRELOAD", preload, 1);
      setenv ("HEAPINSPECT_OUTPUT", out, 1);
      execvp (argv[0], argv);
      fprintf (stderr, "heapinspect: %s: %s\n", argv[0], strerror (errno));
      _exit (127);
    }
  /* Like a shell: the program gets the terminal's signals, we wait. */
  signal (SIGINT, SIG_IGN);
  signal (SIGQUIT, SIG_IGN);
  int status;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED (status) && WEXITSTATUS (status) == 127)
    return 1;
  if (WIFSIGNALED (status))
    fprintf (stderr, "heapinspect: %s: killed by signal %d; no snapshot at exit\n",
             argv[0], WTERMSIG (status));
  else if (WEXITSTATUS (status) != 0)
    fprintf (stderr, "heapinspect: %s: exited with status %d\n", argv[0],
             WEXITSTATUS (status));

  /* The snapshot of the program itself, named by its pid. */
  char *o = output, *end = output + sizeof output - 1;
  for (const char *t = out; *t && o < end; t++)
    if (t[0] == '%' && t[1] == 'p')
      o += snprintf (o, (size_t) (end - o), "%d", (int) pid), t++;
    else if (t[0] == '%' && t[1] == '%')
      *o++ = '%', t++;
    else
      *o++ = *t;
  *o = '\0';
  if (access (output, R_OK) != 0)
    {
      hi_cli_error (output, "the program wrote no snapshot (did it exit "
                    "through _exit or a signal?)");
      return 1;
    }
  fprintf (stderr, "heapinspect: snapshot in %s\n", output);
  struct hi_source src;
  memset (&src, 0, sizeof src);
  src.path = src.name = output;
  struct hi_model *m = hi_cli_load (&src, NULL);
  if (!m)
    return 1;
  int r = hi_cli_report (&src, m, tables, opt);
  hi_model_free (m);
  return r;
}
