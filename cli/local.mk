# cli/local.mk - heapinspect(1).
bin_PROGRAMS += %reldir%/heapinspect
%canon_reldir%_heapinspect_SOURCES = %reldir%/cli.h %reldir%/main.c \
	%reldir%/source.c %reldir%/cmd-modules.c %reldir%/cmd-run.c \
	%reldir%/run-trace.c lib/output-name.h lib/output-name.c \
	reader/options.h
%canon_reldir%_heapinspect_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/lib -DHI_LIBDIR='"$(libdir)"'
%canon_reldir%_heapinspect_LDADD = reader/libhireader.la
