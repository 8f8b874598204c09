/* fuzz-glibc.c - libFuzzer target: the input is an ELF core of a program
   that ran without the monitor, read as glibc's heap (reader/glibc/):
   stat, -t bins, verify and the leak check in text and JSON, and block at
   addresses the input names.  The core's NT_FILE note leads to libc's
   file and its debug file on this machine (the version string, the
   symbols): those are read, the input is what is fuzzed.  No
   libthread_db (the target exports no proc_service): the tcache part
   falls back as it does without it. */
#include "harness.h"

#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char path[64];
  int fd = hi_fuzz_file (data, size, path);
  struct hi_target t;
  if (fd < 0)
    return 0;
  if (hi_target_open_core (path, NULL, &t) == HI_OK)
    {
      FILE *out = hi_fuzz_sink ();
      struct hi_options opt = HI_OPTIONS_DEFAULT;
      const char *why;
      uint64_t problems;
      for (int json = 0; json < 2; json++)
        {
          opt.format = json ? HI_JSON : HI_TEXT;
          hi_glibc_report (&t, "fuzz", &opt, out, &why);
          hi_glibc_bins_report (&t, "fuzz", &opt, out, &why);
          hi_glibc_verify_report (&t, "fuzz", &opt, out, &why, &problems);
          hi_glibc_leak_report (&t, "fuzz", &opt, out, &why, NULL);
        }
      /* Addresses from the input's last bytes, and near them. */
      opt.format = HI_TEXT;
      for (size_t k = 0; k < 4 && size >= 8 * (k + 1); k++)
        {
          uint64_t a;
          memcpy (&a, data + size - 8 * (k + 1), 8);
          hi_glibc_block_report (&t, "fuzz", a, &opt, out, &why, NULL);
          hi_glibc_block_report (&t, "fuzz", a & ~(uint64_t) 0xfff, &opt,
                                 out, &why, NULL);
        }
      hi_target_close (&t);
    }
  close (fd);
  return 0;
}
