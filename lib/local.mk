# lib/local.mk - the monitor: libheapinspect.so, libheapinspect-attach.so
# (the same, to dlopen into a running program), and libheapinspect.a for
# static links with -Wl,--wrap=malloc,... (entry points named __wrap_*).
# The monitor's files, by layer from the OS up (monitor.h draws them).
monitor_sources = \
	%reldir%/prim.h %reldir%/prim-linux.c \
	%reldir%/monitor.h %reldir%/state.c %reldir%/init.c \
	%reldir%/unwind.h %reldir%/unwind.c \
	%reldir%/chain-cache.h %reldir%/chain-cache.c \
	%reldir%/shadow.h %reldir%/shadow.c \
	%reldir%/modules.h %reldir%/modules.c \
	%reldir%/timeline.h %reldir%/timeline.c \
	%reldir%/client.h %reldir%/types.c %reldir%/pools.c \
	%reldir%/tools.h %reldir%/process.c %reldir%/snapshot.c %reldir%/jit.c \
	%reldir%/leakstop.c \
	common/output-name.h common/output-name.c common/clock.h \
	%reldir%/chain.h %reldir%/chain.c \
	%reldir%/account.h %reldir%/account.c \
	%reldir%/guard.h %reldir%/guard.c %reldir%/quarantine.c \
	%reldir%/malloc.c
monitor_cflags = $(AM_CFLAGS) -fvisibility=hidden -fno-plt \
	-fno-omit-frame-pointer \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc \
	-fno-builtin-realloc

lib_LTLIBRARIES += %reldir%/libheapinspect.la
%canon_reldir%_libheapinspect_la_SOURCES = $(monitor_sources) \
	%reldir%/attach.h %reldir%/attach.c
%canon_reldir%_libheapinspect_la_CFLAGS = $(monitor_cflags) -ftls-model=initial-exec
%canon_reldir%_libheapinspect_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-Wl,-z,nodelete
%canon_reldir%_libheapinspect_la_LIBADD = -lpthread -ldl

# The same monitor for dlopen into a running program (heapinspect_attach):
# its thread-local data dynamic (TLS descriptors), as glibc keeps too
# little static TLS for objects loaded later, each variable's address
# kept after a thread's first access in a slot of
# libheapinspect-attach-tls.so's (initial-exec, 48 bytes: monitor.h's
# HI_TLS), found beside it ($ORIGIN).  It is linked with the built .so
# itself, not its .la: libtool would relink the monitor at install,
# which `make install prefix=DIR` refuses (install.exp).
lib_LTLIBRARIES += %reldir%/libheapinspect-attach-tls.la
%canon_reldir%_libheapinspect_attach_tls_la_SOURCES = %reldir%/attach-tls.c
%canon_reldir%_libheapinspect_attach_tls_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHI_TLS_DYNAMIC
%canon_reldir%_libheapinspect_attach_tls_la_CFLAGS = $(monitor_cflags)
%canon_reldir%_libheapinspect_attach_tls_la_LDFLAGS = -version-info 0:0:0 \
	-no-undefined -Wl,-z,nodelete

lib_LTLIBRARIES += %reldir%/libheapinspect-attach.la
%canon_reldir%_libheapinspect_attach_la_SOURCES = $(monitor_sources) \
	%reldir%/attach.h %reldir%/attach.c
%canon_reldir%_libheapinspect_attach_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHI_TLS_DYNAMIC
%canon_reldir%_libheapinspect_attach_la_CFLAGS = $(monitor_cflags) \
	-mtls-dialect=gnu2
%canon_reldir%_libheapinspect_attach_la_LDFLAGS = -version-info 0:0:0 \
	-no-undefined -Wl,-z,nodelete -Wl,-rpath,'$$ORIGIN' \
	-Wl,%reldir%/.libs/libheapinspect-attach-tls.so
%canon_reldir%_libheapinspect_attach_la_LIBADD = -lpthread -ldl
EXTRA_%canon_reldir%_libheapinspect_attach_la_DEPENDENCIES = \
	%reldir%/libheapinspect-attach-tls.la

lib_LIBRARIES += %reldir%/libheapinspect.a
%canon_reldir%_libheapinspect_a_SOURCES = $(monitor_sources)
%canon_reldir%_libheapinspect_a_CPPFLAGS = $(AM_CPPFLAGS) -DHI_WRAP
%canon_reldir%_libheapinspect_a_CFLAGS = $(monitor_cflags) -ftls-model=initial-exec
