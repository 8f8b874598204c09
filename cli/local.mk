# cli/local.mk - heapinspect(1).
bin_PROGRAMS += %reldir%/heapinspect
%canon_reldir%_heapinspect_SOURCES = %reldir%/cli.h %reldir%/commands.h \
	%reldir%/main.c %reldir%/options.c %reldir%/usage.c \
	%reldir%/source.c %reldir%/cmd-report.c %reldir%/cmd-block.c \
	%reldir%/cmd-modules.c %reldir%/cmd-run.c \
	%reldir%/run-trace.c %reldir%/output.c common/output-name.h common/output-name.c

nodist_%canon_reldir%_heapinspect_SOURCES = %reldir%/paths.h

# The directory run preloads the monitor from, as this make sees it: made
# on every make, replaced only when it changed, so a reconfigure (or
# `make install prefix=DIR`) rebuilds what uses it and nothing else.
BUILT_SOURCES += %reldir%/paths.h
CLEANFILES += %reldir%/paths.h
%reldir%/paths.h: FORCE
	@$(MKDIR_P) %reldir%
	@echo '#define HI_LIBDIR "$(libdir)"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; \
	 else mv -f $@.tmp $@; echo "  GEN      $@"; fi
FORCE:
.PHONY: FORCE
%canon_reldir%_heapinspect_LDADD = reader/libhireader.la
# libthread_db calls back the reader's proc_service (reader/target/
# thread-db.c): the ps_* functions must be in the dynamic symbol table.
%canon_reldir%_heapinspect_LDFLAGS = -Wl,--export-dynamic-symbol=ps_*
%canon_reldir%_heapinspect_SOURCES += %reldir%/cmd-diff.c
%canon_reldir%_heapinspect_SOURCES += %reldir%/cmd-leakcheck.c
%canon_reldir%_heapinspect_SOURCES += %reldir%/cmd-ref.c
%canon_reldir%_heapinspect_SOURCES += %reldir%/cmd-attach.c \
	%reldir%/inject.h %reldir%/inject.c
# heapinspect serve: the HTTP server (serve.c), the processes it finds
# (serve-procs.c) and its pages.
%canon_reldir%_heapinspect_SOURCES += %reldir%/serve.h %reldir%/serve-pages.h \
	%reldir%/serve.c %reldir%/serve-http.c %reldir%/serve-procs.c \
	%reldir%/serve-pprof.c %reldir%/serve-html.c \
	%reldir%/serve-metrics.c
%canon_reldir%_heapinspect_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
%canon_reldir%_heapinspect_LDADD += $(MHD_LIBS) -lpthread
# The systemd unit of heapinspect serve (heapinspect(1) says what it
# needs and why).
EXTRA_DIST += contrib/heapinspect-serve.service
