/* serve.c - `heapinspect serve`: an HTTP server (libmicrohttpd, a
   thread per connection, so that a request waiting ?seconds=S stalls
   no other) for the monitored processes of the host, read without
   stopping them: its options, the listening socket, the limits on
   clients, a watchdog that drops a client too slow to send its request
   (a slowloris keeps MHD's idle timeout from ever firing), the
   pidfile, and the end at SIGTERM or SIGINT.  The requests are
   serve-http.c's. */
#define _GNU_SOURCE
#include "serve.h"
#include "commands.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct serve_config config;

/* "serve: MSG" as a usage line; 2. */
static int
serve_usage (const char *msg)
{
  fprintf (stderr, "heapinspect: serve: %s\n", msg);
  return 2;
}

static const char serve_help[] =
  "usage: heapinspect serve [--listen ADDR:PORT] [-p PID]... [--all]\n"
  "         [--token-file FILE] [--allow-unauthenticated] [--pidfile FILE]\n"
  "  --listen ADDR:PORT   where to listen (default 127.0.0.1:9475; port 0:\n"
  "                       any free port, said on standard error)\n"
  "  -p PID               serve only this process (repeatable)\n"
  "  --all                serve every monitored process (the default)\n"
  "  --token-file FILE    clients must send Authorization: Bearer TOKEN\n"
  "  --allow-unauthenticated   listen beyond loopback without a token\n"
  "  --pidfile FILE       write the server's pid there\n"
  "See heapinspect(1), \"Serving a host's processes over HTTP\".\n";

/* A numeric address and port (A.B.C.D:PORT or [V6]:PORT) into SA: its
   length, or 0. */
static socklen_t
parse_listen (const char *s, struct sockaddr_storage *sa)
{
  char host[64];
  const char *colon = strrchr (s, ':');
  if (!colon || colon == s || (size_t) (colon - s) >= sizeof host)
    return 0;
  memcpy (host, s, (size_t) (colon - s));
  host[colon - s] = '\0';
  char *end;
  errno = 0;
  unsigned long port = strtoul (colon + 1, &end, 10);
  if (!colon[1] || *end || errno || port > 65535 || colon[1] == '-')
    return 0;
  memset (sa, 0, sizeof *sa);
  size_t hl = strlen (host);
  if (host[0] == '[' && hl > 2 && host[hl - 1] == ']')
    {
      struct sockaddr_in6 *a6 = (struct sockaddr_in6 *) sa;
      host[hl - 1] = '\0';
      if (inet_pton (AF_INET6, host + 1, &a6->sin6_addr) != 1)
        return 0;
      a6->sin6_family = AF_INET6;
      a6->sin6_port = htons ((uint16_t) port);
      return sizeof *a6;
    }
  struct sockaddr_in *a4 = (struct sockaddr_in *) sa;
  if (inet_pton (AF_INET, host, &a4->sin_addr) != 1)
    return 0;
  a4->sin_family = AF_INET;
  a4->sin_port = htons ((uint16_t) port);
  return sizeof *a4;
}

/* 1 if SA is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x). */
static int
loopback (const struct sockaddr_storage *sa)
{
  if (sa->ss_family == AF_INET)
    return (ntohl (((const struct sockaddr_in *) sa)->sin_addr.s_addr)
            >> 24) == 127;
  const struct in6_addr *a = &((const struct sockaddr_in6 *) sa)->sin6_addr;
  return IN6_IS_ADDR_LOOPBACK (a)
         || (IN6_IS_ADDR_V4MAPPED (a) && a->s6_addr[12] == 127);
}

/* The token of FILE (its first line, without trailing blanks) into
   CONFIG: 0, or -1 with the reason said. */
static int
read_token (const char *file)
{
  int fd = hi_open_regular (file);
  if (fd < 0)
    {
      fprintf (stderr, "heapinspect: serve: --token-file %s: %s\n", file,
               errno == EINVAL ? "not a regular file" : strerror (errno));
      return -1;
    }
  char buf[4097];
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  buf[n > 0 ? n : 0] = '\0';
  buf[strcspn (buf, "\r\n")] = '\0';
  size_t len = strlen (buf);
  while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
    buf[--len] = '\0';
  if (len == 0 || n == (ssize_t) sizeof buf - 1)
    {
      fprintf (stderr, "heapinspect: serve: --token-file %s: %s\n", file,
               len ? "longer than 4096 bytes" : "holds no token (its first "
               "line is empty)");
      return -1;
    }
  config.token = strdup (buf);
  config.token_len = len;
  explicit_bzero (buf, sizeof buf);
  return config.token ? 0 : -1;
}

