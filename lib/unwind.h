/* unwind.h - the monitor's DWARF CFI unwinder (unwind.c), and the memo
   of its last unwind, which the chain cache files chains from.  Include
   it after defining _GNU_SOURCE (<link.h> says whether the unwinder can
   run here: HI_FAST_UNWIND). */
#ifndef HI_UNWIND_H
#define HI_UNWIND_H

#ifndef _GNU_SOURCE
# error "unwind.h: define _GNU_SOURCE before any #include"
#endif
#include "monitor.h"

#include <link.h>

#if defined(__x86_64__) && defined(DLFO_STRUCT_HAS_EH_DBASE)
# define HI_FAST_UNWIND 1
#endif

/* Return addresses from START outward into OUT (at most MAX): how many,
   or -1 if some frame needs libgcc's unwinder. */
HI_HIDDEN int hi_unwind (const struct hi_frame *start, uint64_t *out, int max);
/* Drop every cached rule (code was unloaded). */
HI_HIDDEN void hi_unwind_forget (void);

/* The frames of this thread's last unwind, so that the next one, which
   mostly shares its outer frames, costs a load and a compare per shared
   frame instead of a rule lookup.  Frame k was unwound from state
   (ip[k], sp[k], bp[k]); its caller's state is (*(sp[k+1] - 8),
   sp[k+1], bp_at[k] ? *bp_at[k] : bp[k]).  Entries [0, m) are frames;
   state m is the state after frame m - 1 unless the walk stopped there
   at a rule or a bound (broke).  flags[k] says whether frame k's rule
   computes the CFA from rbp (USES_BP) and whether it restores rbp from
   the stack, at bp_at[k] (SAVES_BP).  bp[k] is kept complemented (~rbp):
   code without frame pointers uses rbp as any register, and the memo
   lives in TLS, which a leak scan reads as a root (memo-roots.exp). */
#define HI_MEMO_CAP 80
enum { HI_MEMO_USES_BP = 1, HI_MEMO_SAVES_BP = 2 };
struct hi_unwind_memo
{
  uint32_t gen;        /* hi_state.unwind.generation then; 0: empty */
  int m;
  int broke;
  uint64_t ip[HI_MEMO_CAP + 1], sp[HI_MEMO_CAP + 1], bp[HI_MEMO_CAP + 1];
  uint64_t bp_at[HI_MEMO_CAP];
  uint8_t flags[HI_MEMO_CAP];
};

/* This thread's memo of its last hi_unwind. */
HI_HIDDEN const struct hi_unwind_memo *hi_unwind_memo (void);

#endif
