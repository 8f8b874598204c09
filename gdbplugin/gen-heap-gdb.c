/* gen-heap-gdb.c - writes heap.gdb from heap.gdb.in and protocol.h, at
   build time: `gen-heap-gdb PLUGIN < heap.gdb.in > heap.gdb`.  It fills
   in @PLUGIN@ (the plugin's path), @CHANNEL@ (the descriptor's path) and
   @COMMANDS@ (the heap commands and their hidden helpers), so the command
   names, the descriptor and the request format come from protocol.h and
   the registry of tables only.  A table heap.gdb.in does not document
   gets a short help of its own, so every `heap NAME` has one.

   Why the commands look as they do (gdb 13, no Python):
   - gdb pastes a user command's arguments as text and has no "all the
     arguments" form, so `heap NAME` hands its words on with `eval`, whose
     result gdb substitutes once more: "%carg0" becomes "$arg0" (36 is '$')
     when the word exists and "arg0", ignored, when it does not.
   - every expression is evaluated in C with function calls forbidden
     (`with language c -- with may-call-functions off`), whatever the
     user's language: a Rust string literal, for one, would call malloc in
     the inferior.  `with` restores both settings however the command ends.
   - a word reaches the channel through a setting, never through a
     string literal or an expression (see helpers below).
   - `frame apply 1 -q` runs the plugin steps and restores the selected
     thread and frame however they end (error, Ctrl-C, pager quit). */
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR1(x) #x
#define STR(x) STR1 (x)
#define CHANNEL "/proc/self/fd/" STR (HI_GDB_CHANNEL_FD)
/* Where a word is put down on its way into the channel (gdb >= 10). */
#define WORD_SETTING "test-settings string-noescape"

static void
top_command (const char *name, const char *helper)
{
  printf ("with confirm off -- define heap %s\n  with language c -- with may-call-functions off"
          " -- eval \"heap %s %s $argc", name, helper, name);
  for (int i = 0; i < HI_GDB_MAX_WORDS; i++)
    printf (" %%carg%d", i);
  printf ("\"");
  for (int i = 0; i < HI_GDB_MAX_WORDS; i++)
    printf (", $argc > %d ? 36 : 0", i);
  printf ("\nend\n");
}

/* The start of a helper: HELPER NAME COUNT WORDS..., in C.  With USAGE,
   no words is a usage error. */
static void
helper_head (const char *helper, int usage)
{
  printf ("with confirm off -- define heap %s\n"
          "  if $argc > 1\n", helper);
  if (usage)
    printf ("    if $arg1 == 0\n"
            "      echo Usage: heap $arg0 EXPRESSION\\n\n"
            "    else\n");
  printf ("    if $_thread == 0\n"
          "      echo heap: no process or core file: run the program, attach"
          " to it, or open a core\\n\n"
          "    else\n"
          "      if $arg1 > %d\n"
          "        echo heap: at most %d words after heap $arg0\\n\n"
          "      else\n", HI_GDB_MAX_WORDS, HI_GDB_MAX_WORDS);
}

static void
helper_request (void)
{
  printf ("        frame apply 1 -q -- heap _start 1\n"
          "        dump binary value " CHANNEL " \"" HI_GDB_REQUEST_TAG
          "$arg0\\necho heap: no heapinspect data in this inferior; run it"
          " with LD_PRELOAD=.../libheapinspect.so\\\\n\"\n");
}

static void
helper_tail (int usage)
{
  printf ("        frame apply 1 -q -- heap _run 1\n"
          "      end\n    end\n%s  end\nend\n", usage ? "    end\n" : "");
}

/* heap lost's roots: a "# regs" line per thread (protocol.h), each
   thread in its innermost frame (thread apply selects it), numbers only.
   -s: a thread whose registers gdb cannot read is left out, quietly. */
