# testsuite/local.mk - DejaGnu tests (make check) and the programs they run.
DEJATOOL = heapinspect
RUNTESTDEFAULTFLAGS = --tool heapinspect --srcdir $(abs_top_srcdir)/testsuite
AM_RUNTESTFLAGS = HI_BUILDDIR=$(abs_top_builddir) HI_SRCDIR=$(abs_top_srcdir) \
	PPROF=$(PPROF) PROTOC=$(PROTOC) XMLLINT=$(XMLLINT) CHROMIUM=$(CHROMIUM) \
	VALGRIND=$(VALGRIND) MS_PRINT=$(MS_PRINT)
# The .exp files by wildcard, from the source tree: a VPATH build (make
# distcheck) has none in its own directory.  Automake strips $(srcdir).
EXTRA_DIST += $(wildcard $(srcdir)/%reldir%/config/*.exp \
	$(srcdir)/%reldir%/lib/*.exp $(srcdir)/%reldir%/heapinspect.*/*.exp) \
	%reldir%/progs/report.h
CLEANFILES += heapinspect.log heapinspect.sum site.exp site.bak
clean-local: clean-testsuite-tmp
clean-testsuite-tmp:
	-rm -rf testsuite/tmp
.PHONY: clean-testsuite-tmp

progs_cflags = $(AM_CFLAGS) -g -fno-optimize-sibling-calls
check_PROGRAMS += %reldir%/progs/entry-points %reldir%/progs/threads \
	%reldir%/progs/forks %reldir%/progs/dlopen %reldir%/progs/cxx \
	%reldir%/progs/recurse %reldir%/progs/foreign %reldir%/progs/recursion \
	%reldir%/progs/pie-main %reldir%/progs/jit-own %reldir%/progs/coroutine \
	%reldir%/progs/widget-linked \
	%reldir%/progs/widget-static %reldir%/progs/hip-tool \
	%reldir%/progs/zero-size %reldir%/progs/leak-rows \
	%reldir%/progs/inlined %reldir%/progs/run-ends \
	%reldir%/progs/no-ptrace %reldir%/progs/heap-fill
%canon_reldir%_progs_inlined_CFLAGS = $(progs_cflags) -O2
# heapinspect.gdb/time.exp: phases, a snapshot between them, for heap
# peak, heap timeline and heap diff.
check_PROGRAMS += %reldir%/progs/gdb-time
%canon_reldir%_progs_gdb_time_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/output-name
%canon_reldir%_progs_output_name_SOURCES = %reldir%/progs/output-name.c \
	common/output-name.c common/output-name.h
%canon_reldir%_progs_output_name_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_entry_points_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_threads_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_threads_LDADD = -lpthread
%canon_reldir%_progs_forks_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_dlopen_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_dlopen_LDADD = -ldl
%canon_reldir%_progs_cxx_SOURCES = %reldir%/progs/cxx.cc
%canon_reldir%_progs_cxx_CXXFLAGS = $(AM_CXXFLAGS) -g -fno-optimize-sibling-calls
%canon_reldir%_progs_recurse_CFLAGS = $(progs_cflags) -O1
%canon_reldir%_progs_foreign_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_recursion_CFLAGS = $(progs_cflags) -O1
check_PROGRAMS += %reldir%/progs/chain-cache
%canon_reldir%_progs_chain_cache_CFLAGS = $(progs_cflags) -O1
check_PROGRAMS += %reldir%/progs/small-stacks
%canon_reldir%_progs_small_stacks_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_small_stacks_LDADD = -lpthread
%canon_reldir%_progs_jit_own_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_coroutine_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_run_ends_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_pie_main_CFLAGS = $(progs_cflags) -fPIE
%canon_reldir%_progs_pie_main_LDFLAGS = -pie -no-install
%canon_reldir%_progs_pie_main_LDADD = %reldir%/progs/libhitestlib.la

# The demo linked against the monitor instead of preloading it.
%canon_reldir%_progs_widget_linked_SOURCES = demo/widget.c
%canon_reldir%_progs_widget_linked_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_widget_linked_LDADD = lib/libheapinspect.la
%canon_reldir%_progs_widget_linked_LDFLAGS = -no-install

