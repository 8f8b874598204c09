/* attach-busy.c - programs busy in the ways heapinspect attach must be
   safe with (attach-safety.exp, issue 27).  It says "ready PID" and
   then, by its first argument:

   threads: 8 threads, each keeping a ring of 64 blocks: it frees the
     oldest (checking the pattern it wrote in it) and allocates a new
     one, again and again, and every 16 rounds sends itself SIGRTMIN
     (tgkill), counting sent and handled.  SIGRTMIN+1 from outside is
     counted too, and those that still say what the sender's sigqueue
     put in them (SI_QUEUE, another process, each number 0 to N-1 once)
     as "intact".  Its input: "attached" (from then on, rounds are
     counted as after the attach), "pause" (the threads stop between
     rounds; it prints "after N": how many of the blocks held were
     allocated after "attached"), "resume", and at its end it frees all
     and prints "bad B self S/H outside O intact I" (blocks found
     damaged, self signals sent/handled, outside signals handled, and
     intact), "done".
   malloc: one thread calls malloc and free without a pause; at the end
     of its input, "done" and the rounds it made were > 0 ("rounds ok").
   read: reads lines from its input (blocked in read), echoing "got
     LINE".
   sleep: the main thread and another each sleep MS milliseconds
     (nanosleep, argument 2) and print "slept main|thread MS" measured.
   fork: on "fork", a child frees the blocks made before ("old") and
     after ("new", made on "alloc"), allocates and frees more, prints
     "child ok" and exits 0; the parent prints "child status S".  On
     "exec", it execs itself as "execd", which allocates, frees and
     prints "execd monitor N" (N: 1 if heapinspect_root is found in it)
     and reads its input to its end.
   send PID N US: sends SIGRTMIN+1 to PID N times with sigqueue, its
     value 0 to N-1, US microseconds apart (the outside sender, a
     process of its own). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS 8
#define MAX_SENT 4096
#define RING 64
#define BLOCK 48

static atomic_int attached, paused, stopping;
static atomic_int outside, outside_intact;
static atomic_char seen[MAX_SENT];
static atomic_long self_sent, self_handled, bad, rounds;
/* Where blocks go so that the compiler keeps each malloc and free. */
static void *volatile sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int n_paused, after_total;

static void
on_self (int sig)
{
  (void) sig;
  atomic_fetch_add (&self_handled, 1);
}

static void
on_outside (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) uc;
  atomic_fetch_add (&outside, 1);
  int v = si->si_value.sival_int;
  if (si->si_code == SI_QUEUE && si->si_pid != getpid () && v >= 0
      && v < MAX_SENT && atomic_exchange (&seen[v], 1) == 0)
    atomic_fetch_add (&outside_intact, 1);
}

static void
fill (unsigned char *p, unsigned seed)
{
  for (int i = 0; i < BLOCK; i++)
    p[i] = (unsigned char) (seed + (unsigned) i);
}

static int
intact (const unsigned char *p, unsigned seed)
{
  for (int i = 0; i < BLOCK; i++)
    if (p[i] != (unsigned char) (seed + (unsigned) i))
      return 0;
  return 1;
}

static void *
worker (void *arg)
{
  unsigned id = (unsigned) (long) arg;
  unsigned char *ring[RING] = { 0 };
  unsigned seed[RING];
  int after[RING] = { 0 };
  pid_t tid = (pid_t) syscall (SYS_gettid);
  for (unsigned n = 0; !atomic_load (&stopping); n++)
    {
      if (atomic_load (&paused))
        {
          int held = 0;
          for (int i = 0; i < RING; i++)
            held += after[i];
          pthread_mutex_lock (&lock);
          after_total += held;
          n_paused++;
          pthread_cond_broadcast (&cond);
          while (atomic_load (&paused))
            pthread_cond_wait (&cond, &lock);
          pthread_mutex_unlock (&lock);
        }
      int k = (int) (n % RING);
      int now = atomic_load (&attached);
      if (ring[k])
        {
          if (!intact (ring[k], seed[k]))
            atomic_fetch_add (&bad, 1);
          free (ring[k]);
        }
      seed[k] = id * 1000003u + n;
      ring[k] = malloc (BLOCK);
      fill (ring[k], seed[k]);
      after[k] = now;
      if (n % 16 == 0)
        {
          atomic_fetch_add (&self_sent, 1);
          syscall (SYS_tgkill, getpid (), tid, SIGRTMIN);
        }
    }
  for (int i = 0; i < RING; i++)
    if (ring[i])
      {
        if (!intact (ring[i], seed[i]))
          atomic_fetch_add (&bad, 1);
        free (ring[i]);
      }
  return NULL;
}

static int
run_threads (void)
{
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create (&t[i], NULL, worker, (void *) i);
  char line[64];
  while (fgets (line, sizeof line, stdin))
    {
      if (strcmp (line, "attached\n") == 0)
        atomic_store (&attached, 1);
      else if (strcmp (line, "pause\n") == 0)
        {
          pthread_mutex_lock (&lock);
          n_paused = after_total = 0;
          atomic_store (&paused, 1);
          while (n_paused < THREADS)
            pthread_cond_wait (&cond, &lock);
          int n = after_total;
          pthread_mutex_unlock (&lock);
          printf ("after %d\n", n);
          fflush (stdout);
        }
      else if (strcmp (line, "resume\n") == 0)
        {
          pthread_mutex_lock (&lock);
          atomic_store (&paused, 0);
          pthread_cond_broadcast (&cond);
          pthread_mutex_unlock (&lock);
        }
    }
  pthread_mutex_lock (&lock);
  atomic_store (&paused, 0);
  atomic_store (&stopping, 1);
  pthread_cond_broadcast (&cond);
  pthread_mutex_unlock (&lock);
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  /* A signal sent is handled before tgkill returns; any still pending
     from outside are the sender's to wait for. */
  printf ("bad %ld self %ld/%ld outside %d intact %d\ndone\n",
          atomic_load (&bad), atomic_load (&self_sent),
          atomic_load (&self_handled), atomic_load (&outside),
          atomic_load (&outside_intact));
  return 0;
}

