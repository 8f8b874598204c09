/* attach-nss.c - libraries glibc loads by itself, after an attach: it
   prints "ready PID", waits for a line on its standard input, then
   opens an iconv converter to UTF-16 (glibc's internal dlopen of
   gconv/UTF-16.so, whose gconv_init allocates its step data with its
   own malloc) and keeps it open, looks up a user and a group that do
   not exist (through every NSS source /etc/nsswitch.conf names: an NSS
   module such as libnss_systemd is loaded the same way; it strdup's
   through libc and frees with its own free), says whether an NSS
   module was loaded, and exits 0. */
#include <grp.h>
#include <iconv.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 if an NSS module (libnss_*.so) is mapped. */
static int
nss_module_loaded (void)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  while (f && !found && fgets (line, sizeof line, f))
    found = strstr (line, "/libnss_") != NULL;
  if (f)
    fclose (f);
  return found;
}

int
main (void)
{
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);
  char line[64];
  if (!fgets (line, sizeof line, stdin))
    return 2;
  iconv_t cd = iconv_open ("UTF-16", "UTF-8");
  if (cd == (iconv_t) -1)
    return 3;
  for (int i = 0; i < 3; i++)
    {
      struct passwd *pw = getpwnam ("heapinspect-no-such-user");
      struct group *gr = getgrnam ("heapinspect-no-such-group");
      printf ("lookup %d: %s %s\n", i, pw ? "found" : "none",
              gr ? "found" : "none");
    }
  printf ("nss module %s\n", nss_module_loaded () ? "yes" : "no");
  printf ("done\n");
  fflush (stdout);
  return 0;
}
