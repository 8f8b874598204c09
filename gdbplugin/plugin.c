/* plugin.c - heapinspect-gdb.so: the heapinspect reader inside gdb, with
   no Python.  gdb has no C API for commands, so heap.gdb defines them and
   this plugin is loaded through gdb's JIT reader interface: each
   `jit-reader-load` makes gdb call read() with the monitor's JIT entry,
   and cb->target_read reads the inferior, whatever the target.

   read() answers the request waiting in the channel (channel.c).  The
   plugin never makes gdb fail: when it cannot have its channel, loading
   it fails with one line saying why, and heap.gdb writes nothing. */
#define _GNU_SOURCE
#include <gdb/jit-reader.h>

#include "plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static enum gdb_status
read_entry (struct gdb_reader_funcs *self, struct gdb_symbol_callbacks *cb,
            void *memory, long memory_sz)
{
  struct hi_jit_blob blob;
  (void) self;
  if (our_blob (memory, memory_sz, &blob) != 0)
    return GDB_FAIL;             /* not ours: gdb's own reader takes it */

  char req_text[16384];
  struct hi_gdb_request req;
  if (hi_gdb_channel_request (req_text, sizeof req_text, &req) != 0)
    return GDB_SUCCESS;          /* loaded with no request pending */
  char *text = NULL;
  size_t text_len = 0;
  FILE *out = open_memstream (&text, &text_len);
  if (out)
    {
      struct hi_gdb_inferior g = { cb, blob.root_addr };
      hi_gdb_run (&g, &req, out);
      fclose (out);
      hi_gdb_channel_answer (text, text_len);
      free (text);
    }
  hi_gdb_request_free (&req);
  return GDB_SUCCESS;            /* no object: gdb creates no objfile */
}

static enum gdb_status
unwind (struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
  (void) self;
  (void) cb;
  return GDB_FAIL;               /* we describe no code */
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
    return &funcs;
  fprintf (stderr, "heap: heapinspect's gdb plugin cannot start: %s\n", why);
  fflush (stderr);
  return &refused;
}
