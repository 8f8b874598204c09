# bench/local.mk - programs for the benchmarks (make bench; not make check).
EXTRA_PROGRAMS = %reldir%/many-sites %reldir%/threads-scaling
%canon_reldir%_threads_scaling_CFLAGS = $(AM_CFLAGS) -g -O2 -fno-optimize-sibling-calls
%canon_reldir%_threads_scaling_LDADD = -lpthread
%canon_reldir%_many_sites_CFLAGS = $(AM_CFLAGS) -g -O1 -fno-crossjumping -fno-ipa-icf
CLEANFILES += %reldir%/many-sites %reldir%/threads-scaling
EXTRA_PROGRAMS += %reldir%/many-funcs
%canon_reldir%_many_funcs_CFLAGS = $(AM_CFLAGS) -g -O1 -fno-ipa-icf -fno-optimize-sibling-calls
CLEANFILES += %reldir%/many-funcs
# bench/run --leak-check: the reachability scan of 1 000 000 live blocks.
EXTRA_PROGRAMS += %reldir%/many-live
%canon_reldir%_many_live_CFLAGS = $(AM_CFLAGS) -g -O2
CLEANFILES += %reldir%/many-live
# bench/run --glibc: glibc's heap of 1 000 000 chunks, no monitor.
EXTRA_PROGRAMS += %reldir%/many-chunks
%canon_reldir%_many_chunks_CFLAGS = $(AM_CFLAGS) -g -O2
CLEANFILES += %reldir%/many-chunks
# bench/gdb-startup: what sourcing heap.gdb adds to gdb's start-up.
EXTRA_DIST += %reldir%/gdb-startup
# bench/run --attach: the attach time with 50 modules and 8 threads.
EXTRA_PROGRAMS += %reldir%/attach-modules
%canon_reldir%_attach_modules_CFLAGS = $(AM_CFLAGS) -g -O2
%canon_reldir%_attach_modules_LDADD = -lpthread -ldl
CLEANFILES += %reldir%/attach-modules
# bench/serve: the processes `heapinspect serve` reads, idle or looping.
EXTRA_PROGRAMS += %reldir%/serve-loop
%canon_reldir%_serve_loop_CFLAGS = $(AM_CFLAGS) -g -O2
CLEANFILES += %reldir%/serve-loop
EXTRA_DIST += %reldir%/serve
# doc/fleet.md: bench/serve's figures, and a fleet sized from them.
EXTRA_DIST += doc/fleet.md
