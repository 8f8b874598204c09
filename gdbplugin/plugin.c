/* plugin.c - heapinspect-gdb.so: the heapinspect reader inside gdb, with
   no Python.  gdb has no C API for commands, so heap.gdb defines them and
   this plugin is loaded through gdb's JIT reader interface: each
   `jit-reader-load` makes gdb call read() with the monitor's JIT entry,
   and cb->target_read reads the inferior, whatever the target.

   The command and its answer pass through one file that has no name (a
   memfd, or an unlinked file in a private directory), kept open in gdb at
   a fixed descriptor, so heap.gdb reaches it as /proc/self/fd/N (see
   protocol.h).  read() replaces the request with the answer as gdb `echo`
   commands, which heap.gdb then `source`s, so paging, logging and `pipe`
   see it.  The plugin never makes gdb fail: when it cannot have its
   descriptor, loading it fails with one line saying why, and heap.gdb
   writes nothing. */
#define _GNU_SOURCE
#include <gdb/jit-reader.h>

#include "hi-reader.h"
#include "plugin.h"
#include "protocol.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__ ((visibility ("default")))

EXPORT GDB_DECLARE_GPL_COMPATIBLE_READER

#define CHANNEL_FD HI_GDB_CHANNEL_FD
#define CHANNEL_NAME "heapinspect-gdb-channel"

static const struct
{
  const char *name;
  int expr;
} commands[] = {
#define CMD(name, kind) { #name, sizeof #kind == sizeof "EXPR" },
  HI_GDB_COMMANDS (CMD)
#undef CMD
};

/* A parsed request. */
struct request
{
  char name[16];
  char tables[64];           /* what to print: a table list, or "block" */
  int have_addr;
  uint64_t addr;
  struct hi_options opt;
  int export;                /* heap export: FORMAT and FILE words */
  int diff;                  /* heap diff: a FILE word, the snapshot */
  int positional;            /* export's or diff's words given so far */
  char file[4096];           /* export's or diff's FILE, as the user
                                named it */
  char error[256];           /* set: say this instead */
  struct hi_thread_regs *regs; /* heap lost: each thread's registers */
  size_t n_regs, cap_regs;
};

/* A "# regs" line (protocol.h): one thread's registers, kept in R. */
static void
parse_regs (struct request *r, const char *line)
{
  static const int index[] = {
#define INDEX(name, i) i,
    HI_GDB_REGS (INDEX)
#undef INDEX
  };
  if (r->n_regs == r->cap_regs)
    {
      size_t cap = r->cap_regs ? 2 * r->cap_regs : 16;
      struct hi_thread_regs *g = realloc (r->regs, cap * sizeof *g);
      if (!g)
        return;
      r->regs = g;
      r->cap_regs = cap;
    }
  struct hi_thread_regs *t = &r->regs[r->n_regs];
  memset (t, 0, sizeof *t);
  const char *p = line;
  for (size_t k = 0; k < sizeof index / sizeof index[0]; k++)
    {
      char *end;
      errno = 0;
      unsigned long long v = strtoull (p, &end, 10);
      if (end == p || errno)
        return;              /* not a whole line: left out */
      t->regs[index[k]] = v;
      p = end;
    }
  t->tid = r->n_regs + 1;    /* gdb's registers carry no LWP id */
  t->n_regs = HI_GDB_NREGS;
  t->sp = t->regs[HI_GDB_REG_SP];
  t->fs_base = t->regs[HI_GDB_REG_FS_BASE];
  r->n_regs++;
}

/* heap export's words before its options: FORMAT, then FILE. */
static void
export_word (struct request *r, const char *w)
{
  char err[200], shown[80];
  switch (r->positional++)
    {
    case 0:
      /* The format list and the refusal come from the one option parser:
         "--format takes ..., not 'x'" becomes "export FORMAT takes ...". */
      if (hi_option_set (&r->opt, "format", w, err, sizeof err) != 0)
        snprintf (r->error, sizeof r->error, "heap: export FORMAT%s",
                  err + strlen ("--format"));
      break;
    case 1:
      if (!*w)
        snprintf (r->error, sizeof r->error, "heap: export needs a file "
                  "name: heap export FORMAT FILE [OPTIONS]");
      else if (strlen (w) >= sizeof r->file)
        snprintf (r->error, sizeof r->error, "heap: the file name is "
                  "too long");
      else
        strcpy (r->file, w);
      break;
    default:
      hi_escape (w, shown, sizeof shown);
      snprintf (r->error, sizeof r->error, "heap: unknown option '%.64s' "
                "(see help heap export)", shown);
    }
}

