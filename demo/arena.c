/* arena.c - the client API's pools: a parser that takes its memory from
   two arenas of its own (malloc never sees the tokens or the tree), told
   to the monitor with heapinspect_alloc and heapinspect_pool_reset, so
   its tables show each arena's chains and what it holds.
   Usage: arena [LINES] */
#include <heapinspect/heapinspect.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena
{
  char *base;
  size_t used, cap;
};

struct token { int kind; const char *text; size_t len; };
struct tree { struct tree *left, *right; struct token *tok; };

static void
arena_init (struct arena *a, size_t cap, const char *name)
{
  a->base = malloc (cap);   /* one big block: all malloc sees */
  a->used = 0;
  a->cap = cap;
  heapinspect_pool_create (a, name);
}

static void *
arena_alloc (struct arena *a, size_t n)
{
  size_t rounded = (n + 15) & ~(size_t) 15;
  if (a->used + rounded > a->cap)
    {
      fprintf (stderr, "arena full\n");
      exit (1);
    }
  void *p = a->base + a->used;
  a->used += rounded;
  heapinspect_alloc (a, p, n);
  return p;
}

static void
arena_reset (struct arena *a)
{
  a->used = 0;
  heapinspect_pool_reset (a);
}

static struct token *
lex (struct arena *scratch, const char *line, int i)
{
  struct token *t = arena_alloc (scratch, sizeof *t);
  t->kind = i % 4;
  t->text = line;
  t->len = strlen (line);
  return t;
}

static struct tree *
parse (struct arena *ast, struct token *t, struct tree *prev)
{
  struct tree *n = arena_alloc (ast, sizeof *n);
  n->left = prev;
  n->right = NULL;
  n->tok = t;
  return n;
}

int
main (int argc, char **argv)
{
  int lines = argc > 1 ? atoi (argv[1]) : 1000;
  struct arena scratch, ast;
  arena_init (&scratch, 1 << 20, "scratch");
  arena_init (&ast, 1 << 20, "ast");
  struct tree *root = NULL;
  for (int i = 0; i < lines; i++)
    {
      struct token *t = lex (&scratch, "x = y + 1", i);
      if (t->kind == 0)
        root = parse (&ast, t, root);
      if (i % 100 == 99)
        arena_reset (&scratch);   /* the tokens of 100 lines go at once */
    }
  int depth = 0;
  for (struct tree *n = root; n; n = n->left)
    depth++;
  printf ("%d lines, tree of %d nodes\n", lines, depth);
  return 0;
}
