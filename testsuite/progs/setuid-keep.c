/* setuid-keep.c - a program linked with -lheapinspect that setuid.exp
   installs set-user-ID root: it keeps five blocks, says which user it
   runs as, and with an argument asks for a snapshot at that path. */
#include <heapinspect/heapinspect.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *kept[5];

__attribute__ ((noinline)) static void
keep_five (void)
{
  for (int i = 0; i < 5; i++)
    kept[i] = malloc (1000);
}

int
main (int argc, char **argv)
{
  keep_five ();
  printf ("uid %ld euid %ld\n", (long) getuid (), (long) geteuid ());
  if (argc > 1)
    printf ("snapshot %d\n", heapinspect_snapshot (argv[1]));
  return 0;
}
