/* diff.c - what changed between two moments of a program's heap.
   Placeholder of the time contract: its owner replaces it. */
#include "analysis.h"

hi_status
hi_diff_report (const struct hi_model *old, const char *old_exe,
                const char *old_name, const struct hi_model *new_m,
                const char *new_exe, const char *new_name,
                const struct hi_options *opt, FILE *out)
{
  (void) old, (void) old_exe, (void) old_name, (void) new_m;
  (void) new_exe, (void) new_name, (void) opt, (void) out;
  return HI_E_USAGE;
}
