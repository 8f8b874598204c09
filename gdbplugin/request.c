/* request.c - the request a heap command writes into the channel
   (protocol.h), parsed into a struct hi_gdb_request: the command, its
   words read as heapinspect(1)'s options by the reader's one parser and
   refused as heapinspect(1) refuses them, an address, the threads and
   their registers. */
#include "plugin.h"
#include "protocol.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The heap commands (protocol.h): the tables', then the others. */
static const char *const commands[] = {
#define TABLE(id, name, build, names) name,
  HI_TABLES (TABLE)
#undef TABLE
#define OTHER(name, kind) #name,
  HI_GDB_OTHER_COMMANDS (OTHER)
#undef OTHER
};
#define TABLE(id, table, build, names) \
  _Static_assert (sizeof table <= sizeof ((struct hi_gdb_request *) 0)->name, \
                  "heap " table ": the request keeps 15 characters");
HI_TABLES (TABLE)
#undef TABLE

/* Room for one more element in the array *P of *N elements of SIZE
   bytes (*CAP allocated): 0, or -1 when out of memory. */
static int
grow (void **p, size_t *n, size_t *cap, size_t size)
{
  if (*n < *cap)
    return 0;
  size_t c = *cap ? 2 * *cap : 16;
  void *g = realloc (*p, c * size);
  if (!g)
    return -1;
  *p = g;
  *cap = c;
  return 0;
}

/* A "# thread N" line: gdb's number of a thread of the inferior. */
static void
parse_thread (struct hi_gdb_request *r, const char *line)
{
  char *end;
  unsigned long long n = strtoull (line, &end, 10);
  if (end != line
      && grow ((void **) &r->threads, &r->n_threads, &r->cap_threads,
               sizeof *r->threads) == 0)
    r->threads[r->n_threads++] = n;
}

/* A "# regs N ..." line: thread N's registers, kept in R. */
static void
parse_regs (struct hi_gdb_request *r, const char *line)
{
  static const int index[] = {
#define INDEX(name, i) i,
    HI_GDB_REGS (INDEX)
#undef INDEX
  };
  if (grow ((void **) &r->regs, &r->n_regs, &r->cap_regs,
            sizeof *r->regs) != 0)
    return;
  struct hi_thread_regs *t = &r->regs[r->n_regs];
  memset (t, 0, sizeof *t);
  const char *p = line;
  char *end;
  errno = 0;
  t->tid = strtoull (p, &end, 10);      /* gdb's thread number */
  if (end == p || errno)
    return;
  p = end;
  for (size_t k = 0; k < sizeof index / sizeof index[0]; k++)
    {
      errno = 0;
      unsigned long long v = strtoull (p, &end, 10);
      if (end == p || errno)
        return;              /* not a whole line: left out */
      t->regs[index[k]] = v;
      p = end;
    }
  t->n_regs = HI_GDB_NREGS;
  t->sp = t->regs[HI_GDB_REG_SP];
  t->fs_base = t->regs[HI_GDB_REG_FS_BASE];
  r->n_regs++;
}

/* heap export's words before its options: FORMAT, then FILE. */
static void
export_word (struct hi_gdb_request *r, const char *w)
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
diff_word (struct hi_gdb_request *r, const char *w)
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

/* -t LIST: the tables to print (LIST is kept: it lies in the request's
   text). */
static void
set_tables (struct hi_gdb_request *r, const char *list)
{
  if (!hi_tables_valid (list))
    snprintf (r->error, sizeof r->error, "heap: -t takes a list of: %s",
              hi_table_names ());
  else
    {
      r->tables = list;
      r->opt.tables_given = 1;
    }
}

/* Set report option NAME of R to VALUE (NULL: none) with the parser
   heapinspect(1) uses, or say why not. */
static void
set_option (struct hi_gdb_request *r, const char *name, const char *value)
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
parse_word (struct hi_gdb_request *r, char *w, const char **pending)
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


/* The first line: the command NAME and COUNT, the words the user gave.
   R prints NAME's table unless its words say otherwise.  0, or -1 if
   NAME is no heap command. */
static int
set_command (struct hi_gdb_request *r, const char *line)
{
  int known = 0;
  size_t len = strcspn (line, " ");
  snprintf (r->name, sizeof r->name, "%.*s", (int) (len < 15 ? len : 15),
            line);
  r->count = line[len] ? atoi (line + len + 1) : 0;
  for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
    known |= len < sizeof r->name && strcmp (commands[c], r->name) == 0;
  r->export = strcmp (r->name, "export") == 0;
  r->diff = strcmp (r->name, "diff") == 0;
  r->lost = strcmp (r->name, "lost") == 0;
  r->verify = strcmp (r->name, "verify") == 0;
  r->ref = strcmp (r->name, "ref") == 0;
  r->attach = strcmp (r->name, "attach") == 0;
  /* export's tables, in text and JSON, are heapinspect(1)'s; diff and
     lost have tables of their own (hi_diff_report, hi_reach_report). */
  for (size_t c = 0; c < HI_NTABLES; c++)
    if (strcmp (commands[c], r->name) == 0)
      r->tables = commands[c];
  if (!r->tables)
    r->tables = r->export ? HI_OPT_TABLES_DEFAULT : "";
  return known ? 0 : -1;
}

