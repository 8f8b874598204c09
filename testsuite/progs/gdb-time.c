/* gdb-time.c - a program in phases for the gdb time tests (time.exp):
   phase A allocates and frees 1000 blocks of 100 bytes; phase B allocates
   500 blocks of 2000 bytes (the peak) and frees half of them; phase D
   allocates 10 blocks of 300 bytes; then the snapshot $HI_SNAPDIR/old.hip
   is written; phase C allocates 300 blocks of 48 bytes, frees 100 more
   of B's and all of D's.  So from the snapshot to the end one chain
   shrinks, one is new and one is gone.
   Usage: gdb-time crash|wait
   crash: dereference NULL at the end (gdb stops there); wait: say
   "ready" and block until standard input closes (to be attached to). */
#include "report.h"

#include <string.h>

/* Not static: the compiler may not drop the stores, and so the mallocs,
   of blocks nobody in this file reads. */
char *b_blocks[500];
char *c_blocks[300];
char *d_blocks[10];

__attribute__ ((noinline)) static void
phase_a (void)
{
  for (int i = 0; i < 1000; i++)
    {
      char *volatile p = malloc (100);
      free (p);
    }
}

__attribute__ ((noinline)) static void
phase_b (void)
{
  for (int i = 0; i < 500; i++)
    b_blocks[i] = malloc (2000);
  for (int i = 0; i < 250; i++)
    {
      free (b_blocks[i]);
      b_blocks[i] = NULL;
    }
}

__attribute__ ((noinline)) static void
phase_d (void)
{
  for (int i = 0; i < 10; i++)
    d_blocks[i] = malloc (300);
}

__attribute__ ((noinline)) static void
phase_c (void)
{
  for (int i = 0; i < 300; i++)
    c_blocks[i] = malloc (48);
  for (int i = 250; i < 350; i++)
    {
      free (b_blocks[i]);
      b_blocks[i] = NULL;
    }
  for (int i = 0; i < 10; i++)
    {
      free (d_blocks[i]);
      d_blocks[i] = NULL;
    }
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "crash";
  phase_a ();
  phase_b ();
  phase_d ();
  snap ("old.hip");
  phase_c ();
  if (strcmp (mode, "wait") == 0)
    {
      char c;
      say ("ready\n");
      while (read (0, &c, 1) == 1)
        ;
      return 0;
    }
  if (strcmp (mode, "crash") == 0)
    {
      int *volatile null = NULL;
      return *null;
    }
  return 0;
}
