/* cmd-block.c - `heapinspect block ADDRESS SOURCE`: the block of ours
   that holds ADDRESS, and what is known of it. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>

int
hi_parse_block (int argc, char **argv, struct hi_settings *st)
{
  char *end;
  if (argc < 2)
    return hi_bad_usage ("block needs an address");
  st->block_addr = strtoull (argv[1], &end, 0);
  if (!argv[1][0] || *end)
    return hi_bad_usage ("block needs an address: a number, decimal or "
                         "0x hexadecimal");
  char words[128];
  snprintf (words, sizeof words, "block %.100s", argv[1]);
  return hi_source_operands (argc - 2, argv + 2, words, st);
}

/* 1 if no block of ours holds the address. */
int
hi_cmd_block (const struct hi_settings *st, int *written)
{
  const struct hi_source *src = &st->src;
  struct hi_target t;
  *written = 0;
  int no_data;
  struct hi_model *m = hi_cli_load_or_none (src, &t, &no_data);
  if (!m && no_data)
    return hi_cli_glibc (src, &st->opt, HI_VIEW_BLOCK, st->block_addr,
                         written);
  if (!m)
    return 1;
  hi_status s = hi_block_report (&t, m, src->exe, st->block_addr, &st->opt,
                                 stdout);
  /* "Not ours" is an answer, written like a block. */
  *written = s == HI_OK || s == HI_E_NOT_BLOCK;
  if (s != HI_OK && s != HI_E_NOT_BLOCK)
    hi_cli_error (src->name, hi_strerror (s));
  int status = s == HI_OK ? 0 : 1;
  hi_target_close (&t);
  hi_model_free (m);
  return status;
}
