/* dltls-lib.c - a library with a TLS variable, loaded with dlopen by
   dltls.c: glibc allocates a dlopen'd module's TLS block per thread on
   first use and reaches it only through the thread's DTV. */
#include <stdlib.h>
#include <string.h>

__thread void *dltls_kept;

/* Allocate SIZE bytes, kept only in this thread's dltls_kept. */
void *
dltls_keep (size_t size)
{
  dltls_kept = malloc (size);
  memset (dltls_kept, 0x5a, size);
  return dltls_kept;
}
