/* gen-heap-gdb.c - writes heap.gdb and heap-run.gdb at build time, from
   heap.gdb.in and protocol.h:

     gen-heap-gdb heap RUN < heap.gdb.in > heap.gdb
     gen-heap-gdb run PLUGIN > heap-run.gdb

   heap.gdb is what gdb reads at start: the commands' names, their help
   and a two-line body each.  It fills in @RUN@ (heap-run.gdb's path) and
   @COMMANDS@ (the commands); a table heap.gdb.in does not document gets
   a short help of its own, so every `heap NAME` has one.  gdb reads a
   command file a byte at a time (a read() and a select() each), so every
   byte of heap.gdb is start-up time (bench/gdb-startup measures it): the
   commands' work is in heap-run.gdb, which each command's first line,
   `heap _ load`, reads at the first one (it is then redefined to do
   nothing).  The command names, the descriptors and the request format
   come from protocol.h and the registry of tables only.

   Why the commands look as they do (gdb 13, no Python):
   - gdb pastes a user command's arguments as text and has no "all the
     arguments" form, so `heap NAME` hands its words on with `eval`, whose
     result gdb substitutes once more: "%carg0" becomes "$arg0" (36 is '$')
     when the word exists and "arg0", ignored, when it does not; the
     count comes first.  No convenience variable is made.
   - the helpers are subcommands of `heap _`, a deprecated prefix: hidden
     from help and completion, and never warned about (only a deprecated
     command itself is).
   - every expression is evaluated in C with function calls forbidden
     (`with language c -- with may-call-functions off`), whatever the
     user's language: a Rust string literal, for one, would call malloc in
     the inferior.  `with` restores both settings however the command ends.
   - a word reaches the channel through a setting, never through a
     string literal or an expression (see write_words).
   - `frame apply 1 -q` runs the plugin steps and restores the selected
     thread and frame however they end (error, Ctrl-C, pager quit).
   - gdb has no command that raises an error of one's own: a failed
     command prints its line, then has a shell send gdb SIGINT, and gdb
     stops as on Ctrl-C ("Quit", see protocol.h), so that scripts,
     breakpoint commands and gdb -batch stop there too; with no process,
     or a running thread, it ends with the error `info registers` gives
     then. */
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR1(x) #x
#define STR(x) STR1 (x)
#define CHANNEL "/proc/self/fd/" STR (HI_GDB_CHANNEL_FD)
#define MAPS "/proc/self/fd/" STR (HI_GDB_MAPS_FD)
/* Where a word is put down on its way into the channel (gdb >= 10). */
#define WORD_SETTING "test-settings string-noescape"
/* Scratch number: the running thread's probe and the words' counter;
   the flag the answer sets (protocol.h) is zinteger. */
#define COUNTER "test-settings zuinteger"
/* A command that always fails, changing nothing: its caller's output,
   held by frame apply or thread apply -s, is then dropped. */
#define ALWAYS_FAILS "maintenance set test-settings enum -"

/* The words of `heap NAME`: " $argc %carg0 ... %carg15", then the
   values for the %c: '$' for each word given. */
static void
words_of_command (const char *head)
{
  printf ("\"%s $argc", head);
  for (int i = 0; i < HI_GDB_MAX_WORDS; i++)
    printf (" %%carg%d", i);
  printf ("\"");
  for (int i = 0; i < HI_GDB_MAX_WORDS; i++)
    printf (", $argc>%d?36:0", i);
  printf ("\n");
}

/* `heap NAME`: read heap-run.gdb at the first command, then heap _ do
   (and for heap block heap _ addr), in C. */
static void
top_command (const char *name, enum hi_gdb_kind kind)
{
  printf ("with confirm off -- define heap %s\n  heap _ load\n", name);
  if (kind == HI_GDB_EXPR)
    {
      /* heap _ do needs only the count; heap _ addr the words. */
      printf ("  with language c -- heap _ do %s %d $argc\n"
              "  with language c -- eval ", name,
              (int) kind);
      words_of_command ("heap _ addr");
    }
  else
    {
      char head[64];
      snprintf (head, sizeof head, "heap _ do %s %d", name, (int) kind);
      printf ("  with language c -- eval ");
      words_of_command (head);
    }
  printf ("end\n");
}

