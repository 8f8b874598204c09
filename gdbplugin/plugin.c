/* plugin.c - heapinspect-gdb.so: the heapinspect reader inside gdb, with
   no Python.  gdb has no C API for commands, so heap.gdb defines them and
   this plugin is loaded through gdb's JIT reader interface: each
   `jit-reader-load` makes gdb call read() with the monitor's JIT entry,
   and cb->target_read reads the inferior, whatever the target.

   The command and its answer pass through one file that has no name: it
   is created in a private directory, unlinked, and kept open at a fixed
   descriptor, so heap.gdb reaches it as /proc/self/fd/1017.  heap.gdb
   writes "# heapinspect CMD ARG" and a default answer (no heapinspect
   data); read() replaces it with the answer as gdb `echo` commands, which
   heap.gdb then `source`s, so paging, logging and `pipe` see it. */
#define _GNU_SOURCE
#include <gdb/jit-reader.h>

#include "analysis.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__ ((visibility ("default")))

EXPORT GDB_DECLARE_GPL_COMPATIBLE_READER

/* Keep in step with heap.gdb. */
#define CHANNEL_FD 1017
enum { CMD_LEAKS = 1, CMD_BINS, CMD_DIRECT, CMD_GRAPH, CMD_STAT, CMD_BLOCK };

struct gdb_target
{
  struct gdb_symbol_callbacks *cb;
  uint64_t root;
};

static int
gdb_read (void *ctx, uint64_t addr, void *buf, size_t len)
{
  struct gdb_target *g = ctx;
  while (len > 0)
    {
      int n = len > (1u << 30) ? 1 << 30 : (int) len;
      if (g->cb->target_read ((GDB_CORE_ADDR) addr, buf, n) != GDB_SUCCESS)
        return -1;
      buf = (char *) buf + n;
      addr += (uint64_t) n;
      len -= (size_t) n;
    }
  return 0;
}

static int
gdb_symbol (void *ctx, const char *name, uint64_t *addr)
{
  struct gdb_target *g = ctx;
  if (strcmp (name, "heapinspect_root") != 0)
    return -1;
  *addr = g->root;
  return 0;
}

static const struct hi_target_ops gdb_ops = {
  gdb_read, gdb_symbol, NULL, NULL, NULL
};

/* Run command CMD (ARG) on the inferior, printing to OUT. */
static void
run (struct gdb_target *g, int cmd, uint64_t arg, FILE *out)
{
  static const char *const tables[] = {
    [CMD_LEAKS] = "leaks", [CMD_BINS] = "bins", [CMD_DIRECT] = "direct",
    [CMD_GRAPH] = "graph", [CMD_STAT] = "stat",
  };
  struct hi_target t = { &gdb_ops, g };
  struct hi_model *m = NULL;
  hi_status s = hi_model_load (&t, &m);
  if (s != HI_OK)
    {
      fprintf (out, "heap: the heapinspect data at 0x%" PRIx64 " cannot be "
               "used: %s\n", g->root, hi_strerror (s));
      return;
    }
  if (m->damaged)
    fprintf (out, "heap: incomplete: %" PRIu64 " damaged entries were "
             "left out\n", m->damaged);
  struct hi_options opt = { 5, 0, HI_NORMAL, HI_TEXT };
  if (cmd == CMD_LEAKS && arg > 0 && arg <= 10000)
    opt.depth = (int) arg;
  if (cmd == CMD_BLOCK)
    {
      struct hi_symbolizer *sym = hi_symbolizer_new (m, NULL);
      struct hi_analysis a;
      if (sym && hi_analysis_init (&a, m, sym, &opt) == HI_OK)
        {
          struct hi_block b;
          int found = hi_block_find (&t, m, arg, &b) == HI_OK;
          hi_block_print (&a, arg, found ? &b : NULL, out);
          hi_analysis_free (&a);
        }
      else
        fprintf (out, "heap: %s\n", hi_strerror (HI_E_NOMEM));
      hi_symbolizer_free (sym);
    }
  else if (cmd >= CMD_LEAKS && cmd <= CMD_STAT)
    {
      s = hi_report (m, NULL, "inferior", tables[cmd], &opt, out, NULL);
      if (s != HI_OK)
        fprintf (out, "heap: %s\n", hi_strerror (s));
    }
  else
    fprintf (out, "heap: unknown request %d\n", cmd);
  hi_model_free (m);
}

