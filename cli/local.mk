# cli/local.mk - heapinspect(1).
bin_PROGRAMS += %reldir%/heapinspect
%canon_reldir%_heapinspect_SOURCES = %reldir%/cli.h %reldir%/main.c \
	%reldir%/source.c %reldir%/cmd-modules.c %reldir%/cmd-run.c
%canon_reldir%_heapinspect_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHI_LIBDIR='"$(libdir)"'
%canon_reldir%_heapinspect_LDADD = reader/libhireader.la
