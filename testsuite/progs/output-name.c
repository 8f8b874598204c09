/* output-name.c - runs hi_expand_output (common/output-name.c) on its
   arguments, for output-name.exp: "output-name CAP PID PATTERN" prints
   "RC [DST]" with DST between brackets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/output-name.h"

int
main (int argc, char **argv)
{
  if (argc != 4)
    return 2;
  size_t cap = strtoul (argv[1], NULL, 10);
  long pid = strtol (argv[2], NULL, 10);
  /* Guard bytes after CAP: the expansion must never touch them. */
  char *buf = malloc (cap + 16);
  if (!buf)
    return 2;
  memset (buf, 'G', cap + 16);
  int rc = hi_expand_output (cap ? buf : NULL, cap, argv[3], pid);
  for (size_t i = cap; i < cap + 16; i++)
    if (buf[i] != 'G')
      {
        printf ("overflow at %zu\n", i);
        return 1;
      }
  printf ("%d [%s]\n", rc, cap ? buf : "");
  free (buf);
  return 0;
}
