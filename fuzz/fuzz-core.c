/* fuzz-core.c - libFuzzer target: the input is an ELF core file.  The
   root is found by its magic: a symbol lookup would open the files the
   core's NT_FILE note names, i.e. read the machine, not the input. */
#include "harness.h"

#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
no_symbol (void *ctx, const char *name, uint64_t *addr)
{
  (void) ctx, (void) name, (void) addr;
  return -1;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char path[64];
  int fd = hi_fuzz_file (data, size, path);
  struct hi_target t;
  if (fd >= 0 && hi_target_open_core (path, NULL, &t) == HI_OK)
    {
      struct hi_target_ops ops = *t.ops;
      ops.lookup_symbol = no_symbol;
      t.ops = &ops;
      hi_fuzz_target (&t);
    }
  if (fd >= 0)
    close (fd);
  return 0;
}
