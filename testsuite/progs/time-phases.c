/* time-phases.c - for time.exp: programs whose heap over time is known.
   Each mode says what it expects as "expect ..." lines (computed here,
   from what it did), writes snapshot "time.hip" (report.h's snap) and
   exits.  With TIME_NO_SNAPSHOT set it writes none (for another
   profiler to run it).

   time-phases phases      phase A allocates and frees 1000 x 100 B,
                           B 500 x 2000 B (the peak), half of B is freed,
                           C allocates 2000 x 50 B; with TIME_SEGMENTS
                           set it says first what the timeline's points
                           must show ("expect segment" lines); with
                           "wait" after it,
                           it says "ready" after the snapshot and waits
                           for a line on standard input
   time-phases churn N     N malloc/free pairs, between blocks kept
   time-phases realloc     realloc's frees and temporaries
   time-phases long N      N allocations of varying sizes, some freed
   time-phases life        blocks freed after known bytes allocated
   time-phases threads M S 4 threads allocate M blocks of S bytes each,
                           meet at a barrier (the peak), free them */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "report.h"

/* Kept apart: not inlined, not folded into one by identical code folding. */
#define NOINLINE __attribute__ ((noinline, noipa))

static void *volatile sink;

/* The snapshot, unless TIME_NO_SNAPSHOT is set (under another profiler,
   without the monitor). */
static void
time_snap (void)
{
  if (!getenv ("TIME_NO_SNAPSHOT"))
    snap ("time.hip");
}

