/* cmd-diff.c - `heapinspect diff OLD [EXE] NEW [EXE]`: what changed in
   the heap between two moments of a program (two snapshots, cores, or
   a live process as the newer one). */
#define _GNU_SOURCE
#include "commands.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum kind { K_OTHER, K_SOURCE, K_EXE };

/* What an operand is, from its first bytes: an ELF file that is not a
   core is an executable; anything else (a snapshot, a core, a file that
   cannot be read, which then fails as a source) a source. */
static enum kind
classify (const char *path)
{
  unsigned char head[EI_NIDENT + 2];
  int fd = hi_open_regular (path);
  if (fd < 0)
    return K_OTHER;
  ssize_t n = read (fd, head, sizeof head);
  close (fd);
  if (n != (ssize_t) sizeof head || memcmp (head, ELFMAG, SELFMAG) != 0)
    return K_SOURCE;
  uint16_t type;
  if (head[EI_DATA] == ELFDATA2LSB)
    type = (uint16_t) (head[EI_NIDENT] | head[EI_NIDENT + 1] << 8);
  else
    type = (uint16_t) (head[EI_NIDENT] << 8 | head[EI_NIDENT + 1]);
  return type == ET_CORE ? K_SOURCE : K_EXE;
}

/* ARGV[0..ARGC) as OLD [EXE] NEW [EXE], or OLD [EXE] [EXE] when BASE
   has -p PID (the newer source; the second executable is the
   process's).  An operand after a source is its executable if it is an
   ELF file other than a core.  Fills OUT[0] (OLD) and OUT[1] (NEW): 0,
   or -1 with a one-line usage message in *ERR. */
static int
parse_sources (int argc, char **argv, const struct hi_source *base,
               struct hi_source out[2], const char **err)
{
  int n = 0, i = 0;
  int want = base->pid ? 1 : 2;
  memset (out, 0, 2 * sizeof *out);
  *err = NULL;
  if (base->raw)
    {
      *err = "diff reads snapshots, cores or -p PID: --raw does not go "
             "with it";
      return -1;
    }
  while (i < argc && n < want)
    {
      out[n].path = out[n].name = argv[i++];
      if (i < argc && classify (argv[i]) == K_EXE)
        out[n].exe = argv[i++];
      n++;
    }
  if (n < want)
    {
      *err = base->pid ? "diff needs the older source: diff OLD [EXE] -p PID"
                       : "diff needs two sources: diff OLD [EXE] NEW [EXE]";
      return -1;
    }
  if (base->pid)
    {
      static char name[32];
      snprintf (name, sizeof name, "process %ld", base->pid);
      out[1].pid = base->pid;
      out[1].no_stop = base->no_stop;
      out[1].name = name;
      if (i < argc && classify (argv[i]) == K_EXE)
        out[1].exe = argv[i++];
    }
  if (i < argc)
    {
      *err = "too many operands: diff OLD [EXE] NEW [EXE]";
      return -1;
    }
  return 0;
}

int
hi_parse_diff (int argc, char **argv, struct hi_settings *st)
{
  if (st->leak_check)
    return hi_leak_check_command_usage ();
  int r = hi_check_own_report (st, "diff");
  if (r >= 0)
    return r;
  const char *err;
  if (parse_sources (argc - 1, argv + 1, &st->src, st->diff, &err) != 0)
    return hi_usage_line (err);
  return -1;
}

/* One line when OLD and NEW are two programs (their executables' paths
   differ): the chains are matched by their functions' names across
   them, which may not be what was meant. */
static void
say_two_programs (const struct hi_model *old, const struct hi_model *new_m)
{
  uint64_t n_old, n_new;
  const struct hi_module *a = hi_model_modules (old, &n_old);
  const struct hi_module *b = hi_model_modules (new_m, &n_new);
  if (n_old == 0 || n_new == 0
      || strncmp (a[0].path, b[0].path, sizeof a[0].path) == 0)
    return;
  char pa[sizeof a[0].path + 1], pb[sizeof b[0].path + 1];
  char sa[1024], sb[1024];
  snprintf (pa, sizeof pa, "%.*s", (int) sizeof a[0].path, a[0].path);
  snprintf (pb, sizeof pb, "%.*s", (int) sizeof b[0].path, b[0].path);
  hi_escape (pa, sa, sizeof sa);
  hi_escape (pb, sb, sizeof sb);
  fprintf (stderr, "heapinspect: diff: two programs, %s then %s: their "
           "chains are matched by function name\n", sa, sb);
}

/* The changes from the older source to the newer (text or JSON). */
int
hi_cmd_diff (const struct hi_settings *st, int *written)
{
  const struct hi_source *src = st->diff;
  const struct hi_options *opt = &st->opt;
  *written = 0;
  struct hi_model *old = hi_cli_load (&src[0], NULL);
  if (!old)
    return 1;
  struct hi_model *new_m = hi_cli_load (&src[1], NULL);
  if (!new_m)
    {
      hi_model_free (old);
      return 1;
    }
  hi_status s = hi_diff_report (old, src[0].exe, src[0].name, new_m,
                                src[1].exe, src[1].name, opt, stdout);
  int status = hi_model_damaged (old) || hi_model_damaged (new_m) ? 1 : 0;
  if (s != HI_OK)
    {
      if (!(s == HI_E_WRITE && ferror (stdout)))
        hi_cli_error (src[1].name, hi_strerror (s));
      status = 1;
    }
  else
    {
      *written = 1;
      say_two_programs (old, new_m);
      hi_cli_module_problems (&src[0], old);
      hi_cli_module_problems (&src[1], new_m);
    }
  hi_model_free (new_m);
  hi_model_free (old);
  return status;
}