# The demo as a static binary, monitored through -Wl,--wrap.
%canon_reldir%_progs_widget_static_SOURCES = demo/widget.c
%canon_reldir%_progs_widget_static_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_widget_static_LDADD = lib/libheapinspect.a
%canon_reldir%_progs_widget_static_LDFLAGS = -all-static \
	-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc \
	-Wl,--wrap=reallocarray,--wrap=memalign,--wrap=posix_memalign \
	-Wl,--wrap=aligned_alloc,--wrap=valloc,--wrap=pvalloc \
	-Wl,--wrap=malloc_usable_size

# heapinspect.monitor/attach-lib.exp: the monitor dlopen'd and attached
# by the program itself.
check_PROGRAMS += %reldir%/progs/attach-self
%canon_reldir%_progs_attach_self_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_attach_self_LDADD = -ldl -lpthread
# Its dlopen of a bare name finds the library in rp/ next to it.
%canon_reldir%_progs_attach_self_LDFLAGS = -Wl,-rpath,'$$ORIGIN/rp'
check_PROGRAMS += %reldir%/progs/attach-self-nopie
%canon_reldir%_progs_attach_self_nopie_SOURCES = %reldir%/progs/attach-self.c
%canon_reldir%_progs_attach_self_nopie_CFLAGS = $(progs_cflags) -fno-pie \
	-DATTACH_NOPIE
%canon_reldir%_progs_attach_self_nopie_LDFLAGS = -no-pie
%canon_reldir%_progs_attach_self_nopie_LDADD = -ldl -lpthread
check_LTLIBRARIES += %reldir%/progs/libdltest.la %reldir%/progs/libhitestlib.la
%canon_reldir%_progs_libhitestlib_la_SOURCES = %reldir%/progs/pie-lib.c
%canon_reldir%_progs_libhitestlib_la_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_libhitestlib_la_LDFLAGS = -avoid-version -rpath /nowhere
%canon_reldir%_progs_libdltest_la_SOURCES = %reldir%/progs/dlopen-lib.c
%canon_reldir%_progs_libdltest_la_LDFLAGS = -module -avoid-version \
	-rpath /nowhere

# The reader built with ASan and UBSan, for every program below that
# links its sources in (heapinspect-asan, the unit tests' -asan builds).
asan_cflags = $(AM_CFLAGS) $(DW_CFLAGS) -g -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
asan_ldflags = -fsanitize=address,undefined
asan_ldadd = %reldir%/libhireader-asan.a $(DW_LIBS) -lelf -lstdc++ $(PROTOBUF_C_LIBS) $(ZLIB_LIBS)
# Compiled once for all of them.
check_LIBRARIES = %reldir%/libhireader-asan.a
%canon_reldir%_libhireader_asan_a_SOURCES = $(reader_libhireader_la_SOURCES)
%canon_reldir%_libhireader_asan_a_CFLAGS = $(asan_cflags)
nodist_%canon_reldir%_libhireader_asan_a_SOURCES = $(nodist_reader_libhireader_la_SOURCES)

# heapinspect(1) and its reader built with ASan and UBSan: the tests of
# damaged input run it as well as the normal build.
check_PROGRAMS += %reldir%/progs/heapinspect-asan
%canon_reldir%_progs_heapinspect_asan_SOURCES = $(cli_heapinspect_SOURCES)
%canon_reldir%_progs_heapinspect_asan_CPPFLAGS = $(AM_CPPFLAGS)
%canon_reldir%_progs_heapinspect_asan_LDADD = $(asan_ldadd) $(MHD_LIBS) -lpthread
%canon_reldir%_progs_heapinspect_asan_CFLAGS = $(asan_cflags) $(MHD_CFLAGS)
%canon_reldir%_progs_heapinspect_asan_LDFLAGS = $(asan_ldflags) \
	$(cli_heapinspect_LDFLAGS)

