# demo/local.mk - the bundled demo program.
noinst_PROGRAMS = %reldir%/widget
%canon_reldir%_widget_CFLAGS = $(AM_CFLAGS) -g -fno-optimize-sibling-calls