static void *
mallocer (void *arg)
{
  (void) arg;
  for (;;)
    {
      sink = malloc (64 + (size_t) (atomic_load (&rounds) % 512));
      free (sink);
      atomic_fetch_add (&rounds, 1);
    }
  return NULL;
}

static long
ms_since (const struct timespec *t0)
{
  struct timespec t1;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  return (t1.tv_sec - t0->tv_sec) * 1000
         + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static long sleep_ms;

static void *
sleeper (void *arg)
{
  (void) arg;
  struct timespec t0, d = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000 };
  clock_gettime (CLOCK_MONOTONIC, &t0);
  nanosleep (&d, NULL);
  printf ("slept thread %ld\n", ms_since (&t0));
  fflush (stdout);
  return NULL;
}

static int
run_fork (const char *self)
{
  void *old[4], *new_[4] = { 0 };
  for (int i = 0; i < 4; i++)
    old[i] = malloc (100 + (size_t) i);
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);
  char line[64];
  while (fgets (line, sizeof line, stdin))
    {
      if (strcmp (line, "alloc\n") == 0)
        for (int i = 0; i < 4; i++)
          new_[i] = malloc (200 + (size_t) i);
      else if (strcmp (line, "fork\n") == 0)
        {
          fflush (stdout);
          pid_t c = fork ();
          if (c == 0)
            {
              for (int i = 0; i < 4; i++)
                {
                  free (old[i]);
                  free (new_[i]);
                }
              for (int i = 0; i < 1000; i++)
                {
                  sink = malloc (1 + (size_t) i);
                  free (sink);
                }
              char *s = strdup ("child ok");
              puts (s);
              free (s);
              fflush (stdout);
              _exit (0);
            }
          int status = -1;
          waitpid (c, &status, 0);
          printf ("child status %d\n", WIFEXITED (status)
                  ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
          fflush (stdout);
        }
      else if (strcmp (line, "exec\n") == 0)
        {
          fflush (stdout);
          execl (self, self, "execd", (char *) NULL);
          printf ("exec failed\n");
          return 1;
        }
    }
  for (int i = 0; i < 4; i++)
    {
      free (old[i]);
      free (new_[i]);
    }
  printf ("done\n");
  return 0;
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  /* stdio's buffers are not allocated (before or after the attach). */
  static char in_buf[4096], out_buf[4096];
  setvbuf (stdin, in_buf, _IOFBF, sizeof in_buf);
  setvbuf (stdout, out_buf, _IOLBF, sizeof out_buf);
  if (strcmp (mode, "send") == 0 && argc > 4)
    {
      pid_t pid = (pid_t) atoi (argv[2]);
      int n = atoi (argv[3]);
      struct timespec d = { 0, atol (argv[4]) * 1000 };
      for (int i = 0; i < n; i++)
        {
          if (sigqueue (pid, SIGRTMIN + 1, (union sigval) { .sival_int = i })
              != 0)
            return 1;
          nanosleep (&d, NULL);
        }
      return 0;
    }
  if (strcmp (mode, "execd") == 0)
    {
      for (int i = 0; i < 100; i++)
        {
          sink = malloc (10 + (size_t) i);
          free (sink);
        }
      printf ("execd monitor %d\n",
              dlsym (RTLD_DEFAULT, "heapinspect_root") != NULL);
      fflush (stdout);
      char line[64];
      while (fgets (line, sizeof line, stdin))
        ;
      return 0;
    }
  if (strcmp (mode, "fork") == 0)
    return run_fork (argv[0]);
  struct sigaction sa = { .sa_handler = on_self, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  sigaction (SIGRTMIN, &sa, NULL);
  sa.sa_handler = NULL;
  sa.sa_sigaction = on_outside;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigaction (SIGRTMIN + 1, &sa, NULL);
  if (strcmp (mode, "sleep") == 0)
    {
      sleep_ms = argc > 2 ? atol (argv[2]) : 3000;
      pthread_t t;
      printf ("ready %d\n", (int) getpid ());
      fflush (stdout);
      pthread_create (&t, NULL, sleeper, NULL);
      struct timespec t0, d = { sleep_ms / 1000,
                                (sleep_ms % 1000) * 1000000 };
      clock_gettime (CLOCK_MONOTONIC, &t0);
      nanosleep (&d, NULL);
      long ms = ms_since (&t0);
      pthread_join (t, NULL);
      printf ("slept main %ld\n", ms);
      return 0;
    }
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);
  if (strcmp (mode, "threads") == 0)
    return run_threads ();
  if (strcmp (mode, "malloc") == 0)
    {
      pthread_t t;
      pthread_create (&t, NULL, mallocer, NULL);
      char line[64];
      while (fgets (line, sizeof line, stdin))
        ;
      printf ("done rounds %s\n", atomic_load (&rounds) > 0 ? "ok" : "none");
      return 0;
    }
  if (strcmp (mode, "read") == 0)
    {
      char line[64];
      while (fgets (line, sizeof line, stdin))
        {
          printf ("got %s", line);
          fflush (stdout);
        }
      printf ("done\n");
      return 0;
    }
  return 2;
}
