/* protocol.h - what heap.gdb and heapinspect-gdb.so say to each other,
   defined once: the plugin includes it, and gen-heap-gdb writes heap.gdb
   and heap-run.gdb from it at build time, so they cannot drift apart.

   A heap command writes a request into the channel, a file gdb holds open
   at descriptor HI_GDB_CHANNEL_FD (reached as /proc/self/fd/N):

     # heapinspect-request 3 NAME COUNT
     # arg WORD            one line per word after the command (at most
                           HI_GDB_MAX_WORDS of the COUNT the user gave), or
     # addr DECIMAL        the address `heap block` computed
     # thread N            heap lost: every thread of the inferior, by
                           gdb's number, and for each whose registers gdb
     # regs N V0 V1 ...    can read, their values (decimal) in the order
                           HI_GDB_REGS names them

   (each line may end with the NUL of gdb's string literal).  Every line
   is a comment: sourced with no plugin to answer it, the request does
   nothing.  heap lost and heap block also write gdb's `info proc
   mappings` into the map file, at HI_GDB_MAPS_FD.  The plugin replaces
   the request with the answer: gdb `echo` commands, then a line setting
   HI_GDB_ANSWERED (the plugin ran) and, when the command failed, a
   `shell kill -INT GDB-PID` and a `while`: gdb stops the command with
   "Quit" as it does on Ctrl-C, a gdb error, once the lines are printed.
   When the plugin never ran (no monitor's JIT entry), heap-run.gdb adds
   the memory map, every thread's registers and a HI_GDB_GLIBC_TAG line,
   and loads the plugin again: gdb then asks its unwinder about frame 0,
   and the plugin answers there from glibc's own heap.  When that did not
   run either, heap-run.gdb writes HI_GDB_QUIT_TAG into the channel and
   loads it again: it puts the same commands there. */
#ifndef HI_GDB_PROTOCOL_H
#define HI_GDB_PROTOCOL_H

#include "hi-reader.h"

#define HI_GDB_CHANNEL_FD 1017
#define HI_GDB_MAPS_FD 1018
#define HI_GDB_REQUEST_TAG "# heapinspect-request 3 "
#define HI_GDB_QUIT_TAG "# heapinspect-quit"
#define HI_GDB_GLIBC_TAG "# glibc"
/* Words a command takes after its name (gdb splits at spaces). */
#define HI_GDB_MAX_WORDS 16
/* Bytes they may take, their "# arg " lines counted. */
#define HI_GDB_MAX_WORDS_LEN 16000

/* The flag the answer sets: a gdb maintenance test setting, which
   nothing else uses (heap-run.gdb clears it before each request). */
#define HI_GDB_ANSWERED "maintenance set test-settings zinteger 1"

/* The commands: `heap NAME` for each table of the reader's registry
   (HI_TABLES in hi-reader.h), whose words are options, and these others,
   X (NAME, KIND), KIND how the words after the name are taken: WORDS,
   options passed as they are; ROOTS, as WORDS, and every thread's
   registers after them, the roots of the reachability scan (and the
   threads' tcaches of glibc's heap); EXPR, as ROOTS but one gdb
   expression in place of the words, evaluated by gdb in C, whose value
   is passed as an address.  EXPR and ROOTS also pass the memory map.  A name is at most 15
   characters (the plugin's request keeps 15). */
#define HI_GDB_OTHER_COMMANDS(X) \
  X (block, EXPR) X (export, WORDS) X (diff, WORDS) X (lost, ROOTS) \
  X (verify, ROOTS) X (ref, EXPR) X (attach, WORDS)
enum hi_gdb_kind { HI_GDB_WORDS, HI_GDB_EXPR, HI_GDB_ROOTS };

/* The registers of a "# regs" line, in its order, as gdb names them
   (x86-64), and the index of each in struct hi_thread_regs' regs[]
   (user_regs_struct's order).  Only those that may hold a pointer:
   flags, segment selectors and orig_rax never point into the heap. */
#define HI_GDB_REGS(X) \
  X (r15, 0) X (r14, 1) X (r13, 2) X (r12, 3) X (rbp, 4) X (rbx, 5) \
  X (r11, 6) X (r10, 7) X (r9, 8) X (r8, 9) X (rax, 10) X (rcx, 11) \
  X (rdx, 12) X (rsi, 13) X (rdi, 14) X (rip, 16) X (rsp, 19) \
  X (fs_base, 21) X (gs_base, 22)
#define HI_GDB_REG_SP 19       /* rsp's index */
#define HI_GDB_REG_FS_BASE 21
#define HI_GDB_NREGS 27        /* words of user_regs_struct */

#endif
