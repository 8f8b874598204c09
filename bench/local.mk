# bench/local.mk - programs for the benchmarks (make bench; not make check).
EXTRA_PROGRAMS = %reldir%/many-sites
%canon_reldir%_many_sites_CFLAGS = $(AM_CFLAGS) -g -O1 -fno-crossjumping -fno-ipa-icf
CLEANFILES += %reldir%/many-sites
