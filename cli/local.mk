# cli/local.mk - heapinspect(1).
bin_PROGRAMS += %reldir%/heapinspect
%canon_reldir%_heapinspect_SOURCES = %reldir%/cli.h %reldir%/main.c \
	%reldir%/cmd-stat.c %reldir%/cmd-modules.c
%canon_reldir%_heapinspect_LDADD = reader/libhireader.la