/* heap diff's word before its options: FILE, the snapshot. */
static void
diff_word (struct request *r, const char *w)
{
  char shown[80];
  if (r->positional++ == 0)
    {
      if (!*w)
        snprintf (r->error, sizeof r->error, "heap: diff needs a snapshot "
                  "file: heap diff FILE [OPTIONS]");
      else if (strlen (w) >= sizeof r->file)
        snprintf (r->error, sizeof r->error, "heap: the file name is "
                  "too long");
      else
        strcpy (r->file, w);
      return;
    }
  hi_escape (w, shown, sizeof shown);
  snprintf (r->error, sizeof r->error, "heap: unknown option '%.64s' "
            "(see help heap diff)", shown);
}

/* -t LIST: the tables to print. */
static void
set_tables (struct request *r, const char *list)
{
  if (r->diff)
    snprintf (r->error, sizeof r->error, "heap: diff prints its own "
              "tables: -t does not go with it");
  else if (strlen (list) >= sizeof r->tables || !hi_tables_valid (list))
    snprintf (r->error, sizeof r->error, "heap: -t takes a list of: %s",
              hi_table_names ());
  else
    {
      strcpy (r->tables, list);
      r->opt.tables_given = 1;
    }
}

/* Set report option NAME of R to VALUE (NULL: none) with the parser
   heapinspect(1) uses, or say why not. */
static void
set_option (struct request *r, const char *name, const char *value)
{
  char err[200];
  if (r->export && strcmp (name, "format") == 0)
    snprintf (r->error, sizeof r->error, "heap: export takes the format as "
              "its first word: heap export FORMAT FILE [OPTIONS]");
  else if (hi_option_set (&r->opt, name, value, err, sizeof err) != 0)
    snprintf (r->error, sizeof r->error, "heap: %s", err);
}

/* How much of word W the user typed: `heap NAME` hands its words on
   with a filler, " argN", for each word not given (see gen-heap-gdb.c),
   and a last word whose quote is never closed swallows them. */
static size_t
user_part (const char *w)
{
  size_t len = strlen (w);
  for (;;)
    {
      size_t d = len;
      while (d > 0 && w[d - 1] >= '0' && w[d - 1] <= '9')
        d--;
      if (d == len || d < 4 || strncmp (w + d - 4, " arg", 4) != 0)
        return len;
      len = d - 4;
    }
}

/* One word after the command, quoted as heap.gdb got it from gdb;
   *PENDING names an option still waiting for its value.  The options are
   heapinspect(1)'s, read by the same parser; the word is unquoted as the
   shell would, so the same words give the same values in both. */