/* The help of table NAME, unless heap.gdb.in (IN, a string) has one. */
static void
table_document (const char *name, const char *in)
{
  char head[64];
  snprintf (head, sizeof head, "\ndocument heap %s\n", name);
  if (strstr (in, head))
    return;
  printf ("document heap %s\n"
          "Print the %s table of heapinspect(1).\n"
          "Usage: heap %s [OPTIONS]\n"
          "The same as heapinspect -t %s on a core of this moment.\n"
          "OPTIONS: see help heap.\n"
          "end\n", name, name, name, name);
}

/* @COMMANDS@: the commands, and the help of the tables IN does not
   document. */
static void
commands (const char *in)
{
#define TABLE(id, name, build, names) top_command (name, HI_GDB_WORDS);
  HI_TABLES (TABLE)
#undef TABLE
#define OTHER(name, kind) top_command (#name, HI_GDB_##kind);
  HI_GDB_OTHER_COMMANDS (OTHER)
#undef OTHER
#define TABLE(id, name, build, names) table_document (name, in);
  HI_TABLES (TABLE)
#undef TABLE
}

/* heap _ do's checks before the plugin runs: a process, a stopped thread.
   Each failure says what to do, then ends with gdb's own error. */
static void
checks (void)
{
  printf ("  if $_thread == 0\n"
          "    echo heap: no process or core file: run the program, attach"
          " to it, or open a core\\n\n"
          "    info registers rip\n"
          "  end\n"
          "  eval \"thread apply %%d -q -s -- heap _ probe\", $_thread\n"
          "  if $_gdb_maint_setting(\"" COUNTER "\") == 0\n"
          "    echo heap: the selected thread is running: interrupt it"
          " (interrupt, or Ctrl-C) or select a stopped thread\\n\n"
          "    info registers rip\n"
          "  end\n");
}

/* heap _ probe, in the selected thread (thread apply -s): the counter is
   1 if the thread is stopped ($pc fails in a running one).  The first
   command run in C in a frame of another language prints gdb's warning
   that the language does not match the frame, once: here, where the
   failure at the end has thread apply drop what was printed. */
static void
probe (void)
{
  printf ("with confirm off -- define heap _ probe\n"
          "  maintenance set " COUNTER " 0\n"
          "  maintenance set " COUNTER " $pc != 0\n"
          "  " ALWAYS_FAILS "\n"
          "end\n");
}

/* Options (not heap block's expression, which heap _ addr evaluates):
   each word on its own line of the request, "# arg WORD",
   byte for byte.  gdb pastes $argN as text, so the word must land where
   gdb reads the rest of the line as it is: a string setting without
   escapes.  The maintenance test setting is gdb's only one nobody else
   uses; its value is dumped as a string value, never parsed.  Pasted
   into a string literal, a " or \ in a word would end the literal or
   vanish, and what followed would be evaluated.  The line starts with
   "#": sourced, the request is comments only. */
static void
write_words (void)
{
  printf ("  maintenance set " COUNTER " 0\n"
          "  while $arg1 != %d && $arg2 <= %d"
          " && $_gdb_maint_setting(\"" COUNTER "\") < $arg2\n"
          "    eval \"maintenance set " WORD_SETTING " # arg $arg%%d\","
          " $_gdb_maint_setting(\"" COUNTER "\") + 3\n"
          "    append binary value " CHANNEL " \"\\n\"\n"
          "    append binary value " CHANNEL " $_gdb_maint_setting_str(\""
          WORD_SETTING "\")\n"
          "    maintenance set " COUNTER " $_gdb_maint_setting(\"" COUNTER
          "\") + 1\n"
          "  end\n"
          "  maintenance set " WORD_SETTING "\n", HI_GDB_EXPR, HI_GDB_MAX_WORDS);
}

/* heap _ regs: in each thread (thread apply, frame 0), its number, then
   its registers (numbers only), which fail in a running thread.  It
   always fails at the end, so that thread apply -s drops what it
   printed (gdb's language warning in a frame that is not C's). */
