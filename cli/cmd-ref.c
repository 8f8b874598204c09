/* cmd-ref.c - `heapinspect ref ADDRESS SOURCE`: what holds the block at
   ADDRESS alive (its roots, the blocks pointing into it, one path from a
   root), or that nothing does. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>

int
hi_parse_ref (int argc, char **argv, struct hi_settings *st)
{
  char *end;
  if (argc < 2)
    return hi_bad_usage ("ref needs an address");
  st->block_addr = strtoull (argv[1], &end, 0);
  if (!argv[1][0] || *end)
    return hi_bad_usage ("ref needs an address: a number, decimal or "
                         "0x hexadecimal");
  char words[128];
  snprintf (words, sizeof words, "ref %.100s", argv[1]);
  int r = hi_source_operands (argc - 2, argv + 2, words, st);
  return r >= 0 ? r : hi_check_own_report (st, "ref");
}

/* 1 if no live block holds the address. */
int
hi_cmd_ref (const struct hi_settings *st, int *written)
{
  const struct hi_source *src = &st->src;
  struct hi_target t;
  *written = 0;
  int no_data;
  struct hi_model *m = hi_cli_load_open_or_none (src, &t, &no_data);
  if (!m && no_data)
    /* A program the monitor never ran in: glibc's in-use chunks. */
    return hi_cli_glibc (src, &st->opt, HI_VIEW_REF, st->block_addr,
                         written);
  if (!m)
    return 1;
  const char *why;
  /* A live process is read while it is still stopped. */
  hi_status s = hi_ref_report (&t, m, src->exe, src->name, st->block_addr,
                               &st->opt, stdout, &why);
  hi_status after = hi_target_finish (&t);
  /* "In no block" is an answer, written like one. */
  *written = s == HI_OK || s == HI_E_NOT_BLOCK;
  if (*written && after != HI_OK)
    hi_cli_error (src->name, hi_strerror (after));
  if (s == HI_E_NO_MEMORY)
    hi_cli_error (src->name, "a snapshot holds no memory to search for "
                  "pointers: use a core file or the live process");
  else if (!*written && !(s == HI_E_WRITE && ferror (stdout)))
    hi_cli_error (src->name, hi_strerror (s));
  hi_target_close (&t);
  hi_model_free (m);
  return s == HI_OK ? 0 : 1;
}
