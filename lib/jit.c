/* jit.c - the monitor's own JIT descriptor (gdb's JIT interface), with one
   entry leading to the root: the heapinspect gdb plugin finds the data
   through it on live, core and remote targets alike.  gdb keeps one
   descriptor per objfile, so a program's own JIT entries are unaffected;
   protected visibility keeps ours from binding to a program's.

   The entry is a minimal, valid ELF relocatable object for this machine
   whose last section holds the blob (magic + root address).  Without the
   plugin, gdb's own reader accepts it as an object with no symbols and
   says nothing (a non-ELF payload made every gdb session print "JITed
   symbol file is not an object file"); with the plugin loaded, the plugin
   claims it by the magic at its end. */
#include "tools.h"

#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>

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

/* gdb checks that the object's machine is the target's: a mismatch would
   print a warning of its own. */
#if defined __x86_64__
# define JIT_MACHINE EM_X86_64
#elif defined __i386__
# define JIT_MACHINE EM_386
#elif defined __aarch64__
# define JIT_MACHINE EM_AARCH64
#elif defined __arm__
# define JIT_MACHINE EM_ARM
#elif defined __riscv
# define JIT_MACHINE EM_RISCV
#elif defined __powerpc64__
# define JIT_MACHINE EM_PPC64
#elif defined __powerpc__
# define JIT_MACHINE EM_PPC
#elif defined __s390__
# define JIT_MACHINE EM_S390
#elif defined __mips__
# define JIT_MACHINE EM_MIPS
#else
# define JIT_MACHINE EM_NONE
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define JIT_DATA ELFDATA2LSB
#else
# define JIT_DATA ELFDATA2MSB
#endif

#define JIT_STRTAB "\0.shstrtab\0.heapinspect"

/* The object: header, section table (null, names, ours), the section
   names, and the blob, last, so the plugin finds it at the end. */
struct jit_image
{
  ElfW (Ehdr) ehdr;
  ElfW (Shdr) shdr[3];
  char strtab[sizeof JIT_STRTAB];
  _Alignas (8) struct hi_jit_blob blob;
};

static struct jit_image image = {
  .ehdr = {
    .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
                 sizeof (void *) == 8 ? ELFCLASS64 : ELFCLASS32, JIT_DATA,
                 EV_CURRENT, ELFOSABI_NONE },
    .e_type = ET_REL,
    .e_machine = JIT_MACHINE,
    .e_version = EV_CURRENT,
    .e_shoff = offsetof (struct jit_image, shdr),
    .e_ehsize = sizeof (ElfW (Ehdr)),
    .e_shentsize = sizeof (ElfW (Shdr)),
    .e_shnum = 3,
    .e_shstrndx = 1,
  },
  .shdr = {
    [1] = { .sh_name = 1, .sh_type = SHT_STRTAB,
            .sh_offset = offsetof (struct jit_image, strtab),
            .sh_size = sizeof JIT_STRTAB, .sh_addralign = 1 },
    [2] = { .sh_name = 11, .sh_type = SHT_PROGBITS,
            .sh_offset = offsetof (struct jit_image, blob),
            .sh_size = sizeof (struct hi_jit_blob), .sh_addralign = 8 },
  },
  .strtab = JIT_STRTAB,
};

_Static_assert (offsetof (struct jit_image, blob) + sizeof (struct hi_jit_blob)
                == sizeof (struct jit_image), "the blob ends the image");

static struct jit_code_entry entry;
static _Atomic int registered;

/* Once per process: from the constructor below, so that a program that
   has not allocated yet already tells the plugin the monitor is there;
   the later call from initialization finds it done. */
void
hi_jit_register (void)
{
  if (atomic_exchange (&registered, 1))
    return;
  image.blob.magic = HI_JIT_MAGIC;
  image.blob.root_addr = (uint64_t) (uintptr_t) &heapinspect_root;
  entry.symfile_addr = (const char *) &image;
  entry.symfile_size = sizeof image;
  __jit_debug_descriptor.relevant_entry = &entry;
  __jit_debug_descriptor.first_entry = &entry;
  __jit_debug_descriptor.action_flag = 1;
  __jit_debug_register_code ();
  __jit_debug_descriptor.action_flag = 0;
}

__attribute__ ((constructor)) static void
register_at_load (void)
{
  hi_jit_register ();
}