# Unit tests in C of the reader's pure functions, each built twice: NAME
# against the reader library, NAME-asan against the ASan one.
# heapinspect.reader/NAME.exp runs both (hi_unit_test); options.exp and
# svg.exp in heapinspect.cli and procinfo.exp in heapinspect.monitor run
# options-unit, svg-unit and procinfo-unit.  Automake wants each
# program's variables spelt out: NAME takes its default source, NAME.c,
# and what every pair shares is said once, here.
unit_ldadd = reader/libhireader.la
EXTRA_DIST += %reldir%/unit/unit-check.h %reldir%/unit/unit-rows.h
check_PROGRAMS += %reldir%/unit/diff-unit %reldir%/unit/diff-unit-asan
%canon_reldir%_unit_diff_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_diff_unit_asan_SOURCES = %reldir%/unit/diff-unit.c
%canon_reldir%_unit_diff_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_diff_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_diff_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/filters-unit %reldir%/unit/filters-unit-asan
%canon_reldir%_unit_filters_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_filters_unit_asan_SOURCES = %reldir%/unit/filters-unit.c
%canon_reldir%_unit_filters_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_filters_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_filters_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/guard-unit %reldir%/unit/guard-unit-asan
%canon_reldir%_unit_guard_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_guard_unit_asan_SOURCES = %reldir%/unit/guard-unit.c
%canon_reldir%_unit_guard_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_guard_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_guard_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/options-unit %reldir%/unit/options-unit-asan
%canon_reldir%_unit_options_unit_LDADD = $(unit_ldadd)
# (options-unit-asan compiles the parser's files, not the ASan reader.)
%canon_reldir%_unit_options_unit_asan_SOURCES = %reldir%/unit/options-unit.c \
	reader/report/options.c reader/util/escape.c reader/util/text.c
%canon_reldir%_unit_options_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_options_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/outfile-unit %reldir%/unit/outfile-unit-asan
%canon_reldir%_unit_outfile_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_outfile_unit_asan_SOURCES = %reldir%/unit/outfile-unit.c
%canon_reldir%_unit_outfile_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_outfile_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_outfile_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/procinfo-unit %reldir%/unit/procinfo-unit-asan
%canon_reldir%_unit_procinfo_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_procinfo_unit_asan_SOURCES = %reldir%/unit/procinfo-unit.c
%canon_reldir%_unit_procinfo_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_procinfo_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_procinfo_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/reach-unit %reldir%/unit/reach-unit-asan
%canon_reldir%_unit_reach_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_reach_unit_asan_SOURCES = %reldir%/unit/reach-unit.c
%canon_reldir%_unit_reach_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_reach_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_reach_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/reader-unit %reldir%/unit/reader-unit-asan
%canon_reldir%_unit_reader_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_reader_unit_asan_SOURCES = %reldir%/unit/reader-unit.c
%canon_reldir%_unit_reader_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_reader_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_reader_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/svg-unit %reldir%/unit/svg-unit-asan
%canon_reldir%_unit_svg_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_svg_unit_asan_SOURCES = %reldir%/unit/svg-unit.c
%canon_reldir%_unit_svg_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_svg_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_svg_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/symindex-unit %reldir%/unit/symindex-unit-asan
%canon_reldir%_unit_symindex_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_symindex_unit_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS)
%canon_reldir%_unit_symindex_unit_asan_SOURCES = %reldir%/unit/symindex-unit.c
%canon_reldir%_unit_symindex_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_symindex_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_symindex_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/tables-unit %reldir%/unit/tables-unit-asan
%canon_reldir%_unit_tables_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_tables_unit_asan_SOURCES = %reldir%/unit/tables-unit.c
%canon_reldir%_unit_tables_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_tables_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_tables_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/time-tables-unit %reldir%/unit/time-tables-unit-asan
%canon_reldir%_unit_time_tables_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_time_tables_unit_asan_SOURCES = %reldir%/unit/time-tables-unit.c
%canon_reldir%_unit_time_tables_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_time_tables_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_time_tables_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/time-unit %reldir%/unit/time-unit-asan
%canon_reldir%_unit_time_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_time_unit_asan_SOURCES = %reldir%/unit/time-unit.c
%canon_reldir%_unit_time_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_time_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_time_unit_asan_LDFLAGS = $(asan_ldflags)
check_PROGRAMS += %reldir%/unit/timeline-unit %reldir%/unit/timeline-unit-asan
%canon_reldir%_unit_timeline_unit_LDADD = $(unit_ldadd)
%canon_reldir%_unit_timeline_unit_asan_SOURCES = %reldir%/unit/timeline-unit.c
%canon_reldir%_unit_timeline_unit_asan_LDADD = $(asan_ldadd)
%canon_reldir%_unit_timeline_unit_asan_CFLAGS = $(asan_cflags)
%canon_reldir%_unit_timeline_unit_asan_LDFLAGS = $(asan_ldflags)

