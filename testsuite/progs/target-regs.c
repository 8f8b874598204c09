/* target-regs.c - prints what the process target's mapping and
   thread_regs ops say about process PID (heapinspect.cli/
   target-regs.exp):
     target-regs [--held] PID
   --held: hold PID's main thread stopped first, as `heapinspect run`
   does at the program's exit, and open it with hi_target_open_stopped;
   else hi_target_open_process with its threads stopped.  Prints
     map START END PROT OFFSET IN_TARGET PATH     (PROT as rwx-)
     thread TID SP FS_BASE R12 STACKWORDS
   where STACKWORDS are the words from SP to the end of SP's mapping
   that look like thread-regs' markers (0x5354414b000000NN), as
   ADDRESS=VALUE; then "end". */
#define _GNU_SOURCE
#include "hi-reader.h"
#include "model/model.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int
main (int argc, char **argv)
{
  int held = argc == 3 && strcmp (argv[1], "--held") == 0;
  if (argc != 2 + held)
    {
      fputs ("usage: target-regs [--held] PID\n", stderr);
      return 2;
    }
  int pid = atoi (argv[1 + held]), st;
  if (held && (ptrace (PTRACE_SEIZE, pid, NULL, NULL) != 0
               || ptrace (PTRACE_INTERRUPT, pid, NULL, NULL) != 0
               || waitpid (pid, &st, __WALL) != pid))
    {
      perror ("target-regs: ptrace");
      return 1;
    }
  struct hi_target t;
  hi_status s = held ? hi_target_open_stopped (pid, &t)
                     : hi_target_open_process (pid, 1, &t);
  if (s != HI_OK)
    {
      fprintf (stderr, "target-regs: %s\n", hi_strerror (s));
      return 1;
    }
  struct hi_map_entry maps[4096];
  size_t n = 0;
  while (n < 4096 && t.ops->mapping (t.ctx, n, &maps[n]) == 0)
    {
      const struct hi_map_entry *m = &maps[n++];
      printf ("map 0x%" PRIx64 " 0x%" PRIx64 " %c%c%c 0x%" PRIx64 " %u %s\n",
              m->start, m->end, m->prot & HI_MAP_READ ? 'r' : '-',
              m->prot & HI_MAP_WRITE ? 'w' : '-',
              m->prot & HI_MAP_EXEC ? 'x' : '-', m->file_offset,
              m->in_target, m->path);
    }
  struct hi_thread_regs r;
  for (size_t i = 0; t.ops->thread_regs (t.ctx, i, &r) == 0; i++)
    {
      printf ("thread %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64,
              r.tid, r.sp, r.fs_base, r.n_regs > 3 ? r.regs[3] : 0);
      for (size_t k = 0; k < n; k++)
        if (r.sp >= maps[k].start && r.sp < maps[k].end)
          for (uint64_t a = r.sp & ~UINT64_C (7); a < maps[k].end; a += 8)
            {
              uint64_t w;
              if (t.ops->read_memory (t.ctx, a, &w, sizeof w) == 0
                  && w >> 8 == UINT64_C (0x5354414b000000))
                printf (" 0x%" PRIx64 "=0x%" PRIx64, a, w);
            }
      printf ("\n");
    }
  printf ("end\n");
  hi_status f = hi_target_finish (&t);
  hi_target_close (&t);
  if (held)
    ptrace (PTRACE_DETACH, pid, NULL, NULL);
  return f == HI_OK ? 0 : 1;
}
