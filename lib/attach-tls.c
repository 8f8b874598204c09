/* attach-tls.c - libheapinspect-attach-tls.so: the slots through which
   libheapinspect-attach.so finds its thread-local variables (HI_TLS in
   monitor.h).  Its only data, 48 bytes of initial-exec TLS: small
   enough for the static TLS glibc keeps for objects loaded late, so
   the monitor reads a slot without a call. */
#include "monitor.h"

__attribute__ ((visibility ("default")))
__thread void *hi_attach_tls_slots[HI_TLS_SLOTS]
  __attribute__ ((tls_model ("initial-exec")));
