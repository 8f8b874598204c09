/* protocol.h - what heap.gdb and heapinspect-gdb.so say to each other,
   defined once: the plugin includes it, and gen-heap-gdb writes heap.gdb's
   commands from it at build time, so the two cannot drift apart.

   A heap command writes a request into the channel, a file gdb holds open
   at descriptor HI_GDB_CHANNEL_FD (reached as /proc/self/fd/N):

     # heapinspect-request 2 NAME
     echo <what to say if the plugin is never called>
     # arg WORD            one line per word after the command, or
     # addr DECIMAL        the address `heap block` computed

   (each line may end with the NUL of gdb's string literal).  The plugin
   replaces it with the answer, as gdb `echo` commands, that heap.gdb then
   `source`s. */
#ifndef HI_GDB_PROTOCOL_H
#define HI_GDB_PROTOCOL_H

#define HI_GDB_CHANNEL_FD 1017
#define HI_GDB_REQUEST_TAG "# heapinspect-request 2 "
/* Words a command takes after its name (gdb splits at spaces). */
#define HI_GDB_MAX_WORDS 16

/* The commands: name, and how the words after it are taken (WORDS:
   options passed as they are; EXPR: one gdb expression, evaluated by gdb
   in C, whose value is passed as an address).  A name is at most 15
   characters (the plugin's request keeps 15). */
#define HI_GDB_COMMANDS(X) \
  X (leaks, WORDS) X (bins, WORDS) X (direct, WORDS) X (graph, WORDS) \
  X (stat, WORDS) X (block, EXPR) X (export, WORDS) X (peak, WORDS) \
  X (timeline, WORDS) X (diff, WORDS) X (types, WORDS)

#endif