static void
parse_word (struct request *r, char *w, const char **pending)
{
  char shown[80], raw[80];
  if (r->error[0])
    return;
  hi_escape (w, shown, sizeof shown);
  snprintf (raw, sizeof raw, "%.*s", (int) user_part (w), w);
  int unquoted = hi_unquote (w);
  if (unquoted != 0)
    {
      hi_escape (raw, shown, sizeof shown);
      if (unquoted == -1)
        snprintf (r->error, sizeof r->error, "heap: close the quote in '%s'",
                  shown);
      else
        snprintf (r->error, sizeof r->error, "heap: a \\ ends '%s': write "
                  "\\\\ for a backslash", shown);
      return;
    }
  if (*pending)
    {
      const char *name = *pending;
      *pending = NULL;
      if (strcmp (name, "-t") == 0)
        set_tables (r, w);
      else
        set_option (r, name, w);
      return;
    }
  if (w[0] == '-' && w[1] == 't')
    {
      if (w[2])
        set_tables (r, w + 2);
      else
        *pending = "-t";
      return;
    }
  if (w[0] == '-' && w[1] == '-' && w[2])
    {
      char *eq = strchr (w, '=');
      int takes_value;
      int id = hi_option_find (w + 2, eq ? (size_t) (eq - w - 2)
                               : strlen (w + 2), &takes_value);
      if (eq)
        *eq = '\0';
      hi_escape (w, shown, sizeof shown);
      if (id == -2)
        snprintf (r->error, sizeof r->error, "heap: '%.64s' names several "
                  "options (see help heap %s)", shown, r->name);
      else if (id < 0)
        snprintf (r->error, sizeof r->error, "heap: unknown option '%.64s' "
                  "(see help heap %s)", shown, r->name);
      else if (takes_value && !eq)
        *pending = hi_option_name (id);
      else
        set_option (r, hi_option_name (id), eq ? eq + 1 : NULL);
      return;
    }
  if (strcmp (r->name, "leaks") == 0 && w[0] >= '0' && w[0] <= '9')
    set_option (r, "depth", w);       /* heap leaks N */
  else if (r->export && (w[0] != '-' || !w[1]))
    export_word (r, w);
  else if (r->diff && (w[0] != '-' || !w[1]))
    diff_word (r, w);
  else
    {
      hi_escape (w, shown, sizeof shown);
      snprintf (r->error, sizeof r->error, "heap: unknown option '%.64s' "
                "(see help heap %s)", shown, r->name);
    }
}

/* Parse the request text TEXT (LEN bytes); 0 if it is a request. */
static int
parse_request (char *text, size_t len, struct request *r)
{
  memset (r, 0, sizeof *r);
  r->opt = (struct hi_options) HI_OPTIONS_DEFAULT;
  r->opt.gdb = 1;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\0')
      text[i] = '\n';
  text[len] = '\0';
  size_t tag = strlen (HI_GDB_REQUEST_TAG);
  if (strncmp (text, HI_GDB_REQUEST_TAG, tag) != 0)
    return -1;
  const char *pending = NULL;
  int known = 0;
  for (char *line = text, *next; line; line = next)
    {
      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      if (line == text)
        {
          snprintf (r->name, sizeof r->name, "%.15s", line + tag);
          for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
            known |= strcmp (commands[c].name, r->name) == 0;
          r->export = strcmp (r->name, "export") == 0;
          r->diff = strcmp (r->name, "diff") == 0;
          /* export's tables, in text and JSON, are heapinspect(1)'s;
             diff has tables of its own (hi_diff_report). */
          snprintf (r->tables, sizeof r->tables, "%s",
                    r->export ? HI_OPT_TABLES_DEFAULT
                    : r->diff ? "" : r->name);
        }
      else if (strncmp (line, "# arg ", 6) == 0)
        parse_word (r, line + 6, &pending);
      else if (strncmp (line, "# regs ", 7) == 0)
        parse_regs (r, line + 7);
      else if (strncmp (line, "# addr ", 7) == 0)
        {
          r->addr = strtoull (line + 7, NULL, 10);
          r->have_addr = 1;
        }
    }
  if (!known)
    snprintf (r->error, sizeof r->error, "heap: unknown request '%s'",
              r->name);
  else if (pending && !r->error[0] && strcmp (pending, "-t") == 0)
    snprintf (r->error, sizeof r->error, "heap: -t needs a value");
  else if (pending && !r->error[0])
    set_option (r, pending, NULL);     /* says what it needs */
  else if (strcmp (r->name, "block") == 0 && !r->have_addr && !r->error[0])
    snprintf (r->error, sizeof r->error, "heap: block needs an address");
  else if (r->export && r->positional < 2 && !r->error[0])
    {
      char formats[100];
      struct hi_options o = HI_OPTIONS_DEFAULT;
      hi_option_set (&o, "format", "", formats, sizeof formats);
      snprintf (r->error, sizeof r->error, "heap: export needs a format and "
                "a file: heap export FORMAT FILE [OPTIONS]; FORMAT%s",
                formats + strlen ("--format"));
    }
  else if (r->diff && r->positional < 1 && !r->error[0])
    snprintf (r->error, sizeof r->error, "heap: diff needs a snapshot file:"
              " heap diff FILE [OPTIONS]");
  else if (r->diff && r->opt.format != HI_TEXT && r->opt.format != HI_JSON
           && !r->error[0])
    snprintf (r->error, sizeof r->error, "heap: diff writes text or JSON: "
              "--format=text or --format=json");
  else if (!r->export && r->opt.format == HI_PPROF && !r->error[0])
    snprintf (r->error, sizeof r->error, "heap: --format=pprof is binary: "
              "write it to a file with heap export pprof FILE");
  /* A regular expression or a suppressions file heapinspect(1) would
     refuse: the same line, before the inferior is read. */
  hi_status s;
  if (!r->error[0] && (s = hi_filters_check (&r->opt, NULL)) != HI_OK)
    snprintf (r->error, sizeof r->error, "heap: %s", hi_strerror (s));
  return 0;
}