enum { OPT_LISTEN = 300, OPT_ALL, OPT_TOKEN, OPT_UNAUTH, OPT_PIDFILE };
static const struct option serve_options[] = {
  { "listen", required_argument, NULL, OPT_LISTEN },
  { "all", no_argument, NULL, OPT_ALL },
  { "token-file", required_argument, NULL, OPT_TOKEN },
  { "allow-unauthenticated", no_argument, NULL, OPT_UNAUTH },
  { "pidfile", required_argument, NULL, OPT_PIDFILE },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

int
hi_parse_serve (int argc, char **argv, struct hi_settings *st)
{
  if (st->src.pid || st->src.raw || st->report)
    return serve_usage ("its options come after the word serve: "
                        "heapinspect serve -p PID");
  int all = 0, c;
  optind = 0;
  argv[0] = (char *) "heapinspect serve";
  while ((c = getopt_long (argc, argv, "+p:h", serve_options, NULL)) != -1)
    switch (c)
      {
      case 'p':
        {
          char *end;
          long pid = strtol (optarg, &end, 10);
          if (!*optarg || *end || pid <= 0 || pid > INT32_MAX)
            return serve_usage ("-p needs a process id");
          if (config.n_pids == SERVE_PIDS_MAX)
            return serve_usage ("-p given more than 256 times");
          config.pids[config.n_pids++] = (pid_t) pid;
          break;
        }
      case OPT_LISTEN:
        config.listen = optarg;
        break;
      case OPT_ALL:
        all = 1;
        break;
      case OPT_TOKEN:
        config.token_file = optarg;
        break;
      case OPT_UNAUTH:
        config.allow_unauthenticated = 1;
        break;
      case OPT_PIDFILE:
        if (!*optarg)
          return serve_usage ("--pidfile needs a file name");
        config.pidfile = optarg;
        break;
      case 'h':
        fputs (serve_help, stdout);
        return 0;
      default:
        fputs ("Try 'heapinspect serve --help'.\n", stderr);
        return 2;
      }
  if (optind < argc)
    return serve_usage ("takes no operand (its processes: -p PID or "
                        "--all)");
  if (all && config.n_pids)
    return serve_usage ("-p PID and --all do not go together");
  return -1;
}

/* Connections, for the watchdog: from MHD's connection notice to its
   close (the close notice comes before MHD closes the socket, so a
   socket in the list is the connection's). */
struct conn
{
  struct conn *next, **prev;
  int fd;
  int busy;                  /* its request is in (line and headers) */
  struct timespec since;     /* its start, or its request's */
};
static pthread_mutex_t conn_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct conn *conns;

static void
notify_connection (void *cls, struct MHD_Connection *c, void **socket_context,
                   enum MHD_ConnectionNotificationCode code)
{
  (void) cls;
  pthread_mutex_lock (&conn_mutex);
  if (code == MHD_CONNECTION_NOTIFY_STARTED)
    {
      struct conn *k = calloc (1, sizeof *k);
      const union MHD_ConnectionInfo *info
        = MHD_get_connection_info (c, MHD_CONNECTION_INFO_CONNECTION_FD);
      if (k && info)
        {
          k->fd = info->connect_fd;
          clock_gettime (CLOCK_MONOTONIC, &k->since);
          k->next = conns;
          k->prev = &conns;
          if (conns)
            conns->prev = &k->next;
          conns = k;
        }
      else
        {
          free (k);
          k = NULL;
        }
      *socket_context = k;
    }
  else if (*socket_context)
    {
      struct conn *k = *socket_context;
      *k->prev = k->next;
      if (k->next)
        k->next->prev = k->prev;
      free (k);
      *socket_context = NULL;
    }
  pthread_mutex_unlock (&conn_mutex);
}

void
serve_conn_busy (struct MHD_Connection *c)
{
  const union MHD_ConnectionInfo *info
    = MHD_get_connection_info (c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  pthread_mutex_lock (&conn_mutex);
  struct conn *k = info ? info->socket_context : NULL;
  if (k)
    {
      k->busy = 1;
      clock_gettime (CLOCK_MONOTONIC, &k->since);
    }
  pthread_mutex_unlock (&conn_mutex);
}

/* A request answered: the connection waits for the next one (kept
   alive), with SERVE_HEADER_DEADLINE to send it; a request ended by
   MHD's idle timeout is said. */
static void
request_completed (void *cls, struct MHD_Connection *c, void **con_cls,
                   enum MHD_RequestTerminationCode code)
{
  (void) cls;
  (void) con_cls;
  if (code == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
    serve_log_refused ("idle timeout", "a client sent nothing for %d s",
                       SERVE_IDLE_TIMEOUT);
  const union MHD_ConnectionInfo *info
    = MHD_get_connection_info (c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  pthread_mutex_lock (&conn_mutex);
  struct conn *k = info ? info->socket_context : NULL;
  if (k)
    {
      k->busy = 0;
      clock_gettime (CLOCK_MONOTONIC, &k->since);
    }
  pthread_mutex_unlock (&conn_mutex);
}

/* Shut down the connections past their deadline: still sending the
   request after SERVE_HEADER_DEADLINE seconds, or in one request
   SERVE_REQUEST_DEADLINE.  MHD's thread of each then sees its socket
   end and closes it. */
static void
watchdog (void)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  unsigned slow = 0, long_ = 0;
  pthread_mutex_lock (&conn_mutex);
  for (struct conn *k = conns; k; k = k->next)
    {
      time_t age = now.tv_sec - k->since.tv_sec;
      if (k->fd >= 0 && age >= (k->busy ? SERVE_REQUEST_DEADLINE
                                        : SERVE_HEADER_DEADLINE))
        {
          shutdown (k->fd, SHUT_RDWR);
          k->fd = -1;
          k->busy ? long_++ : slow++;
        }
    }
  pthread_mutex_unlock (&conn_mutex);
  if (slow)
    serve_log_refused ("slow client", "%u connection%s had not sent a "
                       "request within %d s: dropped", slow,
                       slow == 1 ? "" : "s", SERVE_HEADER_DEADLINE);
  if (long_)
    serve_log_refused ("request too long", "%u request%s took over %d s: "
                       "dropped", long_, long_ == 1 ? "" : "s",
                       SERVE_REQUEST_DEADLINE);
}

/* The listening socket for SA: its descriptor, or -1 with the reason
   said. */
static int
listen_on (const struct sockaddr_storage *sa, socklen_t len, const char *name)
{
  int fd = socket (sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd < 0
      || setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0
      || (sa->ss_family == AF_INET6
          && setsockopt (fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one))
      || bind (fd, (const struct sockaddr *) sa, len) != 0
      || listen (fd, 128) != 0)
    {
      fprintf (stderr, "heapinspect: serve: cannot listen on %s: %s\n", name,
               strerror (errno));
      if (fd >= 0)
        close (fd);
      return -1;
    }
  return fd;
}

/* "ADDR:PORT" of the socket FD into BUF. */
static void
bound_name (int fd, char *buf, size_t size)
{
  struct sockaddr_storage sa;
  socklen_t len = sizeof sa;
  char host[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (getsockname (fd, (struct sockaddr *) &sa, &len) == 0)
    {
      if (sa.ss_family == AF_INET6)
        {
          struct sockaddr_in6 *a = (struct sockaddr_in6 *) &sa;
          inet_ntop (AF_INET6, &a->sin6_addr, host, sizeof host);
          port = ntohs (a->sin6_port);
          snprintf (buf, size, "[%s]:%u", host, port);
          return;
        }
      struct sockaddr_in *a = (struct sockaddr_in *) &sa;
      inet_ntop (AF_INET, &a->sin_addr, host, sizeof host);
      port = ntohs (a->sin_port);
    }
  snprintf (buf, size, "%s:%u", host, port);
}

/* Write our pid to FILE, replaced whole: 0, or -1 with the reason said. */
static int
write_pidfile (const char *file)
{
  struct hi_outfile o;
  hi_status s = hi_outfile_open (&o, file);
  if (s == HI_OK)
    {
      fprintf (o.f, "%d\n", (int) getpid ());
      s = hi_outfile_commit (&o);
    }
  if (s != HI_OK)
    {
      fprintf (stderr, "heapinspect: serve: --pidfile %s: %s\n", file,
               hi_strerror (s));
      return -1;
    }
  return 0;
}

int
hi_cmd_serve (const struct hi_settings *st, int *written)
{
  (void) st;
  *written = 0;
  char def[32];
  snprintf (def, sizeof def, "127.0.0.1:%d", SERVE_PORT_DEFAULT);
  const char *where = config.listen ? config.listen : def;
  struct sockaddr_storage sa;
  socklen_t salen = parse_listen (where, &sa);
  if (!salen)
    return serve_usage ("--listen takes ADDR:PORT, a numeric address "
                        "(127.0.0.1:9475, [::1]:9475, 0.0.0.0:9475)");
  if (!loopback (&sa) && !config.token_file && !config.allow_unauthenticated)
    {
      fprintf (stderr, "heapinspect: serve: %s is not a loopback address: "
               "give --token-file FILE (clients then send Authorization: "
               "Bearer TOKEN) or --allow-unauthenticated\n", where);
      return 2;
    }
  if (config.token_file && read_token (config.token_file) != 0)
    return 1;
  /* SIGTERM and SIGINT wait for sigtimedwait here, in every thread
     (MHD's inherit the mask); MHD writes with MSG_NOSIGNAL, and a
     closed pipe of ours is no reason to die. */
  sigset_t ends;
  sigemptyset (&ends);
  sigaddset (&ends, SIGTERM);
  sigaddset (&ends, SIGINT);
  pthread_sigmask (SIG_BLOCK, &ends, NULL);
  signal (SIGPIPE, SIG_IGN);
  int fd = listen_on (&sa, salen, where);
  if (fd < 0)
    return 1;
  serve_procs_restrict (config.pids, config.n_pids);
  serve_http_init (&config);
  struct MHD_Daemon *d = MHD_start_daemon (
    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD
    | MHD_USE_ERROR_LOG | (sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
    0, NULL, NULL, serve_http_handler, NULL,
    MHD_OPTION_EXTERNAL_LOGGER, serve_log_mhd, NULL,
    MHD_OPTION_LISTEN_SOCKET, fd,
    MHD_OPTION_CONNECTION_LIMIT, (unsigned) SERVE_CONNECTIONS_MAX,
    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned) SERVE_PER_IP_MAX,
    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) SERVE_IDLE_TIMEOUT,
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) SERVE_MEMORY_PER_CONN,
    MHD_OPTION_NOTIFY_CONNECTION, notify_connection, NULL,
    MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
    MHD_OPTION_END);
  if (!d)
    {
      fprintf (stderr, "heapinspect: serve: cannot start the HTTP server "
               "(libmicrohttpd) on %s\n", where);
      close (fd);
      return 1;
    }
  if (config.pidfile && write_pidfile (config.pidfile) != 0)
    {
      MHD_stop_daemon (d);
      close (fd);
      return 1;
    }
  char name[80];
  bound_name (fd, name, sizeof name);
  struct serve_proc *procs;
  size_t n = 0;
  if (serve_procs_list (&procs, &n) == 0)
    free (procs);
  fprintf (stderr, "heapinspect serve: listening on http://%s/ "
           "(%zu monitored process%s%s)\n", name, n, n == 1 ? "" : "es",
           config.token ? "; bearer token required" : "");
  /* A process named with -p that is not served now: why it may be. */
  for (size_t i = 0; i < config.n_pids; i++)
    {
      struct serve_proc p;
      if (!serve_proc_find (config.pids[i], &p))
        fprintf (stderr, "heapinspect serve: process %d is not served now "
                 "(it has no monitor, is gone, or is not this user's); it "
                 "is once it runs under the monitor\n", (int) config.pids[i]);
    }
  fflush (stderr);
  int sig;
  siginfo_t info;
  struct timespec tick = { 1, 0 };
  while ((sig = sigtimedwait (&ends, &info, &tick)) < 0)
    watchdog ();
  fprintf (stderr, "heapinspect serve: %s: ending\n", strsignal (sig));
  serve_stop_waits ();
  MHD_stop_daemon (d);
  close (fd);
  if (config.pidfile)
    unlink (config.pidfile);
  free (config.token);
  return 0;
}
