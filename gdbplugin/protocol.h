/* protocol.h - what heap.gdb and heapinspect-gdb.so say to each other,
   defined once: the plugin includes it, and gen-heap-gdb writes heap.gdb's
   commands from it at build time, so the two cannot drift apart.

   A heap command writes a request into the channel, a file gdb holds open
   at descriptor HI_GDB_CHANNEL_FD (reached as /proc/self/fd/N):

     # heapinspect-request 2 NAME
     echo <what to say if the plugin is never called>
     # arg WORD            one line per word after the command, or
     # addr DECIMAL        the address `heap block` computed
     # regs V0 V1 ...      heap lost: one line per thread, the values
                           (decimal) of the registers HI_GDB_REGS names

   (each line may end with the NUL of gdb's string literal).  The plugin
   replaces it with the answer, as gdb `echo` commands, that heap.gdb then
   `source`s. */
#ifndef HI_GDB_PROTOCOL_H
#define HI_GDB_PROTOCOL_H

#include "hi-reader.h"

#define HI_GDB_CHANNEL_FD 1017
#define HI_GDB_REQUEST_TAG "# heapinspect-request 2 "
/* Words a command takes after its name (gdb splits at spaces). */
#define HI_GDB_MAX_WORDS 16

/* The commands: `heap NAME` for each table of the reader's registry
   (HI_TABLES in hi-reader.h), whose words are options, and these others,
   X (NAME, KIND), KIND how the words after the name are taken: WORDS,
   options passed as they are; EXPR, one gdb expression, evaluated by gdb
   in C, whose value is passed as an address; ROOTS, as WORDS, and every
   thread's registers after them, the roots of the reachability scan.  A
   name is at most 15 characters (the plugin's request keeps 15). */
#define HI_GDB_OTHER_COMMANDS(X) \
  X (block, EXPR) X (export, WORDS) X (diff, WORDS) X (lost, ROOTS)

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
