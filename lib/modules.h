/* modules.h - the list of loaded modules in the modules arena
   (modules.c). */
#ifndef HI_MODULES_H
#define HI_MODULES_H

#include "monitor.h"

/* Refresh the module list (skipped if another refresh runs);
   hi_modules_cover: 1 if ADDR lies in a known loaded module. */
HI_HIDDEN void hi_modules_refresh (void);
HI_HIDDEN int hi_modules_cover (uint64_t addr);

#endif
