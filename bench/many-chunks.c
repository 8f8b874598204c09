/* many-chunks.c - bench/run --glibc: N chunks (default 1,000,000) of 16 to 2,000 bytes in
   glibc's heap, a third of them freed, about 1 GiB: then an abort (a
   core) or, with "wait", a wait (for heapinspect -p and gcore). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  void **p = malloc ((size_t) n * sizeof *p);
  unsigned s = 1;
  for (long i = 0; i < n; i++)
    {
      s = s * 1103515245u + 12345u;
      p[i] = malloc (16 + (s >> 8) % 1985);
    }
  for (long i = 0; i < n; i += 3)
    free (p[i]);
  if (argc > 2 && strcmp (argv[2], "wait") == 0)
    {
      if (write (1, "waiting\n", 8) != 8)
        return 1;
      pause ();
    }
  abort ();
}
