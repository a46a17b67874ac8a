/* Host cases that record in bulk or in odd conditions: many scopes, many
 * distinct names, seconds of recording on many threads, a change of
 * directory before exit, every descriptor in use, a set-user-ID start, bytes
 * in argv. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#include "common.h"

/* COUNT scopes, all named NAME. */
static int scopes(int argc, char** argv) {
  long count = arg_or(argc, argv, 0, 1000);
  record_scopes(argc > 1 ? argv[1] : "scope", count);
  printf("recorded %ld scopes\n", count);
  return 0;
}

/* COUNT scopes, each with a name of its own (names interned at run time). */
static int distinct(int argc, char** argv) {
  long count = arg_or(argc, argv, 0, 1000), i;
  char name[64];
  for (i = 0; i < count; ++i) {
    snprintf(name, sizeof name, "distinct scope %ld", i);
    if (brickprof_push_name(BRICKPROF_KIND_SCOPE, name, 0)) brickprof_pop();
  }
  printf("recorded %ld distinct names\n", count);
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double g_until;

static void* record_until(void* arg) {
  volatile double sink = 0;
  long i;
  (void)arg;
  while (now_s() < g_until) {
    int outer = brickprof_push_name(BRICKPROF_KIND_SCOPE, "work", 0);
    for (i = 0; i < 20000; ++i) sink += (double)i;
    record_scopes("inner", 2);
    if (outer) brickprof_pop();
  }
  return NULL;
}

/* THREADS record for SECONDS. */
static int for_seconds(int argc, char** argv) {
  long seconds = arg_or(argc, argv, 0, 3), threads = arg_or(argc, argv, 1, 16), i;
  pthread_t t[256];
  if (threads > 256) threads = 256;
  g_until = now_s() + (double)seconds;
  for (i = 0; i < threads; ++i) pthread_create(&t[i], NULL, record_until, NULL);
  for (i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  printf("%ld threads recorded for %ld s\n", threads, seconds);
  return 0;
}

/* Records, then moves to DIR before it exits. */
static int change_directory(int argc, char** argv) {
  record_scopes("before chdir", 20);
  if (argc < 1 || chdir(argv[0]) != 0) {
    perror("chdir");
    return 1;
  }
  say("changed directory");
  return 0;
}

/* Opens /dev/null until no descriptor is left, then exits. */
static int exhaust_descriptors(int argc, char** argv) {
  long opened = 0;
  (void)argc, (void)argv;
  record_scopes("main", 20);
  while (open("/dev/null", O_RDONLY) >= 0) ++opened;
  say(errno == EMFILE ? "every descriptor in use" : strerror(errno));
  return 0;
}

/* Says whether it runs set-user-ID (real and effective user differ). */
static int ids(int argc, char** argv) {
  (void)argc, (void)argv;
  record_scopes("main", 20);
  say(getuid() != geteuid() ? "effective user differs from real user" : "one user");
  return 0;
}

/* Prints each argument as hex bytes: argv arrives as it was given. */
static int echo_args(int argc, char** argv) {
  int i;
  const unsigned char* c;
  record_scopes("main", 20);
  for (i = 0; i < argc; ++i) {
    for (c = (const unsigned char*)argv[i]; *c; ++c) printf("%02x", *c);
    printf("\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"scopes", scopes},
      {"distinct", distinct},
      {"for-seconds", for_seconds},
      {"chdir", change_directory},
      {"exhaust-fds", exhaust_descriptors},
      {"ids", ids},
      {"echo-args", echo_args},
  };
  return MODES(modes);
}