struct gdb_target
{
  struct gdb_symbol_callbacks *cb;
  uint64_t root;
};

static int
gdb_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct gdb_target *g = ctx;
  while (len > 0)
    {
      int n = len > (1u << 30) ? 1 << 30 : (int) len;
      if (g->cb->target_read ((GDB_CORE_ADDR) addr, buf, n) != GDB_SUCCESS)
        return -1;
      buf = (char *) buf + n;
      addr += (uint64_t) n;
      len -= (size_t) n;
    }
  return 0;
}

static int
gdb_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct gdb_target *g = ctx;
  if (strcmp (name, "heapinspect_root") != 0)
    return -1;
  *addr = g->root;
  return 0;
}

static const struct hi_target_ops gdb_ops = {
  gdb_read, gdb_symbol, NULL, NULL, NULL, NULL, NULL
};

/* heap export: the report of M in R's format into R's file, whole or
   not at all (an existing file is left as it was when anything fails);
   one line on OUT says where it went, or why not. */
static hi_status
export (const struct hi_model *m, const struct request *r, FILE *out)
{
  struct hi_outfile o;
  char shown[300];
  hi_escape (r->file, shown, sizeof shown);
  hi_status s = hi_outfile_open (&o, r->file);
  if (s == HI_OK)
    {
      s = hi_report (m, NULL, "inferior", r->tables, &r->opt, o.f, NULL);
      if (s == HI_OK)
        {
          struct stat st;
          int sized = fflush (o.f) == 0 && fstat (o.fd, &st) == 0
                      && S_ISREG (st.st_mode);
          s = hi_outfile_commit (&o);
          if (s == HI_OK && sized)
            fprintf (out, "heap: wrote %s (%lld bytes)\n", shown,
                     (long long) st.st_size);
          else if (s == HI_OK)
            fprintf (out, "heap: wrote %s\n", shown);
        }
      else
        hi_outfile_abort (&o);
    }
  if (s != HI_OK)
    fprintf (out, "heap: %s: %s\n", shown, hi_strerror (s));
  return s;
}

/* heap diff's OLD: the model of snapshot file PATH (named as the user
   named it, from gdb's working directory), or NULL with one line on OUT
   saying why not.  A note on OUT when it is incomplete. */
static struct hi_model *
load_snapshot (const char *path, FILE *out)
{
  char shown[300], why[600];
  struct hi_target t;
  struct hi_model *m = NULL;
  hi_escape (path, shown, sizeof shown);
  unsigned kind;
  hi_status s = hi_target_open_file (path, NULL, HI_FILE_SNAPSHOT, &t, &kind);
  if (s == HI_OK)
    {
      s = hi_model_load (&t, &m);
      /* The message before the close, which may fail on its own. */
      snprintf (why, sizeof why, "%s", hi_strerror (s));
      hi_target_close (&t);
    }
  else
    snprintf (why, sizeof why, "%s", hi_strerror (s));
  if (s == HI_E_NOT_SNAPSHOT)
    {
      /* A core is the likeliest mistake (heapinspect diff takes one):
         say that it is no snapshot either. */
      int elf = kind == HI_FILE_ELF;
      fprintf (out, "heap: %s: %s: heap diff compares a snapshot (.hip) "
               "with the inferior\n", shown,
               elf ? "an ELF file (a core or a program), not a heapinspect "
                     "snapshot" : hi_strerror (s));
      return NULL;
    }
  if (s != HI_OK)
    {
      fprintf (out, "heap: %s: %s\n", shown, why);
      hi_model_free (m);
      return NULL;
    }
  if (hi_model_damaged (m))
    {
      char damage[512];
      hi_model_damage_text (m, damage, sizeof damage);
      fprintf (out, "heap: %s: incomplete report: %s\n", shown, damage);
    }
  return m;
}

