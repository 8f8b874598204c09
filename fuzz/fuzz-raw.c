/* fuzz-raw.c - libFuzzer target: raw memory dumps.  The input is a list
   of up to 16 regions, each a little-endian 64-bit base address, a 32-bit
   length and that many bytes (the last one may be short); each region
   becomes one dump file, as with `--raw FILE@ADDR` repeated.  No ELF:
   the root is found by its magic. */
#include "harness.h"

#include <string.h>
#include <unistd.h>

#define REGIONS 16

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char paths[REGIONS][64];
  const char *names[REGIONS];
  uint64_t bases[REGIONS];
  int fds[REGIONS];
  size_t n = 0;
  while (n < REGIONS && size >= 12)
    {
      uint32_t len;
      memcpy (&bases[n], data, 8);
      memcpy (&len, data + 8, 4);
      data += 12, size -= 12;
      if (len > size)
        len = (uint32_t) size;
      fds[n] = hi_fuzz_file (data, len, paths[n]);
      if (fds[n] < 0)
        break;
      names[n] = paths[n];
      n++;
      data += len, size -= len;
    }
  struct hi_target t;
  if (n > 0 && hi_target_open_raw (names, bases, n, NULL, &t) == HI_OK)
    hi_fuzz_target (&t);
  for (size_t i = 0; i < n; i++)
    close (fds[i]);
  return 0;
}
