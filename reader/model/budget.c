/* budget.c - the model's one memory budget.

   The rule: a model copies out of its target at most the bytes the
   target really holds (hi_target_backed: a snapshot's regions, the bytes
   of a core's PT_LOAD segments in the file, a live process's readable
   mappings, a dump's files), and at most ARENA_BYTES_MAX of any one
   arena; everything else it builds is sized from what it copied, never
   from a count it read.  The monitor's arenas are disjoint parts of what
   the target holds, so a whole input never reaches the budget; an arena
   that claims more than the budget has left is cut to what is left, and
   the cut is damage the report's note names.  A host's own target (gdb's)
   states no size: only the per-arena bound applies to it. */
#include "model/model.h"
#include "target/target.h"
#include "hi-reader.h"

/* No arena of a sane process is larger. */
#define ARENA_BYTES_MAX (UINT64_C(1) << 32)

void
hi_budget_init (struct hi_model *m, const struct hi_target *t)
{
  m->budget = hi_target_backed (t);
}

uint64_t
hi_budget_grant (struct hi_model *m, uint32_t kind, uint64_t want,
                 uint32_t entry_size)
{
  uint64_t room = m->budget < ARENA_BYTES_MAX ? m->budget : ARENA_BYTES_MAX;
  if (entry_size == 0)
    return 0;
  if (want > room / entry_size)
    {
      hi_budget_cut (m, kind);
      return room / entry_size;
    }
  return want;
}

void
hi_budget_spend (struct hi_model *m, uint64_t bytes)
{
  m->budget -= bytes < m->budget ? bytes : m->budget;
}

void
hi_budget_cut (struct hi_model *m, uint32_t kind)
{
  uint32_t bit = kind < 32 ? UINT32_C(1) << kind : 0;
  if (!(m->arenas_cut & bit))
    m->damage.arenas++;
  m->arenas_cut |= bit;
}
