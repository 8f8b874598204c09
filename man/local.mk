# man/local.mk - mdoc(7) manual pages.
dist_man_MANS += %reldir%/libheapinspect.7 %reldir%/heapinspect.1 \
	%reldir%/heapinspect-gdb.7
