# gdbplugin/local.mk - heapinspect-gdb.so, heap.gdb and heap-run.gdb.
pkglib_LTLIBRARIES = %reldir%/heapinspect-gdb.la
%canon_reldir%_heapinspect_gdb_la_SOURCES = %reldir%/plugin.h \
	%reldir%/protocol.h %reldir%/plugin.c %reldir%/channel.c \
	%reldir%/request.c %reldir%/commands.c %reldir%/commands-glibc.c \
	%reldir%/target-gdb.c \
	%reldir%/cache.c %reldir%/interrupt.c %reldir%/gdb-maps.c
%canon_reldir%_heapinspect_gdb_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
%canon_reldir%_heapinspect_gdb_la_LDFLAGS = -module -avoid-version -shared \
	-no-undefined -Wl,--exclude-libs,ALL
%canon_reldir%_heapinspect_gdb_la_LIBADD = reader/libhireader.la

# heap.gdb and heap-run.gdb are written by gen-heap-gdb (from heap.gdb.in),
# which takes the command names, the descriptors and the request format
# from protocol.h.
noinst_PROGRAMS += %reldir%/gen-heap-gdb
%canon_reldir%_gen_heap_gdb_SOURCES = %reldir%/gen-heap-gdb.c %reldir%/protocol.h

# The build tree's (the tests use them) depend on Makefile, so a new
# configuration remakes them; the installed ones, naming the installed
# files, are written at install time, with that moment's directories.
noinst_DATA = %reldir%/heap.gdb %reldir%/heap-run.gdb
EXTRA_DIST += %reldir%/heap.gdb.in
CLEANFILES += %reldir%/heap.gdb %reldir%/heap-run.gdb
%reldir%/heap.gdb: %reldir%/heap.gdb.in %reldir%/gen-heap-gdb$(EXEEXT) Makefile
	$(AM_V_GEN)%reldir%/gen-heap-gdb$(EXEEXT) heap \
	  '$(abs_top_builddir)/%reldir%/heap-run.gdb' \
	  < $(srcdir)/%reldir%/heap.gdb.in > $@.tmp && mv $@.tmp $@
%reldir%/heap-run.gdb: %reldir%/gen-heap-gdb$(EXEEXT) Makefile
	$(AM_V_GEN)%reldir%/gen-heap-gdb$(EXEEXT) run \
	  '$(abs_top_builddir)/%reldir%/.libs/heapinspect-gdb.so' \
	  > $@.tmp && mv $@.tmp $@
# gdb auto-loads DIR/REALPATH-gdb.gdb for the object at REALPATH, for
# every DIR of `auto-load scripts-directory`.  By default that DIR is
# $(datadir)/gdb/auto-load, under the prefix, which gdb reads once told
# `add-auto-load-scripts-directory` and `add-auto-load-safe-path` (see
# heapinspect-gdb(7)); --with-gdb-auto-load-dir=DIR puts it elsewhere,
# e.g. the system gdb's /usr/share/gdb/auto-load.
# heapinspect.gdb, in gdb's system gdbinit directory (Debian's gdb reads
# /etc/gdb/gdbinit.d), sources heap.gdb in every session: the heap
# commands, with or without the monitor.  Elsewhere its one line goes in
# ~/.gdbinit (heapinspect-gdb(7)).
gdb_autoload_script = $(DESTDIR)$(GDB_AUTOLOAD_DIR)$(libdir)/libheapinspect.so.0.0.0-gdb.gdb
gdb_gdbinit_script = $(DESTDIR)$(GDB_GDBINIT_DIR)/heapinspect.gdb
install-data-local: %reldir%/gen-heap-gdb$(EXEEXT)
	$(MKDIR_P) $(DESTDIR)$(pkgdatadir) '$(dir $(gdb_autoload_script))' \
	  '$(DESTDIR)$(GDB_GDBINIT_DIR)'
	echo 'source $(pkgdatadir)/heap.gdb' > '$(gdb_gdbinit_script)'
	%reldir%/gen-heap-gdb$(EXEEXT) heap '$(pkgdatadir)/heap-run.gdb' \
	  < $(srcdir)/%reldir%/heap.gdb.in > $(DESTDIR)$(pkgdatadir)/heap.gdb
	%reldir%/gen-heap-gdb$(EXEEXT) run '$(pkglibdir)/heapinspect-gdb.so' \
	  > $(DESTDIR)$(pkgdatadir)/heap-run.gdb
	$(INSTALL_DATA) $(DESTDIR)$(pkgdatadir)/heap.gdb '$(gdb_autoload_script)'
uninstall-local:
	rm -f $(DESTDIR)$(pkgdatadir)/heap.gdb $(DESTDIR)$(pkgdatadir)/heap-run.gdb \
	  '$(gdb_autoload_script)' '$(gdb_gdbinit_script)'