static void
thread_registers (void)
{
  printf ("with confirm off -- define heap _ regs\n"
          "  eval \"append binary value " CHANNEL " \\\"\\\\n# thread %%d\\\"\","
          " $_thread\n"
          "  eval \"append binary value " CHANNEL " \\\"\\\\n# regs %%d");
#define FMT(name, index) printf (" %%lu");
  HI_GDB_REGS (FMT)
#undef FMT
  printf ("\\\"\", $_thread");
#define ARG(name, index) printf (", (unsigned long) $" #name);
  HI_GDB_REGS (ARG)
#undef ARG
  printf ("\n  " ALWAYS_FAILS "\nend\n");
}

/* heap-run.gdb, naming the plugin PLUGIN. */
static void
run_file (const char *plugin)
{
  printf ("# heap-run.gdb - the work of the heap commands, which heap.gdb"
          " reads at\n# the first one.  Made by gen-heap-gdb"
          " (gdbplugin/gen-heap-gdb.c).\n");
  printf ("with confirm off -- define heap _ load\nend\n");

  /* heap _ do NAME KIND COUNT WORDS...: the request, and for all but
     heap block (whose address heap _ addr adds) the answer. */
  printf ("with confirm off -- define heap _ do\n");
  checks ();
  printf (/* Unload any JIT reader (ours, left by an interrupted
             command), then check that the plugin can start before
             anything is written to its descriptor: if it cannot, loading
             fails with its reason. */
          "  frame apply 1 -q -s -- jit-reader-unload\n"
          "  frame apply 1 -q -- jit-reader-load %s\n"
          "  frame apply 1 -q -- jit-reader-unload\n"
          "  dump binary value " CHANNEL " \"" HI_GDB_REQUEST_TAG
          "$arg0 $arg2\"\n", plugin);
  write_words ();
  printf ("  if $arg1 != %d\n"
          "    if $_gdb_setting(\"logging enabled\") == 0\n"
          "      with logging file " MAPS " -- with logging overwrite on --"
          " with logging redirect on -- with logging enabled on --"
          " frame apply 1 -q -s -- info proc mappings\n"
          "    end\n"
          "  end\n"
          "  if $arg1 != %d\n"
          "    eval \"thread apply %%d.* -q -s -- heap _ regs\", $_inferior\n"
          "  end\n"
          "  if $arg1 != %d || $arg2 == 0 || $arg2 > %d\n"
          "    heap _ answer $arg1\n"
          "  end\n"
          "end\n", HI_GDB_WORDS, HI_GDB_WORDS, HI_GDB_EXPR,
          HI_GDB_MAX_WORDS);

  /* heap _ addr COUNT WORDS...: heap block's expression, its words
     pasted back together, evaluated by gdb with no call into the
     inferior. */
  printf ("with confirm off -- define heap _ addr\n");
  for (int n = 1; n <= HI_GDB_MAX_WORDS; n++)
    {
      printf ("  if $arg0 == %d\n    with may-call-functions off -- eval "
              "\"append binary value " CHANNEL " \\\"\\\\n# addr %%lu\\\"\", "
              "(unsigned long) (", n);
      for (int i = 1; i <= n; i++)
        printf ("%s$arg%d", i > 1 ? " " : "", i);
      printf (")\n  end\n");
    }
  printf ("  heap _ answer %d\n"
          "end\n", HI_GDB_EXPR);

  /* heap _ answer KIND: the plugin answers the request (a failure ends
     as a gdb error there); or it never ran: no monitor's JIT entry.
     Loading the plugin makes gdb hand it the monitor's JIT entry; it
     answers the request in the channel, which is then read as commands.
     With none, the request gets the map and the threads' registers (what
     KIND did not give), and the tag for glibc's heap; loaded again, the
     plugin answers when gdb asks it to unwind frame 0 (jit-reader-load
     forgets the frames: the load's frame apply finds frame 0 again, and
     the frame apply after it, for a frame 0 an inlined function's, the
     frames above).  The plugin stays loaded: it hands a program's own
     JIT entries back to gdb, which would forget their symbols on an
     unload. */
  printf ("with confirm off -- define heap _ answer\n"
          "  maintenance set test-settings zinteger 0\n"
          "  frame apply 1 -q -- jit-reader-load %s\n"
          "  source " CHANNEL "\n"
          "  if $_gdb_maint_setting(\"test-settings zinteger\") == 0\n"
          "    if $arg0 == %d && $_gdb_setting(\"logging enabled\") == 0\n"
          "      with logging file " MAPS " -- with logging overwrite on --"
          " with logging redirect on -- with logging enabled on --"
          " frame apply 1 -q -s -- info proc mappings\n"
          "    end\n"
          "    if $arg0 == %d\n"
          "      eval \"thread apply %%d.* -q -s -- heap _ regs\", $_inferior\n"
          "    end\n"
          "    append binary value " CHANNEL " \"\\n" HI_GDB_GLIBC_TAG "\"\n"
          "    frame apply 1 -q -s -- jit-reader-unload\n"
          "    frame apply 1 -q -- jit-reader-load %s\n"
          "    frame apply 3 -q -s -- heap _ load\n"
          "    source " CHANNEL "\n"
          "  end\n"
          "  if $_gdb_maint_setting(\"test-settings zinteger\") == 0\n"
          "    echo heap: no heapinspect data in this inferior, and glibc's"
          " heap could not be read here; run it with"
          " LD_PRELOAD=.../libheapinspect.so\\n\n"
          /* Loaded again with the channel saying so, the plugin puts
             there what makes gdb stop (protocol.h). */
          "    dump binary value " CHANNEL " \"" HI_GDB_QUIT_TAG "\"\n"
          "    frame apply 1 -q -- jit-reader-unload\n"
          "    frame apply 1 -q -- jit-reader-load %s\n"
          "    source " CHANNEL "\n"
          "  end\n"
          "end\n", plugin, HI_GDB_WORDS, HI_GDB_WORDS, plugin, plugin);
  probe ();
  thread_registers ();
}

