# reader/local.mk - the reader library shared by the CLI and the gdb plugin.
noinst_LTLIBRARIES += %reldir%/libhireader.la
%canon_reldir%_libhireader_la_SOURCES = %reldir%/hi-reader.h \
	%reldir%/util/errors.c %reldir%/util/errors.h %reldir%/util/text.c %reldir%/util/text.h %reldir%/util/num.h %reldir%/util/escape.c %reldir%/target/target-snapshot.c %reldir%/target/target-core.c \
	%reldir%/target/target-process.c %reldir%/target/target-raw.c %reldir%/target/elfsym.c \
	%reldir%/model/model.c %reldir%/model/arena.c %reldir%/model/budget.c %reldir%/util/strtab.h %reldir%/util/strtab.c %reldir%/util/hash.h %reldir%/util/hash.c \
	%reldir%/symbols/symbolize.h %reldir%/symbols/symbolize.c %reldir%/analysis/analysis.h \
	%reldir%/analysis/analysis.c %reldir%/tables/table-stat.c %reldir%/tables/table-bins.c \
	%reldir%/tables/table-leaks.c %reldir%/tables/table-direct.c %reldir%/tables/table-graph.c \
	%reldir%/report.c %reldir%/report/emit.c %reldir%/model/model.h %reldir%/target/target.h %reldir%/target/target.c common/clock.h %reldir%/tables/tables.h %reldir%/tables/block.c
%canon_reldir%_libhireader_la_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS) $(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
%canon_reldir%_libhireader_la_LIBADD = $(DW_LIBS) -lelf -lstdc++ $(PROTOBUF_C_LIBS) $(ZLIB_LIBS)
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/options.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/rmodel.h %reldir%/report/rmodel.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/symbols/cxxname.h %reldir%/symbols/cxxname.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/analysis/filter.h %reldir%/analysis/filter.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/analysis/suppress.c %reldir%/analysis/suppress-default.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-text.c %reldir%/report/emit-json.c %reldir%/tables/summary.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/analysis/callgraph.h %reldir%/analysis/callgraph.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model/procinfo.c

%canon_reldir%_libhireader_la_SOURCES += %reldir%/symbols/modsyms.h %reldir%/symbols/modsyms.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/analysis/where.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/samples.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-pprof.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-pprof-text.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-folded.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/weight.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-svg.c

# pprof's profile.proto (Apache-2.0, from github.com/google/pprof, kept
# as it is) and the C code protoc-c makes of it, in the build tree.
EXTRA_DIST += %reldir%/report/profile.proto
nodist_%canon_reldir%_libhireader_la_SOURCES = %reldir%/report/profile.pb-c.c \
	%reldir%/report/profile.pb-c.h
BUILT_SOURCES += %reldir%/report/profile.pb-c.c %reldir%/report/profile.pb-c.h
CLEANFILES += %reldir%/report/profile.pb-c.c %reldir%/report/profile.pb-c.h
# One rule makes both files; the header waits for the source.
%reldir%/report/profile.pb-c.c: %reldir%/report/profile.proto
	$(AM_V_GEN)$(MKDIR_P) %reldir%/report && \
	$(PROTOC_C) --proto_path=$(srcdir)/%reldir%/report --c_out=%reldir%/report \
	  $(srcdir)/%reldir%/report/profile.proto
%reldir%/report/profile.pb-c.h: %reldir%/report/profile.pb-c.c
	@test -f $@ || { rm -f $<; $(MAKE) $(AM_MAKEFLAGS) $<; }
%canon_reldir%_libhireader_la_SOURCES += %reldir%/util/outfile.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/svg-script.h %reldir%/report/svg-script.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/table-peak.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/table-types.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/table-temporary.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/table-lifetimes.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/chain-table.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/analysis/path-rows.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/timetab.h %reldir%/report/time-text.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/table-timeline.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model/model-time.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/diff.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-massif.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/report/emit-svg-timeline.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/symbols/dwscopes.h %reldir%/symbols/dwscopes.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model/model-guard.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model/chunk.h %reldir%/model/chunk.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/tables/table-errors.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach.h %reldir%/reach/reach.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-int.h %reldir%/reach/reach-map.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-blocks.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-mark.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-report.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-glibc.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-stacks.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/target/thread-db.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/target/static-tls.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/target/loader-slot.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/target/ptrace-refusal.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/glibc/glibc.h \
	%reldir%/glibc/glibc-layout.c %reldir%/glibc/glibc-load.c \
	%reldir%/glibc/glibc-chunk.c %reldir%/glibc/glibc-verify.c \
	%reldir%/glibc/glibc-monitor.c \
	%reldir%/tables/table-glibc.c %reldir%/tables/table-glibc-bins.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-stale.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-chunks.c \
	%reldir%/reach/reach-report-glibc.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/symbols/mapsyms.h %reldir%/symbols/mapsyms.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/util/vec.h %reldir%/util/vec.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/util/sort.h
%canon_reldir%_libhireader_la_SOURCES += %reldir%/reach/reach-ref.h \
	%reldir%/reach/reach-ref.c %reldir%/reach/reach-ref-roots.c \
	%reldir%/reach/reach-ref-report.c \
	%reldir%/symbols/datasym.h %reldir%/symbols/datasym.c
%canon_reldir%_libhireader_la_SOURCES += %reldir%/model/model-delta.c
