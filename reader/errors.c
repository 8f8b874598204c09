/* errors.c - messages of hi_status. */
#include "hi-reader.h"

const char *
hi_strerror (hi_status s)
{
#define HI_ERROR_MSG(name, msg) msg,
  static const char *const msgs[] = { HI_ERRORS (HI_ERROR_MSG) };
#undef HI_ERROR_MSG
  return (unsigned) s < HI_NSTATUS ? msgs[s] : "unknown error";
}

void
hi_target_close (struct hi_target *t)
{
  if (t && t->ops && t->ops->close)
    t->ops->close (t->ctx);
  if (t)
    t->ctx = NULL;
}

hi_status
hi_target_finish (struct hi_target *t)
{
  return t->ops->finish ? t->ops->finish (t->ctx) : HI_OK;
}