/* heap lost's target: the inferior's memory through gdb, the memory
   map of SIDE (the core file gdb reads, or the live process's
   /proc/PID/maps), the registers heap.gdb passed. */
struct lost_target
{
  struct hi_target inner;
  struct hi_target side;
  int have_side;
  const struct request *r;
};

static int
lost_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct lost_target *l = ctx;
  /* The scan reads all the writable memory: from the core file or the
     process directly when they hold it (the same bytes: find_side
     checked), far faster than gdb's reads; else through gdb. */
  if (l->have_side
      && l->side.ops->read_memory (l->side.ctx, addr, buf, len) == 0)
    return 0;
  return l->inner.ops->read_memory (l->inner.ctx, addr, buf, len);
}

static int
lost_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct lost_target *l = ctx;
  return l->inner.ops->lookup_symbol (l->inner.ctx, name, addr);
}

static int
lost_mapping (void *ctx, size_t i, struct hi_map_entry *out)
{
  struct lost_target *l = ctx;
  return l->side.ops->mapping ? l->side.ops->mapping (l->side.ctx, i, out)
                              : -1;
}

static int
lost_regs (void *ctx, size_t i, struct hi_thread_regs *out)
{
  struct lost_target *l = ctx;
  if (i >= l->r->n_regs)
    return -1;
  *out = l->r->regs[i];
  return 0;
}

static const struct hi_target_ops lost_ops = {
  lost_read, lost_symbol, NULL, NULL, NULL, lost_mapping, lost_regs
};
static const struct hi_target_ops lost_ops_no_map = {
  lost_read, lost_symbol, NULL, NULL, NULL, NULL, lost_regs
};

/* 1 if SIDE holds the same monitor root at ROOT as the inferior: the
   same process (the salt and the totals make it unique). */
static int
same_root (const struct hi_target *inner, const struct hi_target *side,
           uint64_t root)
{
  struct hi_root a, b;
  return inner->ops->read_memory (inner->ctx, root, &a, sizeof a) == 0
         && side->ops->read_memory (side->ctx, root, &b, sizeof b) == 0
         && memcmp (&a, &b, sizeof a) == 0;
}

/* Where the inferior's memory map is: the core file gdb has open (found
   among gdb's descriptors), else the live process the root names (its
   /proc/PID/maps); either only if it holds the inferior's root.  0 with
   *SIDE open, or -1. */
static int
find_side (const struct hi_target *inner, uint64_t root,
           struct hi_target *side)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;
  while (d && (e = readdir (d)) != NULL)
    {
      int fd = atoi (e->d_name);
      struct stat st;
      unsigned char h[EI_NIDENT + 2];
      if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd (d)
          || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
          || pread (fd, h, sizeof h, 0) != (ssize_t) sizeof h
          || memcmp (h, ELFMAG, SELFMAG) != 0
          || h[EI_NIDENT] + 256 * h[EI_NIDENT + 1] != ET_CORE)
        continue;
      char path[64];
      snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      if (hi_target_open_core (path, NULL, side) != HI_OK)
        continue;
      if (same_root (inner, side, root))
        {
          closedir (d);
          return 0;
        }
      hi_target_close (side);
    }
  if (d)
    closedir (d);
  struct hi_root r;
  if (inner->ops->read_memory (inner->ctx, root, &r, sizeof r) == 0
      && r.pid > 0 && r.pid < 0x7fffffff
      && hi_target_open_maps ((int) r.pid, side) == HI_OK)
    {
      if (same_root (inner, side, root))
        return 0;
      hi_target_close (side);
    }
  return -1;
}

