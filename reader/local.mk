# reader/local.mk - the reader library shared by the CLI and the gdb plugin.
noinst_LTLIBRARIES += %reldir%/libhireader.la
%canon_reldir%_libhireader_la_SOURCES = %reldir%/hi-reader.h \
	%reldir%/errors.c %reldir%/target-snapshot.c %reldir%/model.c \
	%reldir%/table-stat.c