/* Once every line is read: what is missing or does not go together, in
   R->error unless an earlier word set it.  PENDING as parse_word's. */
static void
check_request (struct hi_gdb_request *r, int known, const char *pending)
{
  char why[200];
  if (!known)
    snprintf (r->error, sizeof r->error, "heap: unknown request '%s'",
              r->name);
  else if (r->count > HI_GDB_MAX_WORDS)
    snprintf (r->error, sizeof r->error, "heap: at most %d words after "
              "heap %s", HI_GDB_MAX_WORDS, r->name);
  else if (strcmp (r->name, "block") == 0 && r->count == 0)
    snprintf (r->error, sizeof r->error, "Usage: heap block EXPRESSION");
  else if (r->ref && r->count == 0)
    snprintf (r->error, sizeof r->error, "Usage: heap ref EXPRESSION");
  if (r->error[0])
    return;
  if (pending && strcmp (pending, "-t") == 0)
    snprintf (r->error, sizeof r->error, "heap: -t needs a value");
  else if (pending)
    set_option (r, pending, NULL);     /* says what it needs */
  else if ((strcmp (r->name, "block") == 0 || r->ref) && !r->have_addr)
    snprintf (r->error, sizeof r->error, "heap: %s needs an address",
              r->name);
  else if (r->export && r->positional < 2)
    {
      char formats[100];
      struct hi_options o = HI_OPTIONS_DEFAULT;
      hi_option_set (&o, "format", "", formats, sizeof formats);
      snprintf (r->error, sizeof r->error, "heap: export needs a format and "
                "a file: heap export FORMAT FILE [OPTIONS]; FORMAT%s",
                formats + strlen ("--format"));
    }
  else if (r->diff && r->positional < 1)
    snprintf (r->error, sizeof r->error, "heap: diff needs a snapshot file:"
              " heap diff FILE [OPTIONS]");
  /* diff and lost print tables of their own, in text or JSON: what
     heapinspect diff and --leak-check refuse, with the same words. */
  else if ((r->diff || r->lost || r->verify || r->ref)
           && hi_own_report_check (&r->opt, r->name, why, sizeof why) != 0)
    snprintf (r->error, sizeof r->error, "heap: %s", why);
  else if (!r->export && r->opt.format == HI_PPROF)
    snprintf (r->error, sizeof r->error, "heap: --format=pprof is binary: "
              "write it to a file with heap export pprof FILE");
  /* A regular expression or a suppressions file heapinspect(1) would
     refuse: the same line, before the inferior is read. */
  hi_status s;
  if (!r->error[0] && (s = hi_filters_check (&r->opt, NULL)) != HI_OK)
    snprintf (r->error, sizeof r->error, "heap: %s", hi_strerror (s));
}

int
hi_gdb_request_parse (char *text, size_t len, struct hi_gdb_request *r)
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
  size_t words_len = 0;
  for (char *line = text, *next; line; line = next)
    {
      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      if (line == text)
        known = set_command (r, line + tag) == 0;
      else if (strncmp (line, "# arg ", 6) == 0
               && (words_len += strlen (line)) > HI_GDB_MAX_WORDS_LEN)
        {
          if (!r->error[0])
            snprintf (r->error, sizeof r->error, "heap: the words after "
                      "heap %s are too long", r->name);
        }
      else if (strncmp (line, "# arg ", 6) == 0)
        parse_word (r, line + 6, &pending);
      else if (strncmp (line, "# regs ", 7) == 0)
        parse_regs (r, line + 7);
      else if (strncmp (line, "# thread ", 9) == 0)
        parse_thread (r, line + 9);
      else if (strcmp (line, HI_GDB_GLIBC_TAG) == 0)
        r->glibc = 1;
      else if (strncmp (line, "# addr ", 7) == 0)
        {
          r->addr = strtoull (line + 7, NULL, 10);
          r->have_addr = 1;
        }
    }
  check_request (r, known, pending);
  return 0;
}

void
hi_gdb_request_free (struct hi_gdb_request *r)
{
  free (r->regs);
  r->regs = NULL;
  r->n_regs = r->cap_regs = 0;
  free (r->threads);
  r->threads = NULL;
  r->n_threads = r->cap_threads = 0;
}
