# demo/local.mk - the bundled demo program.
noinst_PROGRAMS = %reldir%/widget
%canon_reldir%_widget_CFLAGS = $(AM_CFLAGS) -g -fno-optimize-sibling-calls
noinst_PROGRAMS += %reldir%/shapes
%canon_reldir%_shapes_SOURCES = %reldir%/shapes.cc
%canon_reldir%_shapes_CXXFLAGS = $(AM_CXXFLAGS) -g -fno-optimize-sibling-calls
noinst_PROGRAMS += %reldir%/arena
%canon_reldir%_arena_CFLAGS = $(AM_CFLAGS) -g -fno-optimize-sibling-calls
