/* datasym.h - the data symbol (a global or static variable, a TLS
   variable) of a mapped ELF file that holds an address of the process:
   what `ref` names a root in a module's .data, .bss or TLS block by. */
#ifndef HI_DATASYM_H
#define HI_DATASYM_H

#include <stddef.h>
#include <stdint.h>

/* The object symbol (STT_OBJECT; .symtab, else
   .dynsym) of ELF file PATH, whose first page is mapped at LOAD_START,
   holding address ADDR of the process: 0 with its name in NAME (SIZE
   bytes, cut if longer) and ADDR's offset from its start in *OFF; -1
   if no symbol holds it (stripped, or in no variable).  At most
   HI_DATASYM_MAX symbols are looked at. */
int hi_data_symbol (const char *path, uint64_t load_start, uint64_t addr,
                    char *name, size_t size, uint64_t *off);
#define HI_DATASYM_MAX 4000000u

/* ELF file PATH's TLS block, when its first page is mapped at
   LOAD_START: 0 with the block's size (PT_TLS's memory size) in *MEMSZ
   and the file's load bias (the dynamic linker's l_addr) in *BIAS; -1
   if it has none. */
int hi_tls_image (const char *path, uint64_t load_start, uint64_t *memsz,
                  uint64_t *bias);
/* The TLS variable (STT_TLS) of ELF file PATH holding OFFSET of its TLS
   block: as hi_data_symbol. */
int hi_tls_symbol (const char *path, uint64_t offset, char *name,
                   size_t size, uint64_t *off);

#endif