NOINLINE static void *
phase_a (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
phase_b (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
phase_c (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

/* Say the live bytes every timeline point taken in [LO, HI] of the
   clock must show: BASE at LO, then growing with the clock (SLOPE 1) or
   not (SLOPE 0).  Points are taken at allocations only. */
static void
segment (uint64_t lo, uint64_t hi, uint64_t base, int slope)
{
  if (getenv ("TIME_SEGMENTS"))
    say ("expect segment: %llu %llu %llu %d\n", (unsigned long long) lo,
       (unsigned long long) hi, (unsigned long long) base, slope);
}

static void
phases (int wait)
{
  static void *b[500];
  uint64_t clock = 0, live = 0;   /* the program's own view */
  /* Live from here on, at the peak too (main's chain). */
  void **c = calloc (2000, sizeof *c);
  clock = live = 2000 * sizeof *c;
  segment (clock, clock, live, 0);
  for (int i = 0; i < 1000; i++)
    free (phase_a (100));
  segment (clock + 100, clock + 100 * 1000, live + 100, 0);
  clock += 100 * 1000;
  for (int i = 0; i < 500; i++)
    b[i] = phase_b (2000);
  segment (clock + 2000, clock + 2000 * 500, live + 2000, 1);
  clock += 2000 * 500;
  live += 2000 * 500;
  for (int i = 0; i < 500; i += 2)
    free (b[i]);
  live -= 250 * 2000;
  for (int i = 0; i < 2000; i++)
    c[i] = phase_c (50);
  segment (clock + 50, clock + 50 * 2000, live + 50, 1);
  /* At the peak (the last block of B): all of B, nothing of A or C. */
  say ("expect chain phase_a: peak_bytes 0 peak_blocks 0 temporaries 1000\n");
  say ("expect chain phase_b: peak_bytes %d peak_blocks %d temporaries 0\n",
       500 * 2000, 500);
  say ("expect chain phase_c: peak_bytes 0 peak_blocks 0 temporaries 0\n");
  say ("expect live phase_b: %d\n", 250 * 2000);
  say ("expect live phase_c: %d\n", 2000 * 50);
  time_snap ();
  if (wait)
    {
      say ("ready\n");
      char ch;
      while (read (0, &ch, 1) == 1 && ch != '\n')
        ;
    }
  sink = c;
}

NOINLINE static void *
churn_one (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
keep_one (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
realloc_first (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
realloc_grow (void *p, size_t n)
{
  void *q = realloc (p, n);
  sink = q;
  return q;
}

/* realloc: the block it frees is never a temporary, the block it makes
   is the last one (freed next: a temporary); realloc to 0 is a free. */
static void
reallocs (void)
{
  void *r = realloc_first (10);
  r = realloc_grow (r, 20);
  free (r);
  r = realloc_first (10);
  realloc_grow (r, 0);
  /* realloc_first: the free of realloc to 0 only (the realloc that grew
     its block counts none). */
  say ("expect chain realloc_first: temporaries 1\n");
  say ("expect chain realloc_grow: temporaries 1\n");
  say ("expect chains_temporaries: 2\n");
  time_snap ();
}

static void
churn (long n)
{
  static void *kept[64];
  long k = 0;
  for (long i = 0; i < n; i++)
    {
      free (churn_one ((size_t) (16 + i % 100)));
      /* Blocks kept between, freed later after other allocations: not
         temporaries. */
      if (i % 97 == 0 && k < 64)
        kept[k++] = keep_one (24);
    }
  for (long i = 0; i < k; i++)
    free (kept[i]);
  say ("expect chain churn_one: temporaries %ld\n", n);
  say ("expect chain keep_one: temporaries 0\n");
  say ("expect chains_temporaries: %ld\n", n);
  time_snap ();
}

NOINLINE static void *
grow (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

static void
long_run (long n)
{
  /* A heap that rises and falls: a ring of 4096 blocks, sizes varying. */
  static void *ring[4096];
  uint64_t clock = 0;
  for (long i = 0; i < n; i++)
    {
      size_t size = 8 + (size_t) ((i * 7919) % 2000);
      if (i % 50000 < 25000)
        {
          free (ring[i % 4096]);
          ring[i % 4096] = grow (size);
        }
      else
        {
          free (ring[i % 4096]);
          ring[i % 4096] = (i & 1) ? grow (size) : NULL;
          if (!ring[i % 4096])
            continue;
        }
      clock += size;
    }
  say ("expect allocated at least: %llu\n", (unsigned long long) clock);
  time_snap ();
}

/* The bucket of a lifetime: 0 for 0, k for [2^(k-1), 2^k). */
static int
bucket (uint64_t v)
{
  int k = 0;
  while (k < 64 && (v >> k) != 0)
    k++;
  return k;
}

NOINLINE static void *
life_short (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
life_long (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

NOINLINE static void *
life_aligned (size_t align, size_t n)
{
  void *p = aligned_alloc (align, n);
  sink = p;
  return p;
}

NOINLINE static void *
filler (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

static void
lifetimes (void)
{
  /* life_short: freed after 0, 100, 3000, 100 bytes allocated;
     life_long after about 1 and 5 MB; filler's blocks live on. */
  static const uint64_t after_short[] = { 0, 100, 3000, 100 };
  int short_b[64] = { 0 }, long_b[64] = { 0 };
  for (size_t i = 0; i < sizeof after_short / sizeof *after_short; i++)
    {
      void *p = life_short (10);
      if (after_short[i])
        filler ((size_t) after_short[i]);
      free (p);
      short_b[bucket (after_short[i])]++;
    }
  /* l[0] sees l[1] and the first filler allocated; l[1] both fillers. */
  void *l[2];
  l[0] = life_long (20);
  l[1] = life_long (20);
  filler (1000000 - 20);
  free (l[0]);
  long_b[bucket (20 + (1000000 - 20))]++;
  filler (4000000);
  free (l[1]);
  long_b[bucket ((1000000 - 20) + 4000000)]++;
  /* Aligned blocks (the birth stamp and the offset in their padding),
     freed at once: lifetime 0. */
  free (life_aligned (32, 32));
  free (life_aligned (4096, 100));
  /* The last allocation: its age is 0. */
  void *live = life_long (30);
  sink = live;
  /* The clock after it: every byte allocated so far. */
  uint64_t clock = 4 * 10 + 100 + 3000 + 100 + 2 * 20 + (1000000 - 20)
                   + 4000000 + 32 + 100 + 30;
  char line[400];
  int n = snprintf (line, sizeof line, "expect life life_short: freed 4 live 0 buckets");
  for (int k = 0; k < 64; k++)
    if (short_b[k])
      n += snprintf (line + n, sizeof line - (size_t) n, " %d:%d", k, short_b[k]);
  say ("%s\n", line);
  n = snprintf (line, sizeof line, "expect life life_long: freed 2 live 1 buckets");
  for (int k = 0; k < 64; k++)
    if (long_b[k])
      n += snprintf (line + n, sizeof line - (size_t) n, " %d:%d", k, long_b[k]);
  say ("%s\n", line);
  say ("expect life life_aligned: freed 2 live 0 buckets 0:2\n");
  /* The live block of life_long was born at the clock after it. */
  say ("expect life_sums life_long: live_clock_sum %llu\n",
       (unsigned long long) clock);
  say ("expect alloc_clock: %llu\n", (unsigned long long) clock);
  time_snap ();
}

static pthread_barrier_t barrier;
static long thread_m;
static size_t thread_s;

NOINLINE static void *
thread_alloc (size_t n)
{
  void *p = malloc (n);
  sink = p;
  return p;
}

static void *
thread_main (void *arg)
{
  (void) arg;
  void **blocks = calloc ((size_t) thread_m, sizeof *blocks);
  for (long i = 0; i < thread_m; i++)
    blocks[i] = thread_alloc (thread_s);
  pthread_barrier_wait (&barrier);   /* every block of every thread live */
  pthread_barrier_wait (&barrier);
  for (long i = 0; i < thread_m; i++)
    free (blocks[i]);
  free (blocks);
  return NULL;
}

static void
threads (long m, size_t s)
{
  pthread_t t[4];
  thread_m = m;
  thread_s = s;
  pthread_barrier_init (&barrier, NULL, 5);
  for (int i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, thread_main, NULL);
  pthread_barrier_wait (&barrier);
  pthread_barrier_wait (&barrier);
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  say ("expect true peak thread_alloc: bytes %llu blocks %ld\n",
       (unsigned long long) (4 * (uint64_t) m * s), 4 * m);
  time_snap ();
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "phases") == 0)
    phases (argc == 3 && strcmp (argv[2], "wait") == 0);
  else if (argc == 3 && strcmp (argv[1], "churn") == 0)
    churn (atol (argv[2]));
  else if (argc == 3 && strcmp (argv[1], "long") == 0)
    long_run (atol (argv[2]));
  else if (argc == 2 && strcmp (argv[1], "realloc") == 0)
    reallocs ();
  else if (argc == 2 && strcmp (argv[1], "life") == 0)
    lifetimes ();
  else if (argc == 4 && strcmp (argv[1], "threads") == 0)
    threads (atol (argv[2]), (size_t) atol (argv[3]));
  else
    {
      say ("usage: time-phases phases [wait]|churn N|realloc|long N|life|"
           "threads M S\n");
      return 2;
    }
  return 0;
}
