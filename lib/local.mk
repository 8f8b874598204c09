# lib/local.mk - the monitor: libheapinspect.so, and libheapinspect.a for
# static links with -Wl,--wrap=malloc,... (entry points named __wrap_*).
monitor_sources = %reldir%/prim.h %reldir%/prim-linux.c %reldir%/monitor.h \
	%reldir%/init.c %reldir%/chain.c %reldir%/account.h %reldir%/account.c \
	%reldir%/malloc.c %reldir%/modules.c %reldir%/snapshot.c \
	%reldir%/output-name.h %reldir%/output-name.c \
	%reldir%/jit.c %reldir%/chain-cache.h %reldir%/chain-cache.c \
	%reldir%/unwind.h %reldir%/unwind.c %reldir%/process.c \
	%reldir%/timeline.c
# Heap errors and guards (issue 14).
monitor_sources += %reldir%/guard.h %reldir%/guard.c
monitor_sources += %reldir%/quarantine.c
monitor_sources += %reldir%/leak-stop.h %reldir%/leakstop.c
monitor_sources += %reldir%/types.c
monitor_sources += %reldir%/pools.c
monitor_sources += %reldir%/shadow.c
monitor_cflags = $(AM_CFLAGS) -fvisibility=hidden -ftls-model=initial-exec -fno-plt \
	-fno-omit-frame-pointer \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc \
	-fno-builtin-realloc

lib_LTLIBRARIES += %reldir%/libheapinspect.la
%canon_reldir%_libheapinspect_la_SOURCES = $(monitor_sources)
%canon_reldir%_libheapinspect_la_CFLAGS = $(monitor_cflags)
%canon_reldir%_libheapinspect_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-Wl,-z,nodelete
%canon_reldir%_libheapinspect_la_LIBADD = -lpthread -ldl

lib_LIBRARIES += %reldir%/libheapinspect.a
%canon_reldir%_libheapinspect_a_SOURCES = $(monitor_sources)
%canon_reldir%_libheapinspect_a_CPPFLAGS = $(AM_CPPFLAGS) -DHI_WRAP
%canon_reldir%_libheapinspect_a_CFLAGS = $(monitor_cflags)
