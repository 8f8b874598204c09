/* cmd-modules.c - `heapinspect modules SOURCE`: the loaded objects the
   monitor recorded, one per line. */
#include "commands.h"

#include <inttypes.h>
#include <stdio.h>

int
hi_parse_modules (int argc, char **argv, struct hi_settings *st)
{
  return hi_source_operands (argc - 1, argv + 1, argv[0], st);
}

int
hi_cmd_modules (const struct hi_settings *st, int *written)
{
  *written = 0;
  struct hi_model *m = hi_cli_load (&st->src, NULL);
  if (!m)
    return 1;
  uint64_t n_modules;
  const struct hi_module *modules = hi_model_modules (m, &n_modules);
  for (uint64_t i = 0; i < n_modules; i++)
    {
      const struct hi_module *mod = &modules[i];
      char id[2 * HI_BUILD_ID_MAX + 1] = "-";
      uint32_t n = mod->build_id_len < HI_BUILD_ID_MAX
                   ? mod->build_id_len : HI_BUILD_ID_MAX;
      for (uint32_t k = 0; k < n; k++)
        snprintf (id + 2 * k, 3, "%02x", mod->build_id[k]);
      char path[4 * HI_PATH_MAX];
      hi_escape (mod->path[0] ? mod->path : "-", path, sizeof path);
      printf ("%-8s 0x%016" PRIx64 " %s %s\n",
              mod->flags & HI_MODULE_LOADED ? "loaded" : "unloaded",
              mod->bias, id, path);
    }
  hi_model_free (m);
  *written = 1;
  return 0;
}