# exit-order.exp: frees made by exit handlers and a library's destructor.
check_PROGRAMS += %reldir%/progs/exit-order
check_LTLIBRARIES += %reldir%/progs/libexitorder.la
%canon_reldir%_progs_libexitorder_la_SOURCES = %reldir%/progs/exit-order-lib.c
%canon_reldir%_progs_libexitorder_la_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_libexitorder_la_LDFLAGS = -avoid-version -rpath /nowhere
%canon_reldir%_progs_exit_order_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_exit_order_LDFLAGS = -no-install
%canon_reldir%_progs_exit_order_LDADD = %reldir%/progs/libexitorder.la

# sizes.exp: the size each entry point records.
check_PROGRAMS += %reldir%/progs/sizes
%canon_reldir%_progs_sizes_CFLAGS = $(progs_cflags)

# own-work.exp: threads whose figures must equal memcheck's.
check_PROGRAMS += %reldir%/progs/thread-counts
%canon_reldir%_progs_thread_counts_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_thread_counts_LDADD = -lpthread

# signals.exp: snapshots on signals, errno, ROOT_PID.
check_PROGRAMS += %reldir%/progs/signals
%canon_reldir%_progs_signals_CFLAGS = $(progs_cflags)

# The reader's damaged-input tests: synthetic snapshots with known damage.
check_PROGRAMS += %reldir%/progs/mksnap
%canon_reldir%_progs_mksnap_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/alloc-on-input
%canon_reldir%_progs_alloc_on_input_CFLAGS = $(progs_cflags)
# heapinspect.serve/metrics.exp, prometheus.exp and bench/serve: the
# /metrics page without the server, and the processes it reads.
check_PROGRAMS += %reldir%/progs/serve-metrics-tool %reldir%/progs/serve-target
%canon_reldir%_progs_serve_metrics_tool_SOURCES = \
	%reldir%/progs/serve-metrics-tool.c cli/serve-metrics.c cli/serve-pages.h
%canon_reldir%_progs_serve_metrics_tool_LDADD = reader/libhireader.la -lpthread
%canon_reldir%_progs_serve_target_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/shadow-root
%canon_reldir%_progs_shadow_root_CFLAGS = $(progs_cflags)
# Leak rows and size-0 blocks (heapinspect.cli/leakrows.exp, zerosize.exp).
%canon_reldir%_progs_zero_size_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_leak_rows_CFLAGS = $(progs_cflags)

# stack-use.exp: the stack malloc needs on the libgcc unwinding path.
check_PROGRAMS += %reldir%/progs/stack-use
%canon_reldir%_progs_stack_use_CFLAGS = $(progs_cflags)

# filters.exp, suppress.exp: known chains through a program and a
# library; cxx-names.exp: C++ names under std::map<std::string, ...>.
check_PROGRAMS += %reldir%/progs/filter-chains
check_LTLIBRARIES += %reldir%/progs/libhifilter.la
%canon_reldir%_progs_libhifilter_la_SOURCES = %reldir%/progs/filter-lib.c
%canon_reldir%_progs_libhifilter_la_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_libhifilter_la_LDFLAGS = -avoid-version -rpath /nowhere
%canon_reldir%_progs_filter_chains_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_filter_chains_LDFLAGS = -no-install
%canon_reldir%_progs_filter_chains_LDADD = %reldir%/progs/libhifilter.la
check_PROGRAMS += %reldir%/progs/cxx-names
%canon_reldir%_progs_cxx_names_SOURCES = %reldir%/progs/cxx-names.cc
%canon_reldir%_progs_cxx_names_CXXFLAGS = $(AM_CXXFLAGS) -g -fno-inline -fno-optimize-sibling-calls

# procinfo.exp: the command line and run time the monitor records.
check_PROGRAMS += %reldir%/progs/procinfo-wait %reldir%/progs/hip-procinfo
%canon_reldir%_progs_procinfo_wait_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_hip_procinfo_LDADD = reader/libhireader.la
EXTRA_DIST += %reldir%/heapinspect.monitor/procinfo-v2.hip.gz

