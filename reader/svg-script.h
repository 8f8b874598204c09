/* svg-script.h - the inline style and script of the SVG flame graph. */
#ifndef HI_SVG_SCRIPT_H
#define HI_SVG_SCRIPT_H

/* CSS for the <style> element. */
extern const char hi_svg_style[];
/* JavaScript for the <script> element (no "]]>" in it: it goes in a
   CDATA section); expects the globals hiTotal (the root's weight) and
   hiOf (what percentages are of, "in-use bytes") defined before it. */
extern const char hi_svg_script[];

#endif