static void
thread_registers (void)
{
  printf ("        thread apply all -q -s -- eval \"append binary value "
          CHANNEL " \\\"\\\\n# regs");
#define FMT(name, index) printf (" %%lu");
  HI_GDB_REGS (FMT)
#undef FMT
  printf ("\\\"\"");
#define ARG(name, index) printf (", (unsigned long) $" #name);
  HI_GDB_REGS (ARG)
#undef ARG
  printf ("\n");
}

static void
helpers (void)
{
  /* Options: each word on its own line of the request, "# arg WORD",
     byte for byte.  gdb pastes $argN as text, so the word must land where
     gdb reads the rest of the line as it is: a string setting without
     escapes.  The maintenance test setting is gdb's only one nobody else
     uses; its value is dumped as a string value, never parsed.  Pasted
     into a string literal, a " or \ in a word would end the literal or
     vanish, and what followed would be evaluated.  The line starts with
     "#": if the plugin never answers and the request is sourced, the
     word is a comment there, never a command. */
  for (int roots = 0; roots < 2; roots++)
    {
      helper_head (roots ? "_roots" : "_words", 0);
      helper_request ();
      for (int i = 0; i < HI_GDB_MAX_WORDS; i++)
        printf ("        if $arg1 > %d\n"
                "          maintenance set " WORD_SETTING " # arg $arg%d\n"
                "          append binary value " CHANNEL " \"\\n\"\n"
                "          append binary value " CHANNEL
                " $_gdb_maint_setting_str(\"" WORD_SETTING "\")\n"
                "        end\n", i, i + 2);
      printf ("        maintenance set " WORD_SETTING "\n");
      if (roots)
        thread_registers ();
      helper_tail (0);
    }

  /* An expression: its words pasted back together, evaluated by gdb. */
  helper_head ("_expr", 1);
  helper_request ();
  for (int n = 1; n <= HI_GDB_MAX_WORDS; n++)
    {
      printf ("        if $arg1 == %d\n          eval \"append binary value "
              CHANNEL " \\\"\\\\n# addr %%lu\\\"\", (unsigned long) (", n);
      for (int i = 0; i < n; i++)
        printf ("%s$arg%d", i ? " " : "", i + 2);
      printf (")\n        end\n");
    }
  helper_tail (1);
}

/* The help of table NAME, unless heap.gdb.in (IN, a string) has one. */
static void
table_document (const char *name, const char *in)
{
  char head[64];
  snprintf (head, sizeof head, "\ndocument heap %s\n", name);
  if (strstr (in, head))
    return;
  printf ("\ndocument heap %s\n"
          "Print the %s table of heapinspect(1).\n"
          "Usage: heap %s [OPTIONS]\n"
          "The same as heapinspect -t %s on a core of this moment.\n"
          "OPTIONS: the report options of the other heap commands"
          " (see help heap).\n"
          "end\n", name, name, name, name);
}

/* The commands, and the help of the tables IN does not document. */
static void
commands (const char *in)
{
  helpers ();
#define TABLE(id, name, build, names) top_command (name, "_words");
  HI_TABLES (TABLE)
#undef TABLE
#define OTHER(name, kind) \
  top_command (#name, strcmp (#kind, "EXPR") == 0 ? "_expr" \
                      : strcmp (#kind, "ROOTS") == 0 ? "_roots" : "_words");
  HI_GDB_OTHER_COMMANDS (OTHER)
#undef OTHER
#define TABLE(id, name, build, names) table_document (name, in);
  HI_TABLES (TABLE)
#undef TABLE
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

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fputs ("usage: gen-heap-gdb PLUGIN < heap.gdb.in > heap.gdb\n", stderr);
      return 2;
    }
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
        {
          commands (in);
          continue;
        }
      for (char *p = line; p < next; )
        {
          if (strncmp (p, "@PLUGIN@", 8) == 0)
            fputs (argv[1], stdout), p += 8;
          else if (strncmp (p, "@CHANNEL@", 9) == 0)
            fputs (CHANNEL, stdout), p += 9;
          else
            putchar (*p++);
        }
    }
  free (in);
  return ferror (stdout) || fflush (stdout) != 0;
}