/* TEXT as gdb commands that print it: `echo` with escapes, one a line. */
static void
as_echo_script (const char *text, size_t len, FILE *out)
{
  const char *p = text, *end = text + len;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      const char *stop = nl ? nl : end;
      fputs ("echo ", out);
      for (const char *c = p; c < stop; c++)
        {
          if (*c == '\\' || (c == p && (*c == ' ' || *c == '\t')))
            fputc ('\\', out);
          fputc (*c, out);
        }
      fputs (nl ? "\\n\n" : "\n", out);
      p = nl ? nl + 1 : end;
    }
}

static enum gdb_status
read_entry (struct gdb_reader_funcs *self, struct gdb_symbol_callbacks *cb,
            void *memory, long memory_sz)
{
  struct hi_jit_blob blob;
  (void) self;
  if (memory_sz != (long) sizeof blob)
    return GDB_FAIL;             /* not ours: gdb's own reader takes it */
  memcpy (&blob, memory, sizeof blob);
  if (blob.magic != HI_JIT_MAGIC)
    return GDB_FAIL;

  char req[256];
  ssize_t n = pread (CHANNEL_FD, req, sizeof req - 1, 0);
  int cmd;
  unsigned long long arg;
  if (n <= 0)
    return GDB_SUCCESS;          /* loaded with no command pending */
  req[n] = '\0';
  if (sscanf (req, "# heapinspect %d %llu", &cmd, &arg) != 2)
    return GDB_SUCCESS;

  char *text = NULL, *script = NULL;
  size_t text_len = 0, script_len = 0;
  FILE *out = open_memstream (&text, &text_len);
  if (!out)
    return GDB_SUCCESS;
  struct gdb_target g = { cb, blob.root_addr };
  run (&g, cmd, (uint64_t) arg, out);
  fclose (out);
  out = open_memstream (&script, &script_len);
  if (out)
    {
      as_echo_script (text, text_len, out);
      fclose (out);
      if (ftruncate (CHANNEL_FD, 0) != 0
          || pwrite (CHANNEL_FD, script, script_len, 0) != (ssize_t) script_len)
        fprintf (stderr, "heap: cannot write the answer: %s\n",
                 strerror (errno));
    }
  free (text);
  free (script);
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

/* Open the channel: a file in a fresh private directory, removed at once
   (nothing stays on disk), kept at CHANNEL_FD, closed on exec so the
   inferiors gdb starts do not inherit it. */
/* 1 if CHANNEL_FD is the channel an earlier load of ours opened: an
   unlinked regular file of ours, mode 0600, named .../heapinspect-gdb.*. */
static int
is_our_channel (void)
{
  char link[64], target[4200];
  struct stat st;
  snprintf (link, sizeof link, "/proc/self/fd/%d", CHANNEL_FD);
  ssize_t n = readlink (link, target, sizeof target - 1);
  if (n <= 0 || fstat (CHANNEL_FD, &st) != 0)
    return 0;
  target[n] = '\0';
  return S_ISREG (st.st_mode) && st.st_uid == getuid () && st.st_nlink == 0
         && (st.st_mode & 0777) == 0600
         && strstr (target, "/heapinspect-gdb.") != NULL;
}

static int
open_channel (void)
{
  if (fcntl (CHANNEL_FD, F_GETFD) != -1)
    {
      if (is_our_channel ())
        return 0;
      fprintf (stderr, "heap: descriptor %d is already in use in gdb; "
               "heapinspect's commands cannot run\n", CHANNEL_FD);
      return -1;
    }
  const char *tmp = getenv ("TMPDIR");
  char dir[4096], path[4200];
  snprintf (dir, sizeof dir, "%s/heapinspect-gdb.XXXXXX",
            tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    return -1;
  snprintf (path, sizeof path, "%s/channel", dir);
  int fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0600);
  if (fd >= 0)
    unlink (path);
  rmdir (dir);
  if (fd < 0)
    return -1;
  int r = dup2 (fd, CHANNEL_FD);
  close (fd);
  return r == CHANNEL_FD && fcntl (CHANNEL_FD, F_SETFD, FD_CLOEXEC) == 0
         ? 0 : -1;
}

EXPORT struct gdb_reader_funcs *
gdb_init_reader (void)
{
  return open_channel () == 0 ? &funcs : NULL;
}
