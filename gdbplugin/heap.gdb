# heap.gdb - heapinspect's commands for gdb, without Python: heap leaks,
# heap bins, heap direct, heap graph, heap stat, heap block.  Each runs
# heapinspect-gdb.so, a C plugin loaded through gdb's JIT reader interface
# that reads the inferior through gdb (live, core or remote) and prints
# the same tables as heapinspect(1).  See heapinspect-gdb(7).

define-prefix heap
document heap
Heap profile of the inferior, as recorded by the heapinspect monitor
(libheapinspect.so): mprof's tables, and the block that holds an address.
Works on live processes, attached processes, core files and remote targets.
List of heap subcommands:
  heap leaks [N]   memory never freed, by call chain (N functions, default 5)
  heap bins        allocations per requested size, with matching types
  heap direct      allocations per function that called malloc
  heap graph       the allocation call graph, gprof style
  heap stat        totals: allocations, frees, live and peak bytes, ...
  heap block ADDR  the block that holds ADDR, and who allocated it
end

# _heapinspect_call CMD ARG: ask the plugin; keep the selected thread and
# frame (loading a JIT reader selects frame 0 again).
define _heapinspect_call
  if $_thread == 0
    echo heap: no process or core file: run the program, attach to it, or open a core\n
  else
    set $_heapinspect_thread = $_thread
    set $_heapinspect_sp = $sp
    set $_heapinspect_pc = $pc
    if $_isvoid($_heapinspect_loaded)
      jit-reader-load /work/main/gdbplugin/.libs/heapinspect-gdb.so
      set $_heapinspect_loaded = 1
    end
    eval "dump binary value /proc/self/fd/1017 \"# heapinspect %d %lu\\necho heap: no heapinspect data in this inferior; run it with LD_PRELOAD=.../libheapinspect.so\\\\n\\n\"", $arg0, $arg1
    jit-reader-unload
    jit-reader-load /work/main/gdbplugin/.libs/heapinspect-gdb.so
    source /proc/self/fd/1017
    if $_thread != $_heapinspect_thread
      thread $_heapinspect_thread
    end
    select-frame 0
    while $sp != $_heapinspect_sp || $pc != $_heapinspect_pc
      up-silently
    end
  end
end
document _heapinspect_call
Internal to the heap commands.
end

define heap leaks
  if $argc == 0
    _heapinspect_call 1 0
  else
    set $_heapinspect_arg = (unsigned long) ($arg0)
    _heapinspect_call 1 $_heapinspect_arg
  end
end
document heap leaks
List memory never freed, by call chain.
Usage: heap leaks [N]
Memory allocated and never freed, by partial call chain, most bytes first:
kept bytes (%), allocations, bytes (%), frees, bytes freed, and the path
from main to the function that called malloc, at most N functions (default 5).
end

define heap bins
  _heapinspect_call 2 0
end
document heap bins
List allocations per requested size, with the program's types of that size.
Usage: heap bins
Allocations per requested size 0..1024 and >1024: allocations, bytes (%),
frees, kept bytes (%), and the program's struct, union and typedef names
of that size.
end

define heap direct
  _heapinspect_call 3 0
end
document heap direct
List allocations per function that called the allocator.
Usage: heap direct
Per function that called malloc: % of bytes, bytes, bytes kept, calls, and
size-class breakdowns (s <= 32 < m <= 256 < l <= 2048 < x).
end

define heap graph
  _heapinspect_call 4 0
end
document heap graph
Print the allocation call graph, gprof style.
Usage: heap graph
Per function, the bytes it and its callees allocated, its callers above it
and its callees below it; recursion merged into <cycle N> entries.
end

define heap stat
  _heapinspect_call 5 0
end
document heap stat
Print heap totals: allocations, frees, live and peak bytes, ...
Usage: heap stat
Totals, one "key: value" a line: allocations, frees, live and peak bytes,
foreign frees, sites, caller/callee pairs, prefix-cache hit rate, threads.
end

define heap block
  if $argc != 1
    echo Usage: heap block ADDRESS   (an expression without spaces)\n
  else
    set $_heapinspect_arg = (unsigned long) ($arg0)
    _heapinspect_call 6 $_heapinspect_arg
  end
end
document heap block
Say which heap block holds an address, and who allocated it.
Usage: heap block ADDRESS
The block allocated through heapinspect that holds ADDRESS, an expression
without spaces such as $rdi or w+16: where it starts, its size, whether it
was freed, and the call chain that allocated it.
end

# Load the plugin now, before the program registers its data with gdb:
# otherwise gdb's own reader says "JITed symbol file is not an object
# file" at that moment.  If another JIT reader is loaded, this fails with
# gdb's one-line message, and so will the heap commands.
jit-reader-load /work/main/gdbplugin/.libs/heapinspect-gdb.so
set $_heapinspect_loaded = 1
