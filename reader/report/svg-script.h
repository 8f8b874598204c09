/* svg-script.h - the inline style and script of the SVG flame graph. */
#ifndef HI_SVG_SCRIPT_H
#define HI_SVG_SCRIPT_H

/* CSS for the <style> element. */
extern const char hi_svg_style[];
/* JavaScript for the <script> element (no "]]>" in it: it goes in a
   CDATA section); expects the globals hiTotal (the root's weight) and
   hiOf (what percentages are of, "in-use bytes") defined before it. */
extern const char hi_svg_script[];

#include <stdio.h>

/* Write S (a name or a path from the input) to F as XML character data
   or attribute value: control characters as \xHH, bytes that are not
   UTF-8 as U+FFFD, markup characters escaped, as the flame graph writes
   its names (emit-svg.c).  0, or -1 if out of memory. */
int hi_svg_put_text (const char *s, FILE *f);

#endif
