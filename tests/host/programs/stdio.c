/* Host cases for the standard descriptors: a program started with some of
 * them closed whose threads keep writing to 1 and 2 while it exits (and
 * the trace is written), one that reads stdin, one that copies it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

static atomic_int g_started;
static int g_closed[2]; /* descriptors 1 and 2 closed when main started */

/* Writes to whichever of descriptors 1 and 2 were closed at the start
 * (the output of the others would differ from run to run) until the
 * process ends; EBADF is what a write gets there without the agent. */
static void* write_forever(void* arg) {
  static const char line[] = "written by a thread to a closed standard descriptor\n";
  int fd;
  (void)arg;
  atomic_fetch_add(&g_started, 1);
  for (;;) {
    for (fd = 1; fd <= 2; ++fd)
      if (g_closed[fd - 1] && write(fd, line, sizeof line - 1) < 0 && errno != EBADF) return NULL;
    record_scopes("writer", 1);
  }
  return NULL;
}

static int writers(int argc, char** argv) {
  long threads = arg_or(argc, argv, 0, 2), i;
  g_closed[0] = fcntl(1, F_GETFD) < 0;
  g_closed[1] = fcntl(2, F_GETFD) < 0;
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, write_forever, NULL);
  }
  while (atomic_load(&g_started) < threads) sched_yield();
  record_scopes("main", 20000); /* a trace that takes a moment to write */
  return 0;
}

/* Reads descriptor 0 and says what it got. */
static int read_stdin(int argc, char** argv) {
  char buffer[64];
  ssize_t n = read(0, buffer, sizeof buffer);
  (void)argc, (void)argv;
  record_scopes("main", 20);
  if (n < 0)
    printf("stdin: %s\n", strerror(errno));
  else
    printf("stdin: %zd bytes\n", n);
  return 0;
}

/* Copies stdin to stdout, as cat does. */
static int copy_stdin(int argc, char** argv) {
  char buffer[4096];
  ssize_t n;
  (void)argc, (void)argv;
  while ((n = read(0, buffer, sizeof buffer)) > 0) {
    record_scopes("copy", 1);
    if (write(1, buffer, (size_t)n) != n) return 1;
  }
  return n < 0;
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"writers", writers},
      {"read-stdin", read_stdin},
      {"copy-stdin", copy_stdin},
  };
  return MODES(modes);
}
