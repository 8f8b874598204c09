/* jit.c - the monitor's own JIT descriptor (gdb's JIT interface), with one
   entry leading to the root: the heapinspect gdb plugin finds the data
   through it on live, core and remote targets alike.  gdb keeps one
   descriptor per objfile, so a program's own JIT entries are unaffected;
   protected visibility keeps ours from binding to a program's. */
#include "monitor.h"

struct jit_code_entry
{
  struct jit_code_entry *next_entry;
  struct jit_code_entry *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};

struct jit_descriptor
{
  uint32_t version;
  uint32_t action_flag;      /* 0 none, 1 register, 2 unregister */
  struct jit_code_entry *relevant_entry;
  struct jit_code_entry *first_entry;
};

#define PROTECTED __attribute__ ((visibility ("protected")))

PROTECTED struct jit_descriptor __jit_debug_descriptor = { 1, 0, NULL, NULL };

/* gdb sets a breakpoint here; it must not be inlined or merged away. */
PROTECTED __attribute__ ((noinline)) void
__jit_debug_register_code (void)
{
  __asm__ volatile ("" ::: "memory");
}

static struct hi_jit_blob blob;
static struct jit_code_entry entry;

void
hi_jit_register (void)
{
  blob.magic = HI_JIT_MAGIC;
  blob.root_addr = (uint64_t) (uintptr_t) &heapinspect_root;
  entry.symfile_addr = (const char *) &blob;
  entry.symfile_size = sizeof blob;
  __jit_debug_descriptor.relevant_entry = &entry;
  __jit_debug_descriptor.first_entry = &entry;
  __jit_debug_descriptor.action_flag = 1;
  __jit_debug_register_code ();
  __jit_debug_descriptor.action_flag = 0;
}
