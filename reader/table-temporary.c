/* table-temporary.c - the `temporary` table (format 4's time data).
   Placeholder of the time contract: its owner replaces it. */
#include "analysis.h"

static const struct hi_column columns[] = {
  { .key = "what", .head = "what", .type = HI_CELL_TEXT, .left = 1 },
};

hi_status
hi_table_temporary (struct hi_analysis *a, struct hi_rmodel *r)
{
  struct hi_table *t = hi_rmodel_table (r, "temporary", "Temporary Allocation Table", columns, 1);
  if (t && !a->m->has_time)
    t->legend = "this input has no time data (written before format 4)";
  return r->nomem ? HI_E_NOMEM : HI_OK;
}
