/* cmd-block.c - `heapinspect block ADDRESS SOURCE`: the block of ours
   that holds ADDRESS, and what is known of it. */
#include "cli.h"

#include <stdio.h>

int
hi_cmd_block (const struct hi_source *src, uint64_t addr,
              const struct hi_options *opt, int *written)
{
  struct hi_target t;
  *written = 0;
  struct hi_model *m = hi_cli_load (src, &t);
  if (!m)
    return 1;
  hi_status s = hi_block_report (&t, m, src->exe, addr, opt, stdout);
  /* "Not ours" is an answer, written like a block. */
  *written = s == HI_OK || s == HI_E_NOT_BLOCK;
  if (s != HI_OK && s != HI_E_NOT_BLOCK)
    hi_cli_error (src->name, hi_strerror (s));
  int status = s == HI_OK ? 0 : 1;
  hi_target_close (&t);
  hi_model_free (m);
  return status;
}