/* heap lost: the --leak-check report of the inferior T (model M). */
static void
lost (struct gdb_target *g, const struct hi_target *t,
      const struct hi_model *m, const struct request *r, FILE *out)
{
  struct lost_target l = { *t, { NULL, NULL }, 0, r };
  l.have_side = find_side (t, g->root, &l.side) == 0;
  if (getenv ("HEAPINSPECT_GDB_DEBUG"))
    {
      uint64_t rt, mono;
      fprintf (out, "heap: debug: %zu threads' registers; memory map: %s\n",
               r->n_regs, !l.have_side ? "none"
               : hi_target_process_time (&l.side, &rt, &mono) == 0
               ? "the process" : "the core file");
    }
  struct hi_target lt = { l.have_side ? &lost_ops : &lost_ops_no_map, &l };
  unsigned missing = 0;
  hi_status s = hi_reach_report (&lt, m, NULL, "inferior", &r->opt, out,
                                 NULL, &missing);
  if (s == HI_E_NO_MEMORY)
    fprintf (out, "heap: lost needs the inferior's memory map, and it is "
             "not known here: %s\n", l.have_side
             ? "it cannot be read"
             : "neither a core file gdb reads nor a process on this "
               "machine holds this inferior (a remote target?)");
  else if (s != HI_OK)
    fprintf (out, "heap: %s\n", hi_strerror (s));
  if (l.have_side)
    hi_target_close (&l.side);
}

/* heap block's threads: the side's (a core's NT_PRSTATUS; a live
   process opened for its map has none: its stack is named by the map). */
static int
block_regs (void *ctx, size_t i, struct hi_thread_regs *out)
{
  struct lost_target *l = ctx;
  return l->side.ops->thread_regs ? l->side.ops->thread_regs (l->side.ctx, i,
                                                              out) : -1;
}

static const struct hi_target_ops block_ops = {
  lost_read, lost_symbol, NULL, NULL, NULL, lost_mapping, block_regs
};

/* heap block: what ADDR is in the inferior T (model M); with the memory
   map heap lost finds, stacks and unmapped addresses are named as
   heapinspect block names them on the same core. */
static hi_status
block (struct gdb_target *g, const struct hi_target *t,
       const struct hi_model *m, const struct request *r, FILE *out)
{
  struct lost_target l = { *t, { NULL, NULL }, 0, r };
  l.have_side = find_side (t, g->root, &l.side) == 0;
  struct hi_target bt = { &block_ops, &l };
  hi_status s = hi_block_report (l.have_side ? &bt : t, m, NULL, r->addr,
                                 &r->opt, out);
  if (l.have_side)
    hi_target_close (&l.side);
  return s;
}

/* Answer request R on the inferior, printing to OUT. */
static void
run (struct gdb_target *g, const struct request *r, FILE *out)
{
  if (r->error[0])
    {
      fprintf (out, "%s\n", r->error);
      return;
    }
  /* heap diff's snapshot first: a wrong file is said before the inferior
     is read. */
  struct hi_model *old = NULL;
  if (r->diff && !(old = load_snapshot (r->file, out)))
    return;
  struct hi_target direct = { &gdb_ops, g }, t;
  struct hi_gdb_cache *cache = hi_gdb_cache_open (&direct, g->root, &t);
  struct hi_model *m = NULL;
  hi_status s = hi_model_load (&t, &m);
  if (s == HI_E_NOT_READY)
    fprintf (out, "heap: the heapinspect monitor is loaded in this inferior "
             "but has recorded nothing yet: no allocation so far\n");
  else if (s != HI_OK)
    fprintf (out, "heap: the heapinspect data at 0x%" PRIx64 " cannot be "
             "used: %s\n", g->root, hi_strerror (s));
  else
    {
      if (hi_model_damaged (m))
        {
          char damage[512];
          hi_model_damage_text (m, damage, sizeof damage);
          fprintf (out, "heap: incomplete report: %s\n", damage);
        }
      if (strcmp (r->name, "lost") == 0)
        lost (g, &t, m, r, out);
      else if (r->have_addr)
        s = block (g, &t, m, r, out);
      else if (r->export)
        s = export (m, r, out);
      else if (r->diff)
        s = hi_diff_report (old, NULL, r->file, m, NULL, "inferior", &r->opt,
                            out);
      else
        s = hi_report (m, NULL, "inferior", r->tables, &r->opt, out, NULL);
      /* The request refused the formats diff cannot write; should it
         refuse more, not "unknown table". */
      if (s == HI_E_USAGE && r->diff)
        fprintf (out, "heap: diff cannot write this format\n");
      else if (s != HI_OK && s != HI_E_NOT_BLOCK && !r->export)
        fprintf (out, "heap: %s\n", hi_strerror (s));
    }
  hi_model_free (m);
  hi_model_free (old);
  hi_gdb_cache_close (cache, out);
}

