/* modsyms.h - what the symbolizer knows of one module's code besides
   DWARF: its function symbols by address (one canonical name among
   aliases) and its functions' start addresses from .eh_frame_hdr (names
   for code without symbols). */
#ifndef HI_MODSYMS_H
#define HI_MODSYMS_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

struct hi_modsyms;

/* The tables of MOD, built lazily (each on its first use); NULL if out
   of memory.  MOD must outlive them. */
struct hi_modsyms *hi_modsyms_new (Dwfl_Module *mod);
void hi_modsyms_free (struct hi_modsyms *ms);

/* The name to show for the function symbol FOUND (libdwfl's pick for an
   address) at address ADDR (biased, as dwfl_module_getsym_info gives it)
   of size SIZE: of the function symbols at ADDR with that size (aliases
   such as __strdup and strdup, f and f.localalias), the one with the
   fewest leading underscores, then without a GCC suffix, then the
   shortest, then the first in byte order.  A pointer into the module's
   string table, or FOUND. */
const char *hi_modsyms_canonical (struct hi_modsyms *ms, uint64_t addr,
                                  uint64_t size, const char *found);

/* What dwfl_module_addrinfo (MOD, ADDR, OFF, SYM, NULL, NULL, NULL)
   returns, the same symbol: the symbol holding ADDR (an address of the
   process) as libdwfl picks it, its offset in *OFF and the symbol in
   *SYM; NULL if none.  Where a single symbol with a size holds ADDR the
   answer comes from an index built on first use (libdwfl reads the
   whole symbol table per address); anything else goes to libdwfl. */
const char *hi_modsyms_addrinfo (struct hi_modsyms *ms, uint64_t addr,
                                 GElf_Off *off, GElf_Sym *sym);

/* Lookups of hi_modsyms_addrinfo answered by libdwfl: a test hook, not
   thread-safe. */
extern uint64_t hi_modsyms_fallbacks;

/* Whether the code at file address VADDR (the module's own addresses,
   ADDR - bias) is in a function .eh_frame_hdr lists: 1 and its start in
   *START, or 0. */
int hi_modsyms_func_start (struct hi_modsyms *ms, uint64_t vaddr,
                           uint64_t *start);

/* RAW as a user names the function: symbol versions (@GLIBC_2.2.5) and
   GCC's clone and part suffixes (.isra.N, .part.N, .constprop.N, .cold,
   .localalias, .lto_priv.N) dropped, then C++ names demangled.  Into
   OUT (SIZE > 0 bytes), cut if longer. */
void hi_clean_name (const char *raw, char *out, size_t size);

#endif