/* All of standard input as a string, or NULL. */
static char *
read_input (void)
{
  size_t len = 0, cap = 0, n;
  char *in = NULL;
  do
    {
      if (cap - len < 4096)
        {
          char *more = realloc (in, 2 * cap + 4096);
          if (!more)
            {
              free (in);
              return NULL;
            }
          in = more;
          cap = 2 * cap + 4096;
        }
      n = fread (in + len, 1, cap - len - 1, stdin);
      len += n;
    }
  while (n > 0);
  if (ferror (stdin))
    {
      free (in);
      return NULL;
    }
  in[len] = '\0';
  return in;
}

/* heap.gdb from heap.gdb.in on standard input, reading heap-run.gdb at
   RUN. */
static int
heap_file (const char *run)
{
  char *in = read_input ();
  if (!in)
    {
      fputs ("gen-heap-gdb: cannot read heap.gdb.in\n", stderr);
      return 1;
    }
  for (char *line = in, *next; *line; line = next)
    {
      next = strchr (line, '\n');
      next = next ? next + 1 : line + strlen (line);
      if (strncmp (line, "@COMMANDS@\n", 11) == 0)
        commands (in);
      else
        for (char *p = line; p < next; )
          {
            if (strncmp (p, "@RUN@", 5) == 0)
              fputs (run, stdout), p += 5;
            else
              putchar (*p++);
          }
    }
  free (in);
  return 0;
}

int
main (int argc, char **argv)
{
  int r;
  if (argc == 3 && strcmp (argv[1], "heap") == 0)
    r = heap_file (argv[2]);
  else if (argc == 3 && strcmp (argv[1], "run") == 0)
    {
      run_file (argv[2]);
      r = 0;
    }
  else
    {
      fputs ("usage: gen-heap-gdb heap RUN < heap.gdb.in > heap.gdb\n"
             "       gen-heap-gdb run PLUGIN > heap-run.gdb\n", stderr);
      return 2;
    }
  return r || ferror (stdout) || fflush (stdout) != 0;
}