/* TEXT as gdb commands that print it: `echo` with escapes, one a line. */
static void
as_echo_script (const char *text, size_t len, FILE *out)
{
  const char *p = text, *end = text + len;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      const char *stop = nl ? nl : end;
      fputs ("echo ", out);
      for (const char *c = p; c < stop; c++)
        {
          if (*c == '\\' || (c == p && (*c == ' ' || *c == '\t')))
            fputc ('\\', out);
          fputc (*c, out);
        }
      fputs (nl ? "\\n\n" : "\n", out);
      p = nl ? nl + 1 : end;
    }
}

/* The blob at the end of the monitor's JIT entry (an ELF object made by
   lib/jit.c, or the bare blob of older monitors); 0 if it is ours. */
static int
our_blob (const void *memory, long memory_sz, struct hi_jit_blob *blob)
{
  if (memory_sz < (long) sizeof *blob)
    return -1;
  memcpy (blob, (const char *) memory + memory_sz - sizeof *blob,
          sizeof *blob);
  return blob->magic == HI_JIT_MAGIC ? 0 : -1;
}

static enum gdb_status
read_entry (struct gdb_reader_funcs *self, struct gdb_symbol_callbacks *cb,
            void *memory, long memory_sz)
{
  struct hi_jit_blob blob;
  (void) self;
  if (our_blob (memory, memory_sz, &blob) != 0)
    return GDB_FAIL;             /* not ours: gdb's own reader takes it */

  char req_text[16384], more;
  ssize_t n = pread (CHANNEL_FD, req_text, sizeof req_text - 1, 0);
  struct request req;
  if (n <= 0 || parse_request (req_text, (size_t) n, &req) != 0)
    return GDB_SUCCESS;          /* loaded with no request pending */
  if ((size_t) n == sizeof req_text - 1
      && pread (CHANNEL_FD, &more, 1, n) == 1)
    snprintf (req.error, sizeof req.error, "heap: the words after heap %s "
              "are too long", req.name);

  char *text = NULL, *script = NULL;
  size_t text_len = 0, script_len = 0;
  FILE *out = open_memstream (&text, &text_len);
  if (!out)
    return GDB_SUCCESS;
  struct gdb_target g = { cb, blob.root_addr };
  run (&g, &req, out);
  fclose (out);
  free (req.regs);
  out = open_memstream (&script, &script_len);
  if (out)
    {
      as_echo_script (text, text_len, out);
      fclose (out);
      if (ftruncate (CHANNEL_FD, 0) != 0
          || pwrite (CHANNEL_FD, script, script_len, 0) != (ssize_t) script_len)
        fprintf (stderr, "heap: cannot write the answer: %s\n",
                 strerror (errno));
    }
  free (text);
  free (script);
  return GDB_SUCCESS;            /* no object: gdb creates no objfile */
}

static enum gdb_status
unwind (struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
  (void) self;
  (void) cb;
  return GDB_FAIL;               /* we describe no code */
}

static struct gdb_frame_id
frame_id (struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
  struct gdb_frame_id id = { 0, 0 };
  (void) self;
  (void) cb;
  return id;
}

/* The channel stays open: heap.gdb unloads and reloads the plugin for
   every command, and the request must survive that. */
static void
destroy (struct gdb_reader_funcs *self)
{
  (void) self;
}