# names.exp, lines.exp: GCC's copies and aliases of functions, a name two
# libraries share, a stripped program, file:line and an inlined helper.
check_PROGRAMS += %reldir%/progs/names-main
check_PROGRAMS += %reldir%/progs/names-stripped
check_PROGRAMS += %reldir%/progs/names-lines
check_LTLIBRARIES += %reldir%/progs/libnames.la
check_LTLIBRARIES += %reldir%/progs/libnames2.la
%canon_reldir%_progs_libnames_la_SOURCES = %reldir%/progs/names-lib.c
%canon_reldir%_progs_libnames_la_CFLAGS = $(progs_cflags) -O2
%canon_reldir%_progs_libnames_la_LDFLAGS = -avoid-version -rpath /nowhere
%canon_reldir%_progs_libnames2_la_SOURCES = %reldir%/progs/names-lib2.c
%canon_reldir%_progs_libnames2_la_CFLAGS = $(progs_cflags) -O2
%canon_reldir%_progs_libnames2_la_LDFLAGS = -avoid-version -rpath /nowhere
%canon_reldir%_progs_names_main_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_names_main_LDFLAGS = -no-install
%canon_reldir%_progs_names_main_LDADD = %reldir%/progs/libnames.la \
	%reldir%/progs/libnames2.la
%canon_reldir%_progs_names_stripped_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_names_lines_CFLAGS = $(progs_cflags) -O2
check_PROGRAMS += %reldir%/progs/names-cxx
%canon_reldir%_progs_names_cxx_SOURCES = %reldir%/progs/names-cxx.cc
%canon_reldir%_progs_names_cxx_CXXFLAGS = $(AM_CXXFLAGS) -g -O2 -fno-optimize-sibling-calls
check_PROGRAMS += %reldir%/progs/sample-chains
%canon_reldir%_progs_sample_chains_CFLAGS = $(progs_cflags) -O2

# svg.exp: a function whose symbol holds <&"'>.
check_PROGRAMS += %reldir%/progs/svg-names
%canon_reldir%_progs_svg_names_CFLAGS = $(progs_cflags) -O1

# timeline.exp: a synthetic snapshot with time data (phases A, B, C).
check_PROGRAMS += %reldir%/progs/mktimeline
%canon_reldir%_progs_mktimeline_CFLAGS = $(progs_cflags)

check_PROGRAMS += %reldir%/progs/time-series
%canon_reldir%_progs_time_series_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/twin-chains
%canon_reldir%_progs_twin_chains_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/temp-kinds
%canon_reldir%_progs_temp_kinds_CFLAGS = $(progs_cflags)

# time.exp: the monitor's time data (format 4, issue 13).
check_PROGRAMS += %reldir%/progs/time-phases %reldir%/progs/hip-time
%canon_reldir%_progs_time_phases_CFLAGS = $(progs_cflags) -O0
%canon_reldir%_progs_time_phases_LDADD = -lpthread
%canon_reldir%_progs_hip_time_LDADD = reader/libhireader.la

# diff.exp: a heap at two moments, and the same program rebuilt with
# other flags and its functions moved.
check_PROGRAMS += %reldir%/progs/diff-points %reldir%/progs/diff-points-pad
# (The user's CFLAGS come last: DIFF_PAD turns to -O0 by a pragma.)
%canon_reldir%_progs_diff_points_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_diff_points_pad_SOURCES = %reldir%/progs/diff-points.c
%canon_reldir%_progs_diff_points_pad_CFLAGS = $(progs_cflags) -DDIFF_PAD \
	-fno-toplevel-reorder

