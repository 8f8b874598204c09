# reader/local.mk - the reader library shared by the CLI and the gdb plugin.
noinst_LTLIBRARIES += %reldir%/libhireader.la
%canon_reldir%_libhireader_la_SOURCES = %reldir%/hi-reader.h \
	%reldir%/errors.c %reldir%/escape.c %reldir%/target-snapshot.c %reldir%/target-core.c \
	%reldir%/target-process.c %reldir%/target-raw.c %reldir%/elfsym.c \
	%reldir%/model.c %reldir%/strtab.h %reldir%/strtab.c %reldir%/hash.h %reldir%/hash.c \
	%reldir%/symbolize.h %reldir%/symbolize.c %reldir%/analysis.h \
	%reldir%/analysis.c %reldir%/table-stat.c %reldir%/table-bins.c \
	%reldir%/table-leaks.c %reldir%/table-direct.c %reldir%/table-graph.c \
	%reldir%/report.c %reldir%/block.c
%canon_reldir%_libhireader_la_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS) $(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
%canon_reldir%_libhireader_la_LIBADD = $(DW_LIBS) -lelf -lstdc++ $(PROTOBUF_C_LIBS) $(ZLIB_LIBS)
%canon_reldir%_libhireader_la_SOURCES += %reldir%/options.h %reldir%/options.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/rmodel.h %reldir%/rmodel.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/cxxname.h %reldir%/cxxname.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/filter.h %reldir%/filter.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/suppress.c %reldir%/suppress-default.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-text.c %reldir%/emit-json.c %reldir%/summary.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/callgraph.h %reldir%/callgraph.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/procinfo.c

%canon_reldir%_libhireader_la_SOURCES += %reldir%/modsyms.h %reldir%/modsyms.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/where.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/samples.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-pprof.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-pprof-text.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-folded.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-svg.c

# pprof's profile.proto (Apache-2.0, from github.com/google/pprof, kept
# as it is) and the C code protoc-c makes of it, in the build tree.
EXTRA_DIST += %reldir%/profile.proto
nodist_%canon_reldir%_libhireader_la_SOURCES = %reldir%/profile.pb-c.c \
	%reldir%/profile.pb-c.h
BUILT_SOURCES += %reldir%/profile.pb-c.c %reldir%/profile.pb-c.h
CLEANFILES += %reldir%/profile.pb-c.c %reldir%/profile.pb-c.h
# One rule makes both files; the header waits for the source.
%reldir%/profile.pb-c.c: %reldir%/profile.proto
	$(AM_V_GEN)$(MKDIR_P) %reldir% && \
	$(PROTOC_C) --proto_path=$(srcdir)/%reldir% --c_out=%reldir% \
	  $(srcdir)/%reldir%/profile.proto
%reldir%/profile.pb-c.h: %reldir%/profile.pb-c.c
	@test -f $@ || { rm -f $<; $(MAKE) $(AM_MAKEFLAGS) $<; }
%canon_reldir%_libhireader_la_SOURCES += %reldir%/outfile.h %reldir%/outfile.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/svg-script.h %reldir%/svg-script.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/table-peak.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/table-types.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/table-temporary.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/table-lifetimes.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/path-rows.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/timetab.h %reldir%/time-text.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/table-timeline.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model-time.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/diff.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-massif.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/emit-svg-timeline.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/dwscopes.h %reldir%/dwscopes.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model-guard.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/table-errors.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach.h %reldir%/reach.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach-int.h %reldir%/reach-map.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach-blocks.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach-mark.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach-report.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach-glibc.c