static struct gdb_reader_funcs funcs = {
  GDB_READER_INTERFACE_VERSION, NULL, read_entry, unwind, frame_id, destroy
};

/* What gdb_init_reader returns when the plugin cannot work: gdb 13
   crashes on NULL, and refuses a reader of another version with an error
   that ends the command, after our line saying why. */
static struct gdb_reader_funcs refused = {
  0, NULL, read_entry, unwind, frame_id, destroy
};

/* 1 if CHANNEL_FD is the channel an earlier load of ours opened: a memfd
   named CHANNEL_NAME, or an unlinked file .../heapinspect-gdb.XXXXXX/...,
   regular, of our user, mode 0600. */
static int
is_our_channel (void)
{
  char link[64], target[4200];
  struct stat st;
  snprintf (link, sizeof link, "/proc/self/fd/%d", CHANNEL_FD);
  ssize_t n = readlink (link, target, sizeof target - 1);
  if (n <= 0 || fstat (CHANNEL_FD, &st) != 0)
    return 0;
  target[n] = '\0';
  return S_ISREG (st.st_mode) && st.st_uid == getuid () && st.st_nlink == 0
         && (st.st_mode & 0777) == 0600
         && (strncmp (target, "/memfd:" CHANNEL_NAME " ", 8 + strlen (CHANNEL_NAME)) == 0
             || strstr (target, "/heapinspect-gdb.") != NULL);
}

/* A new nameless file: a memfd, else an unlinked file in a private
   directory under $TMPDIR or /tmp.  -1 with a reason in WHY. */
static int
new_channel_file (char *why, size_t why_size)
{
  int fd = memfd_create (CHANNEL_NAME, MFD_CLOEXEC);
  if (fd >= 0)
    {
      if (fchmod (fd, 0600) == 0)
        return fd;
      close (fd);
    }
  const char *tmp = getenv ("TMPDIR");
  const char *dirs[] = { tmp && *tmp ? tmp : "/tmp", "/tmp" };
  for (int i = 0; i < 2; i++)
    {
      char dir[4096], path[4200];
      snprintf (dir, sizeof dir, "%s/heapinspect-gdb.XXXXXX", dirs[i]);
      if (!mkdtemp (dir))
        {
          snprintf (why, why_size, "cannot create a directory in %.300s: %s",
                    dirs[i], strerror (errno));
          continue;
        }
      snprintf (path, sizeof path, "%s/channel", dir);
      fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0600);
      if (fd < 0)
        snprintf (why, why_size, "cannot create a file in %.300s: %s", dir,
                  strerror (errno));
      else
        unlink (path);
      rmdir (dir);
      if (fd >= 0)
        return fd;
    }
  return -1;
}

/* Have the channel at CHANNEL_FD, or say in WHY why not. */
static int
open_channel (char *why, size_t why_size)
{
  if (fcntl (CHANNEL_FD, F_GETFD) != -1)
    {
      if (is_our_channel ())
        return 0;
      snprintf (why, why_size, "descriptor %d is already open in gdb, on "
                "something else", CHANNEL_FD);
      return -1;
    }
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= CHANNEL_FD)
    {
      /* gdb raises its own soft limit to the hard one at start. */
      snprintf (why, why_size, "gdb may open at most %llu files (ulimit -n),"
                " and it needs descriptor %d", (unsigned long long) rl.rlim_cur,
                CHANNEL_FD);
      return -1;
    }
  int fd = new_channel_file (why, why_size);
  if (fd < 0)
    return -1;
  int r = dup3 (fd, CHANNEL_FD, O_CLOEXEC);
  int err = errno;
  close (fd);
  if (r != CHANNEL_FD)
    {
      snprintf (why, why_size, "cannot use descriptor %d: %s", CHANNEL_FD,
                strerror (err));
      return -1;
    }
  return 0;
}

EXPORT struct gdb_reader_funcs *
gdb_init_reader (void)
{
  char why[512] = "unknown reason";
  if (open_channel (why, sizeof why) == 0)
    return &funcs;
  fprintf (stderr, "heap: heapinspect's gdb plugin cannot start: %s\n", why);
  fflush (stderr);
  return &refused;
}