# guard.exp: heap bugs under the monitor's checks, quarantine and redzones
# (issue 14), and a checker of the errors arena in a snapshot.
check_PROGRAMS += %reldir%/progs/guard-bugs
%canon_reldir%_progs_guard_bugs_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_guard_bugs_LDADD = -lpthread
check_PROGRAMS += %reldir%/progs/hip-errors
%canon_reldir%_progs_hip_errors_CFLAGS = $(progs_cflags)
# freed.exp builds freed-bugs.c itself (plain and with ASan).
EXTRA_DIST += %reldir%/progs/freed-bugs.c %reldir%/progs/setuid-keep.c
# heapinspect.cli/leakcheck.exp: blocks in each of memcheck's classes.
check_PROGRAMS += %reldir%/progs/reach-cases
%canon_reldir%_progs_reach_cases_CFLAGS = $(progs_cflags) -fno-builtin
%canon_reldir%_progs_reach_cases_LDADD = -lpthread
# heapinspect.cli/dead-threads.exp: blocks only exited threads' stacks
# point to.
check_PROGRAMS += %reldir%/progs/dead-threads
%canon_reldir%_progs_dead_threads_LDADD = -lpthread
# heapinspect.cli/glibc-heap.exp: glibc's heap in every state, no monitor.
check_PROGRAMS += %reldir%/progs/glibc-heap
%canon_reldir%_progs_glibc_heap_LDADD = -lpthread
check_PROGRAMS += %reldir%/progs/glibc-damage
# heapinspect.cli/ref.exp: a known graph of pointers between blocks.
check_PROGRAMS += %reldir%/progs/ref-graph
%canon_reldir%_progs_ref_graph_CFLAGS = $(progs_cflags) -fno-builtin
%canon_reldir%_progs_ref_graph_LDADD = -lpthread
# heapinspect.cli/glibc-layout.exp: the layout table's offsets, printed.
check_PROGRAMS += %reldir%/progs/glibc-layouts
%canon_reldir%_progs_glibc_layouts_LDADD = reader/libhireader.la
check_LTLIBRARIES += %reldir%/progs/libreachtls.la
# heapinspect.cli/real-programs.exp: the blocks python3 and sqlite3 hold,
# counted as they are made, for glibc's heap read without the monitor.
check_LTLIBRARIES += %reldir%/progs/libcountlive.la
%canon_reldir%_progs_libcountlive_la_SOURCES = %reldir%/progs/count-live.c
%canon_reldir%_progs_libcountlive_la_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_libcountlive_la_LDFLAGS = -avoid-version -rpath /nowhere
%canon_reldir%_progs_libreachtls_la_SOURCES = %reldir%/progs/reach-tls.c
%canon_reldir%_progs_libreachtls_la_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_libreachtls_la_LDFLAGS = -avoid-version -rpath /nowhere
# target-regs.exp: the process target's mapping and thread_regs ops on
# threads with known registers and stack words.
check_PROGRAMS += %reldir%/progs/thread-regs %reldir%/progs/target-regs
%canon_reldir%_progs_thread_regs_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_thread_regs_LDADD = -lpthread
%canon_reldir%_progs_target_regs_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_target_regs_LDADD = reader/libhireader.la

# leak-live.exp, gdb/lost.exp: leaks of every class, at exit and live.
check_PROGRAMS += %reldir%/progs/leak-exit
%canon_reldir%_progs_leak_exit_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_leak_exit_LDADD = -lpthread
check_LTLIBRARIES += %reldir%/progs/libtlsmodule.la
%canon_reldir%_progs_libtlsmodule_la_SOURCES = %reldir%/progs/tls-module.c
%canon_reldir%_progs_libtlsmodule_la_LDFLAGS = -module -avoid-version -rpath /nowhere
check_PROGRAMS += %reldir%/progs/typed-c
%canon_reldir%_progs_typed_c_CFLAGS = $(progs_cflags)
EXTRA_DIST += %reldir%/progs/typed.cc
check_PROGRAMS += %reldir%/progs/pools
%canon_reldir%_progs_pools_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/hostile-names %reldir%/progs/snapshot-race
%canon_reldir%_progs_snapshot_race_CFLAGS = $(progs_cflags) -pthread
%canon_reldir%_progs_snapshot_race_LDADD = -lpthread
%canon_reldir%_progs_hostile_names_CFLAGS = $(progs_cflags)
EXTRA_DIST += %reldir%/progs/instrument.cc
check_PROGRAMS += %reldir%/progs/client-threads
%canon_reldir%_progs_client_threads_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_client_threads_LDADD = -lpthread
EXTRA_DIST += %reldir%/progs/nocfi.c

