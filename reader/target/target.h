/* target.h - the targets' internal helpers: symbols in mapped files, a
   core's bytes in place. */
#ifndef HI_TARGET_H
#define HI_TARGET_H

#include "hi-reader.h"

/* For a core file opened by hi_target_open_core: the LEN bytes of
   memory at ADDR as they lie in the file (libelf's read-only mapping of
   it), if one segment holds them all; NULL otherwise, and for other
   targets.  Valid until T is closed.  For scans that read most of a
   core (the reachability scan): no copy.  The file must not shrink
   while it is read this way (a SIGBUS). */
const void *hi_target_core_view (const struct hi_target *t, uint64_t addr,
                                 size_t len);

/* The bytes target T really holds: the most a model may copy out of it
   (model/budget.c).  A snapshot's regions (disjoint, inside the file),
   the bytes of a core's PT_LOAD segments in the file (never more than
   the file), a live process's readable mappings, a dump's files;
   UINT64_MAX for a host's own target (gdb's), which states none.  The
   hi_target_KIND_backed functions answer for their kind: 0 and *BYTES,
   or -1 if T is another kind. */
uint64_t hi_target_backed (const struct hi_target *t);
int hi_target_snapshot_backed (const struct hi_target *t, uint64_t *bytes);
int hi_target_core_backed (const struct hi_target *t, uint64_t *bytes);
int hi_target_process_backed (const struct hi_target *t, uint64_t *bytes);
int hi_target_raw_backed (const struct hi_target *t, uint64_t *bytes);

/* A file mapped into a process: where, from which offset, which file. */
struct hi_mapping
{
  uint64_t start, end, offset;
  const char *path;
};

/* Find data symbol NAME in the ELF files of MAPS (the executable EXE
   too, if given, at its link-time address) and compute its address in
   the process.  0 on success, -1 if no file defines it. */
int hi_find_symbol_in_mappings (const struct hi_mapping *maps, size_t n,
                                const char *exe, const char *name,
                                uint64_t *addr);

/* The mapping of T holding ADDR into *E: 0, or -1 (none, or no map). */
int hi_target_mapping_of (const struct hi_target *t, uint64_t addr,
                          struct hi_map_entry *e);

/* Read [ADDR, ADDR + LEN) of T from the file mapped there, for memory a
   core leaves out because the file holds it (a library's read-only
   data): 0, or -1 (not file-backed, not readable, not all of it). */
int hi_target_read_mapped_file (const struct hi_target *t, uint64_t addr,
                                void *buf, size_t len);
/* Read [ADDR, ADDR + LEN) of an object's data in T: its memory, else
   the file mapped there, else (PATH not NULL) the ELF file PATH, loaded
   with bias LOAD, at its link-time address (gdb's gcore leaves a
   library's read-only data out of the core and its map).  0, or -1. */
int hi_target_read_object (const struct hi_target *t, uint64_t addr,
                           void *buf, size_t len, const char *path,
                           uint64_t load);

/* 1 if the ELF file PATH is not the object T has mapped from LOAD on:
   the build-id in T's copy of its first page (a core keeps it) is not
   the file's.  0 if they are the same, or either does not say. */
int hi_target_file_differs (const struct hi_target *t, uint64_t load,
                            const char *path);

/* The lowest p_vaddr of ELF's PT_LOAD segments, page-aligned down, in
   *VADDR, and whether the file is position-independent (ET_DYN: its
   addresses move with its load) in *IS_DYN.  0, or -1. */
typedef struct Elf Elf;
int hi_elf_first_load (Elf *elf, uint64_t *vaddr, int *is_dyn);

/* Read LEN bytes of ELF file PATH at its link-time address VADDR (from
   its PT_LOAD segments): for a file's read-only data a core left out
   without naming it (gdb's gcore writes no segment for it).  0, or
   -1. */
int hi_elf_read_vaddr (const char *path, uint64_t vaddr, void *buf,
                       size_t len);

