/* freed-bugs.c - heap bugs for freed.exp, one per run, built by the test
   itself twice (plain under the monitor, and with -fsanitize=address as
   the oracle): the program prints the addresses concerned, then makes
   the bug.  Each function allocates or frees at a line marked "@NAME" so
   that the test finds the lines the chains must show.

   freed-bugs CASE, CASE one of:
     double-free      24 bytes: release_block, then release_again
     double-free-here 24 bytes: release_block twice, from two lines of
                      main
     interior         40 bytes: release_block 8 bytes in
     stack            release_block of a stack buffer
     global           release_block of a pointer into a global array
     overflow         two 24-byte blocks; overflow writes 24 bytes past
                      the first's end (over the second's headers);
                      release_block the second, release_again the first
     size-word        two 24-byte blocks; overflow writes 8 bytes past
                      the first's end, over the second's chunk size
                      word (glibc's, before its header, which stays
                      whole); release_block the second
     redzone          24 bytes; overflow writes 4 bytes past its end;
                      release_block it
     write-after-free 40 bytes: release_block, write byte 8, then churn
                      (64 blocks of 64 bytes: a small quarantine lets it
                      go)
     freed-read       a list node: drop_node, then read node->next->value
                      (with the quarantine's fill: a crash)
     realloc-freed    24 bytes: release_block, then realloc_block to 48 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__ ((noinline))

struct node
{
  struct node *next;
  long value;
};

/* Hides a pointer's origin from the compiler's warnings. */
static void *volatile launder;
static volatile long sink;

static void *
hide (void *p)
{
  launder = p;
  return launder;
}

NOINLINE static char *
make_block (size_t n)
{
  return malloc (n);                            /* @make_block */
}

NOINLINE static void
release_block (void *p)
{
  free (p);                                     /* @release_block */
}

NOINLINE static void
release_again (void *p)
{
  sink++;
  free (p);                                     /* @release_again */
}

NOINLINE static void *
realloc_block (void *p, size_t n)
{
  return realloc (p, n);                        /* @realloc_block */
}

NOINLINE static void
overflow (char *p, size_t size, size_t past)
{
  memset (hide (p), 'A', size + past);          /* @overflow */
}

NOINLINE static struct node *
make_node (long value)
{
  struct node *n = malloc (sizeof *n);          /* @make_node */
  n->next = n;
  n->value = value;
  return n;
}

NOINLINE static void
drop_node (struct node *n)
{
  sink += n->value;
  free (n);                                     /* @drop_node */
}

NOINLINE static long
follow (struct node *n)
{
  return n->next->value;                        /* @follow */
}

static char global_buf[64] __attribute__ ((aligned (16)));

static void
say (const char *key, const void *p)
{
  printf ("%s: %p\n", key, p);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  const char *c = argv[1];
  printf ("pid: %d\n", (int) getpid ());
  if (strcmp (c, "double-free") == 0)
    {
      char *p = make_block (24);                /* @df_make */
      say ("block", p);
      release_block (p);                        /* @df_release */
      release_again (p);                        /* @df_again */
    }
  else if (strcmp (c, "double-free-here") == 0)
    {
      /* Both frees through one function, called from two lines. */
      char *p = make_block (24);                /* @dh_make */
      say ("block", p);
      release_block (p);                        /* @dh_first */
      release_block (p);                        /* @dh_again */
    }
  else if (strcmp (c, "interior") == 0)
    {
      char *p = make_block (40);                /* @in_make */
      say ("block", p);
      say ("pointer", p + 8);
      release_block (p + 8);                    /* @in_release */
    }
  else if (strcmp (c, "stack") == 0)
    {
      char buf[64] __attribute__ ((aligned (16)));
      buf[0] = 1;
      char *p = hide (buf + 16);
      say ("pointer", p);
      release_block (p);                        /* @st_release */
    }
  else if (strcmp (c, "global") == 0)
    {
      char *p = hide (global_buf + 16);
      say ("pointer", p);
      release_block (p);                        /* @gl_release */
    }
  else if (strcmp (c, "overflow") == 0)
    {
      char *a = make_block (24);                /* @ov_make */
      char *b = make_block (24);
      say ("block", a);
      say ("next", b);
      overflow (a, 24, 24);
      release_block (b);                        /* @ov_release */
      release_again (a);
    }
  else if (strcmp (c, "size-word") == 0)
    {
      char *a = make_block (24);                /* @sw_make */
      char *b = make_block (24);                /* @sw_next */
      say ("block", a);
      say ("next", b);
      overflow (a, 24, 8);
      release_block (b);                        /* @sw_release */
    }
  else if (strcmp (c, "redzone") == 0)
    {
      char *a = make_block (24);                /* @rz_make */
      say ("block", a);
      overflow (a, 24, 4);
      release_block (a);                        /* @rz_release */
    }
  else if (strcmp (c, "write-after-free") == 0)
    {
      char *p = make_block (40);                /* @waf_make */
      say ("block", p);
      release_block (p);                        /* @waf_release */
      ((char *) hide (p))[8] = 'w';
      for (int i = 0; i < 64; i++)
        release_again (make_block (64));
    }
  else if (strcmp (c, "freed-read") == 0)
    {
      struct node *n = make_node (7);
      say ("block", n);
      drop_node (n);
      sink = follow (hide (n));
    }
  else if (strcmp (c, "realloc-freed") == 0)
    {
      char *p = make_block (24);                /* @rf_make */
      say ("block", p);
      release_block (p);                        /* @rf_release */
      say ("moved", realloc_block (hide (p), 48)); /* @rf_realloc */
    }
  else
    return 2;
  puts ("done");
  return 0;
}