# leak-live.exp: leaks whose only pointers are stale words of popped
# frames under exit()'s (the exit stop's scan starts at exit()'s caller).
check_PROGRAMS += %reldir%/progs/leak-stale
%canon_reldir%_progs_leak_stale_CFLAGS = $(progs_cflags)
# leak-live.exp: a program whose scan takes a while (its run time).
check_PROGRAMS += %reldir%/progs/many-blocks
%canon_reldir%_progs_many_blocks_CFLAGS = $(progs_cflags)
# realloc-scan.exp: blocks realloc moved, and stale headers of them.
check_PROGRAMS += %reldir%/progs/realloc-moves
%canon_reldir%_progs_realloc_moves_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_realloc_moves_LDADD = -lpthread
check_PROGRAMS += %reldir%/progs/leak-stale-cxx-O0 %reldir%/progs/leak-stale-cxx-O2
%canon_reldir%_progs_leak_stale_cxx_O0_SOURCES = %reldir%/progs/leak-stale-cxx-O0.cc
%canon_reldir%_progs_leak_stale_cxx_O0_CXXFLAGS = $(AM_CXXFLAGS) -g
%canon_reldir%_progs_leak_stale_cxx_O2_SOURCES = %reldir%/progs/leak-stale-cxx.cc
%canon_reldir%_progs_leak_stale_cxx_O2_CXXFLAGS = $(AM_CXXFLAGS) -g -O2
# heapinspect.gdb/interrupt.exp: a heap lost long enough to interrupt.
check_PROGRAMS += %reldir%/progs/waiting-blocks
%canon_reldir%_progs_waiting_blocks_CFLAGS = $(progs_cflags)
check_PROGRAMS += %reldir%/progs/memo-rbp
%canon_reldir%_progs_memo_rbp_CFLAGS = $(progs_cflags) -O2
# heapinspect.cli/cxx-vtables.exp: polymorphic objects with multiple
# inheritance, lost and kept.
check_PROGRAMS += %reldir%/progs/cxx-vtables
%canon_reldir%_progs_cxx_vtables_SOURCES = %reldir%/progs/cxx-vtables.cc
%canon_reldir%_progs_cxx_vtables_CXXFLAGS = $(AM_CXXFLAGS) -g -fno-inline -fno-optimize-sibling-calls
# heapinspect.cli/stack-threads.exp: threads blocked with named start
# functions.
check_PROGRAMS += %reldir%/progs/stack-threads
%canon_reldir%_progs_stack_threads_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_stack_threads_LDADD = -lpthread
# heapinspect.cli/dltls.exp: a block only a dlopen'd module's TLS
# variable points to.
check_PROGRAMS += %reldir%/progs/dltls
%canon_reldir%_progs_dltls_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_dltls_LDADD = -ldl -lpthread
check_LTLIBRARIES += %reldir%/progs/libdltls.la
%canon_reldir%_progs_libdltls_la_SOURCES = %reldir%/progs/dltls-lib.c
%canon_reldir%_progs_libdltls_la_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_libdltls_la_LDFLAGS = -module -avoid-version -rpath /nowhere
# heapinspect.cli/attach.exp: allocations fixed by its input, attached to.
check_PROGRAMS += %reldir%/progs/attach-target
%canon_reldir%_progs_attach_target_CFLAGS = $(progs_cflags)
# heapinspect.cli/attach-before.exp: blocks from before the attach.
check_PROGRAMS += %reldir%/progs/attach-before
%canon_reldir%_progs_attach_before_CFLAGS = $(progs_cflags)
# heapinspect.gdb/attach.exp: gdb's heap attach, then a designed set.
check_PROGRAMS += %reldir%/progs/attach-gdb
%canon_reldir%_progs_attach_gdb_CFLAGS = $(progs_cflags) -fno-builtin
# heapinspect.cli/attach-safety.exp: threads, signals, system calls,
# malloc, fork and exec while attached.
check_PROGRAMS += %reldir%/progs/attach-busy
%canon_reldir%_progs_attach_busy_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_attach_busy_LDADD = -ldl -lpthread
# heapinspect.cli/attach-loader.exp: what glibc loads by itself.
check_PROGRAMS += %reldir%/progs/attach-nss
%canon_reldir%_progs_attach_nss_CFLAGS = $(progs_cflags)
# heapinspect.monitor/attach-threads.exp: attached into running threads.
check_PROGRAMS += %reldir%/progs/attach-threads
%canon_reldir%_progs_attach_threads_CFLAGS = $(progs_cflags)
%canon_reldir%_progs_attach_threads_LDADD = -ldl -lpthread
# heapinspect.serve/: a known heap, grown on request, served.
check_PROGRAMS += %reldir%/progs/serve-heap
%canon_reldir%_progs_serve_heap_CFLAGS = $(progs_cflags)
EXTRA_DIST += %reldir%/heapinspect.serve/serve.tcl