/* For ELF file PATH mapped from LOAD_START on (its first page): the
   address of symbol NAME in its separate debug file, found by the
   file's build-id under /usr/lib/debug/.build-id (Debian's -dbg
   packages), .symtab then .dynsym; *VALUE gets the symbol's st_value
   (a TLS symbol's offset in its block).  0, or -1. */
int hi_find_debug_symbol (const char *path, uint64_t load_start,
                          const char *name, uint64_t *addr,
                          uint64_t *value);

/* A thread as glibc's libthread_db lists it (thread-db.c). */
struct hi_db_thread
{
  uint64_t descriptor;          /* its struct pthread (th_unique) */
  uint64_t tid;                 /* its kernel thread id */
  uint64_t start;               /* its start function; 0 for the main
                                   thread */
  uint64_t tls;                 /* with hi_thread_db_list_tls: the TLS
                                   variable's address in this thread; 0
                                   if unknown */
};

/* The threads of T that glibc has not yet cleaned up after (running,
   or killed with the process and not reaped), as libthread_db lists
   them: 0 with *OUT (malloc'd, N of them), or -1 with *WHY saying why
   not (no libthread_db, another glibc, a target the host reads). */
int hi_thread_db_list (const struct hi_target *t, struct hi_db_thread **out,
                       size_t *n, const char **why);
/* The same, with each thread's address of the TLS variable at OFFSET in
   the TLS block of the module whose link_map is at MAP (td_thr_tls_get_
   addr: a dlopen'd module's through the DTV too). */
int hi_thread_db_list_tls (const struct hi_target *t, uint64_t map,
                           uint64_t offset, struct hi_db_thread **out,
                           size_t *n, const char **why);

/* The same from the target's threads' registers, without libthread_db
   (static-tls.c): each thread's address of the variable at OFFSET in the
   static TLS block of the module whose link_map is at MAP, from its
   thread pointer; only tid and tls are set.  0, or -1 when the module
   has no static TLS block or the target no threads. */
int hi_threads_static_tls (const struct hi_target *t, uint64_t map,
                           uint64_t offset, struct hi_db_thread **out,
                           size_t *n);

/* The same from the threads' registers, without libthread_db
   (static-tls.c): every block each thread's DTV (at its thread pointer)
   names, static and dynamic, the unallocated left out.  0 with *OUT
   (malloc'd, *N addresses), or -1. */
int hi_threads_dtv_blocks (const struct hi_target *t, uint64_t **out,
                           size_t *n);

/* The start function of the thread whose thread pointer is FS_BASE in
   T, from its glibc thread descriptor (0 for the main thread), without
   libthread_db.  0, or -1. */
int hi_target_thread_start (const struct hi_target *t, uint64_t fs_base,
                            uint64_t *start);

/* The TLS block of every loaded object with TLS in every thread of T
   libthread_db lists (td_thr_tls_get_addr: a dlopen'd module's block,
   which glibc allocates on first use and reaches only through the
   thread's DTV, as well as the static ones): 0 with *OUT (malloc'd, N
   addresses), or -1 with *WHY. */
int hi_thread_db_tls_blocks (const struct hi_target *t, uint64_t **out,
                             size_t *n, const char **why);

/* The thread whose stack holds an address (hi_stack_thread). */
struct hi_stack_thread
{
  uint64_t tid;                 /* its kernel thread id (LWP) */
  uint64_t start;               /* its start function (libthread_db's
                                   ti_startfunc); 0 if not known */
  int main;                     /* 1: libthread_db says it is the main
                                   thread (no start function) */
};

/* Which thread of T has ADDR on its stack: the one whose stack pointer
   lies in the mapping holding ADDR (a thread's stack mapping also holds
   its descriptor and static TLS), with its start function where
   libthread_db can tell.  0 and *OUT, or -1 (no thread's stack, or T
   gives no threads or no map). */
int hi_stack_thread (const struct hi_target *t, uint64_t addr,
                     struct hi_stack_thread *out);

/* The address of the link_map of the loaded object whose load bias
   (l_addr) is BIAS, from the dynamic linker's _r_debug list.  0, or
   -1. */
int hi_target_link_map (const struct hi_target *t, uint64_t bias,
                        uint64_t *map);

#endif
