/* widget.c - mprof's producer/consumer example (Zorn & Hilfinger, fig. 1),
   written anew: two producers make red and blue widgets at random; the
   consumer frees only the blue ones, so every red widget leaks.

   usage: widget [COUNT [SEED [wait|crash]]]   (default 10000 widgets, seed 1)
   wait: after the report, block until standard input closes (to be read
   live or gcore'd); crash: after the report, dereference NULL.
   It reports its own counts with snprintf+write, which never allocate,
   so the monitor's totals are exactly the widgets'. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct widget
{
  int color;                 /* 0 red, 1 blue */
  int serial;
  char label[196];
};

static unsigned long long lcg_state;

/* The newest red widget, for debuggers: `heap block last_red`. */
struct widget *volatile last_red;

static int
random_flip (void)
{
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int) (lcg_state >> 63);
}

__attribute__ ((noinline)) static struct widget *
make_widget (int color, int serial)
{
  struct widget *w = malloc (sizeof *w);
  if (!w)
    exit (1);
  w->color = color;
  w->serial = serial;
  memset (w->label, 'w', sizeof w->label);
  return w;
}

__attribute__ ((noinline)) static struct widget *
make_red_widget (int serial)
{
  return make_widget (0, serial);
}

__attribute__ ((noinline)) static struct widget *
make_blue_widget (int serial)
{
  return make_widget (1, serial);
}

__attribute__ ((noinline)) static int
consume_widget (struct widget *w)
{
  if (w->color == 0)
    return 0;                /* the bug: red widgets are never freed */
  free (w);
  return 1;
}

int
main (int argc, char **argv)
{
  long count = argc > 1 ? atol (argv[1]) : 10000;
  lcg_state = argc > 2 ? strtoull (argv[2], NULL, 10) : 1;
  long red = 0, blue = 0, changes = 0;
  int last = -1;
  for (long i = 0; i < count; i++)
    {
      int flip = random_flip ();
      struct widget *w = flip ? make_blue_widget ((int) i)
                              : make_red_widget ((int) i);
      changes += last >= 0 && flip != last;
      last = flip;
      if (consume_widget (w))
        blue++;
      else
        {
          red++;
          last_red = w;
        }
    }
  char buf[256];
  int n = snprintf (buf, sizeof buf,
                    "widgets: %ld\nred: %ld\nblue: %ld\nsizeof_widget: %zu\n"
                    "color_changes: %ld\n",
                    count, red, blue, sizeof (struct widget), changes);
  if (write (1, buf, (size_t) n) != n)
    return 1;
  const char *mode = argc > 3 ? argv[3] : "";
  if (strcmp (mode, "wait") == 0)
    while (read (0, buf, sizeof buf) > 0)
      ;
  if (strcmp (mode, "crash") == 0)
    *(volatile int *) (uintptr_t) (argc - argc) = 1;
  return 0;
}
