/* forks.c - allocations before fork, in the child and in the parent; each
   process writes its own exit snapshot named by its pid. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/wait.h>

static void *volatile sink;
#include "report.h"

int
main (void)
{
  void *before[10];
  for (int i = 0; i < 10; i++)
    before[i] = malloc (100);
  pid_t child = fork ();
  if (child < 0)
    return 1;
  if (child == 0)
    {
      for (int i = 0; i < 5; i++)
        sink = malloc (40);
      free (before[0]);
      free (before[1]);
      exit (0);
    }
  for (int i = 0; i < 3; i++)
    sink = malloc (7);
  free (before[9]);
  int status;
  waitpid (child, &status, 0);
  say ("parent %d\nchild %d\nchild_status %d\n", (int) getpid (),
       (int) child, status);
  return 0;
}
