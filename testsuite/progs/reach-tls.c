/* reach-tls.c - a library with one TLS variable, preloaded into
   leakcheck.exp's memcheck runs in place of the monitor's TLS: a new
   thread's DTV (a block) has one entry per module with TLS, so the
   program's DTV is as large there as under the monitor. */
__thread int reach_tls_stub;
