/* plugin.c - heapinspect-gdb.so: the heapinspect reader inside gdb, with
   no Python.  gdb has no C API for commands, so heap.gdb defines them and
   this plugin is loaded through gdb's JIT reader interface: each
   `jit-reader-load` makes gdb call read() with the monitor's JIT entry,
   and cb->target_read reads the inferior, whatever the target.

   read() answers the request waiting in the channel (channel.c).  With
   no monitor there is no entry: heap-run.gdb marks the request for
   glibc's heap and loads the plugin again, and unwind(), which gdb calls
   when it next looks at frame 0, answers it from glibc's own heap.  The
   plugin never makes gdb fail: when it cannot have its channel, loading
   it fails with one line saying why, and heap-run.gdb writes nothing.
   Loaded with the channel saying so (protocol.h's HI_GDB_QUIT_TAG), it
   writes the commands that make gdb stop the heap command that failed,
   in place of the tag. */
#define _GNU_SOURCE
#include <gdb/jit-reader.h>

#include "plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__ ((visibility ("default")))

EXPORT GDB_DECLARE_GPL_COMPATIBLE_READER

/* The blob at the end of the monitor's JIT entry (an ELF object made by
   lib/jit.c, or the bare blob of older monitors); 0 if it is ours. */
static int
our_blob (const void *memory, long memory_sz, struct hi_jit_blob *blob)
{
  if (memory_sz < (long) sizeof *blob)
    return -1;
  memcpy (blob, (const char *) memory + memory_sz - sizeof *blob,
          sizeof *blob);
  return blob->magic == HI_JIT_MAGIC ? 0 : -1;
}

static long long
ms_since (const struct timespec *t0)
{
  struct timespec t1;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  return (long long) (t1.tv_sec - t0->tv_sec) * 1000
         + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A request for glibc's heap waits for unwind(): set when loaded. */
static int glibc_pending;

/* Answer request R on the inferior G in the channel.  Ctrl-C stops the
   work soon (interrupt.c), and reaches gdb once we return. */
static void
answer (struct hi_gdb_inferior *g, const struct hi_gdb_request *r)
{
  char *text = NULL;
  size_t text_len = 0;
  FILE *out = open_memstream (&text, &text_len);
  if (!out)
    return;
  int debug = getenv ("HEAPINSPECT_GDB_DEBUG") != NULL;
  struct timespec t0;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  hi_gdb_interrupt_begin ();
  if (debug)
    fprintf (stderr, "heap: debug: working on heap %s\n", r->name);
  int failed;
  if (g->root && r->attach)
    {
      fprintf (out, "heap: the monitor runs in this inferior already: the "
               "heap commands read it\n");
      failed = 0;
    }
  else
    failed = (g->root && !r->verify ? hi_gdb_run (g, r, out)
              : hi_gdb_run_glibc (g, r, out)) != 0;
  fclose (out);
  if (hi_gdb_interrupt_pending ())
    {
      if (debug)
        fprintf (stderr, "heap: debug: interrupted: heap %s stopped after "
                 "%lld ms\n", r->name, ms_since (&t0));
      /* gdb says "Quit" before this is read. */
      char line[64];
      int n = snprintf (line, sizeof line, "heap: %s interrupted\n",
                        r->name);
      hi_gdb_channel_answer (line, (size_t) n, 1);
    }
  else
    hi_gdb_channel_answer (text, text_len, failed);
  free (text);
  hi_gdb_interrupt_end ();
}

static enum gdb_status
read_entry (struct gdb_reader_funcs *self, struct gdb_symbol_callbacks *cb,
            void *memory, long memory_sz)
{
  struct hi_jit_blob blob;
  (void) self;
  if (our_blob (memory, memory_sz, &blob) != 0)
    return GDB_FAIL;             /* not ours: gdb's own reader takes it */

  char *req_text;
  struct hi_gdb_request req;
  glibc_pending = 0;
  if (hi_gdb_channel_request (&req_text, &req) != 0)
    return GDB_SUCCESS;          /* loaded with no request pending */
  struct hi_gdb_inferior g = { cb->target_read, blob.root_addr };
  answer (&g, &req);
  hi_gdb_request_free (&req);
  free (req_text);
  return GDB_SUCCESS;            /* no object: gdb creates no objfile */
}

/* gdb asks every loaded JIT reader to unwind each frame it looks at
   first: cheap when no request waits.  The callbacks read the inferior
   as the symbol callbacks do. */
static enum gdb_status
unwind (struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
  (void) self;
  if (!glibc_pending)
    return GDB_FAIL;             /* we describe no code */
  glibc_pending = 0;
  char *req_text;
  struct hi_gdb_request req;
  if (hi_gdb_channel_request (&req_text, &req) == 0)
    {
      struct hi_gdb_inferior g = { cb->target_read, 0 };
      answer (&g, &req);
      hi_gdb_request_free (&req);
      free (req_text);
    }
  return GDB_FAIL;
}

static struct gdb_frame_id
frame_id (struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
  struct gdb_frame_id id = { 0, 0 };
  (void) self;
  (void) cb;
  return id;
}

/* The channel stays open: heap.gdb unloads and reloads the plugin for
   every command, and the request must survive that. */
static void
destroy (struct gdb_reader_funcs *self)
{
  (void) self;
}

static struct gdb_reader_funcs funcs = {
  GDB_READER_INTERFACE_VERSION, NULL, read_entry, unwind, frame_id, destroy
};

/* What gdb_init_reader returns when the plugin cannot work: gdb 13
   crashes on NULL, and refuses a reader of another version with an error
   that ends the command, after our line saying why. */
static struct gdb_reader_funcs refused = {
  0, NULL, read_entry, unwind, frame_id, destroy
};

EXPORT struct gdb_reader_funcs *
gdb_init_reader (void)
{
  char why[512] = "unknown reason";
  if (hi_gdb_channel_open (why, sizeof why) == 0)
    {
      if (!hi_gdb_channel_quit ())
        glibc_pending = hi_gdb_channel_glibc ();
      return &funcs;
    }
  fprintf (stderr, "heap: heapinspect's gdb plugin cannot start: %s\n", why);
  fflush (stderr);
  return &refused;
}
