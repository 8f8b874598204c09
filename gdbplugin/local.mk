# gdbplugin/local.mk - heapinspect-gdb.so and heap.gdb.
pkglib_LTLIBRARIES = %reldir%/heapinspect-gdb.la
%canon_reldir%_heapinspect_gdb_la_SOURCES = %reldir%/plugin.c
%canon_reldir%_heapinspect_gdb_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
%canon_reldir%_heapinspect_gdb_la_LDFLAGS = -module -avoid-version -shared \
	-no-undefined -Wl,--exclude-libs,ALL
%canon_reldir%_heapinspect_gdb_la_LIBADD = reader/libhireader.la

# heap.gdb for the build tree (the tests use it); the installed one is
# made at install time, naming the installed plugin.
noinst_DATA = %reldir%/heap.gdb
EXTRA_DIST += %reldir%/heap.gdb.in
CLEANFILES += %reldir%/heap.gdb
%reldir%/heap.gdb: %reldir%/heap.gdb.in Makefile
	$(AM_V_GEN)sed 's|@PLUGIN@|$(abs_top_builddir)/%reldir%/.libs/heapinspect-gdb.so|g' \
	  $(srcdir)/%reldir%/heap.gdb.in > $@

# gdb auto-loads DATADIR/auto-load/REALPATH-gdb.gdb for the object at
# REALPATH: any program that loads libheapinspect.so gets the commands.
gdb_autoload_dir = $(GDB_DATADIR)/auto-load$(libdir)
install-data-local:
	$(MKDIR_P) $(DESTDIR)$(pkgdatadir) $(DESTDIR)$(gdb_autoload_dir)
	sed 's|@PLUGIN@|$(pkglibdir)/heapinspect-gdb.so|g' \
	  $(srcdir)/%reldir%/heap.gdb.in > $(DESTDIR)$(pkgdatadir)/heap.gdb
	$(INSTALL_DATA) $(DESTDIR)$(pkgdatadir)/heap.gdb \
	  $(DESTDIR)$(gdb_autoload_dir)/libheapinspect.so.0.0.0-gdb.gdb
uninstall-local:
	rm -f $(DESTDIR)$(pkgdatadir)/heap.gdb \
	  $(DESTDIR)$(gdb_autoload_dir)/libheapinspect.so.0.0.0-gdb.gdb
