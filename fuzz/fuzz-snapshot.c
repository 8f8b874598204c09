/* fuzz-snapshot.c - libFuzzer target: the input is a snapshot file. */
#include "harness.h"

#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char path[64];
  int fd = hi_fuzz_file (data, size, path);
  struct hi_target t;
  if (fd >= 0 && hi_target_open_snapshot (path, &t) == HI_OK)
    hi_fuzz_target (&t);
  if (fd >= 0)
    close (fd);
  return 0;
}
