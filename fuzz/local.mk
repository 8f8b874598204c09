# fuzz/local.mk - libFuzzer targets for every untrusted input of the
# reader (snapshot files, core files, raw dumps) and for what a user says
# about one (formats, weights, filters, suppressions, diff).  Built with
# clang (configure's FUZZ_CC) only by `make check-fuzz`, which runs each
# for FUZZ_SECONDS from seeds made by the test programs.
FUZZ_SECONDS = 60
fuzz_targets = %reldir%/fuzz-snapshot %reldir%/fuzz-core %reldir%/fuzz-raw \
	%reldir%/fuzz-report %reldir%/fuzz-glibc
fuzz_sanitize = -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz_cflags = -std=c11 -g -O1 -fno-omit-frame-pointer $(fuzz_sanitize) \
	-Wall -Wextra
fuzz_cppflags = -I$(top_srcdir)/include -I$(top_srcdir)/reader -I$(top_srcdir) \
	-I$(top_builddir) -I$(top_builddir)/reader $(DW_CFLAGS) \
	$(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
fuzz_libs = $(DW_LIBS) -lelf -lstdc++ $(PROTOBUF_C_LIBS) $(ZLIB_LIBS)
# The reader's objects, instrumented for coverage and the sanitizers.
fuzz_reader_objs = $(patsubst reader/%.c,%reldir%/obj/%.o,\
	$(filter %.c,$(reader_libhireader_la_SOURCES)))
# ... and the code protoc-c makes in the build tree (pprof's schema).
fuzz_reader_objs += %reldir%/obj/profile.pb-c.o
%reldir%/obj/profile.pb-c.o: reader/report/profile.pb-c.c reader/report/profile.pb-c.h
	@$(MKDIR_P) %reldir%/obj
	$(AM_V_CC)$(FUZZ_CC) $(fuzz_cflags) -fsanitize=fuzzer-no-link \
	  $(fuzz_cppflags) -c -o $@ reader/report/profile.pb-c.c
fuzz_harness_objs = %reldir%/obj/harness.o
fuzz_headers = $(filter %.h,$(reader_libhireader_la_SOURCES)) \
	include/heapinspect/format.h %reldir%/harness.h

%reldir%/obj/%.o: $(top_srcdir)/reader/%.c $(fuzz_headers:%=$(top_srcdir)/%)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(fuzz_cflags) -fsanitize=fuzzer-no-link \
	  $(fuzz_cppflags) -c -o $@ $<
%reldir%/obj/%.o: $(top_srcdir)/%reldir%/%.c $(fuzz_headers:%=$(top_srcdir)/%)
	@$(MKDIR_P) %reldir%/obj
	$(AM_V_CC)$(FUZZ_CC) $(fuzz_cflags) -fsanitize=fuzzer-no-link \
	  $(fuzz_cppflags) -c -o $@ $<
%reldir%/fuzz-%: %reldir%/obj/fuzz-%.o $(fuzz_harness_objs) $(fuzz_reader_objs)
	$(AM_V_CCLD)$(FUZZ_CC) $(fuzz_cflags) -fsanitize=fuzzer -o $@ $^ \
	  $(fuzz_libs)

fuzz-targets: $(fuzz_targets)
fuzz_check_deps = demo/widget lib/libheapinspect.la \
	testsuite/progs/recursion testsuite/progs/hip-tool \
	testsuite/progs/guard-bugs testsuite/progs/glibc-damage
check-fuzz: $(fuzz_check_deps)
	@if test "$(HAVE_FUZZER)" != yes; then \
	  echo "check-fuzz: $(FUZZ_CC) cannot build libFuzzer targets" \
	    "(-fsanitize=fuzzer,address,undefined): install clang and" \
	    "re-run configure" >&2; \
	  exit 1; \
	fi
	$(MAKE) $(AM_MAKEFLAGS) fuzz-targets
	HI_BUILDDIR=$(abs_top_builddir) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  $(SHELL) $(top_srcdir)/%reldir%/run $(fuzz_targets)
.PHONY: check-fuzz fuzz-targets

EXTRA_DIST += %reldir%/run %reldir%/harness.h %reldir%/harness.c \
	%reldir%/fuzz-snapshot.c %reldir%/fuzz-core.c %reldir%/fuzz-raw.c \
	%reldir%/fuzz-report.c %reldir%/fuzz-glibc.c \
	$(wildcard $(srcdir)/%reldir%/regress/*/*.gz)
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf %reldir%/obj %reldir%/corpus %reldir%/seeds %reldir%/out \
	  $(fuzz_targets)
.PHONY: clean-fuzz
# Keep the objects: they are not intermediate files to be thrown away.
.SECONDARY: $(fuzz_reader_objs) $(fuzz_harness_objs) \
	$(patsubst %reldir%/%,%reldir%/obj/%.o,$(fuzz_targets))
