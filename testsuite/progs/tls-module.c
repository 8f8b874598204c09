/* tls-module.c - a library with nothing but a TLS variable, preloaded
   into programs run under valgrind memcheck beside heapinspect: the
   monitor is one more module with TLS, which makes glibc's dynamic
   thread vector (a calloc'd block per thread) 16 bytes longer; with this
   module memcheck's programs have as many (leak-live.exp, lost.exp). */
__thread int hi_tls_module_word;
