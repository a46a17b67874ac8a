/* Host cases with threads: many short-lived ones, long-lived ones recording
 * side by side, threads still recording when main returns, detached ones,
 * a thread cancelled while it records. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "common.h"

static long g_scopes = 100;
static atomic_int g_finished;
static atomic_int g_started;

static void* record_and_finish(void* arg) {
  (void)arg;
  record_scopes("worker", g_scopes);
  atomic_fetch_add(&g_finished, 1);
  return NULL;
}

static void* record_forever(void* arg) {
  (void)arg;
  atomic_fetch_add(&g_started, 1);
  for (;;) record_scopes("forever", 64);
  return NULL;
}

static void wait_for(atomic_int* counter, int value) {
  while (atomic_load(counter) < value) sched_yield();
}

static void start(pthread_t* thread, void* (*body)(void*), int detached) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (detached) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(thread, &attr, body, NULL) != 0) {
    perror("pthread_create");
    exit(1);
  }
  pthread_attr_destroy(&attr);
}

/* THREADS one after another, each recording SCOPES scopes. */
static int short_lived(int argc, char** argv) {
  long threads = arg_or(argc, argv, 0, 1000), i;
  g_scopes = arg_or(argc, argv, 1, 1);
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    start(&t, record_and_finish, 0);
    pthread_join(t, NULL);
  }
  printf("%ld short-lived threads joined\n", threads);
  return 0;
}

/* THREADS at once, each recording SCOPES scopes. */
static int long_lived(int argc, char** argv) {
  long threads = arg_or(argc, argv, 0, 8), i;
  pthread_t t[64];
  g_scopes = arg_or(argc, argv, 1, 20000);
  if (threads > 64) threads = 64;
  for (i = 0; i < threads; ++i) start(&t[i], record_and_finish, 0);
  for (i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  printf("%ld threads recorded %ld scopes each\n", threads, g_scopes);
  return 0;
}

/* THREADS recording in a loop while main returns. */
static int alive_at_exit(int argc, char** argv) {
  long threads = arg_or(argc, argv, 0, 4), i;
  record_scopes("main", 10); /* before the others can fill the event cap */
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    start(&t, record_forever, 0);
  }
  wait_for(&g_started, (int)threads);
  say("main returns with threads recording");
  return 0;
}

/* THREADS detached; with "wait" main waits until they are done, without
 * it main returns while they record. */
static int detached(int argc, char** argv) {
  long threads = arg_or(argc, argv, 0, 16), i;
  int wait = argc > 1 && strcmp(argv[1], "wait") == 0;
  g_scopes = 2000;
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    start(&t, wait ? record_and_finish : record_forever, 1);
  }
  wait_for(wait ? &g_finished : &g_started, (int)threads);
  record_scopes("main", 10);
  say(wait ? "detached threads finished" : "main returns with detached threads recording");
  return 0;
}

static void* record_until_cancelled(void* arg) {
  (void)arg;
  brickprof_push_name(BRICKPROF_KIND_SCOPE, "cancelled", 0); /* never popped */
  atomic_fetch_add(&g_started, 1);
  for (;;) {
    record_scopes("until cancelled", 64);
    pthread_testcancel();
  }
  return NULL;
}

/* A thread cancelled in the middle of recording (a scope left open). */
static int cancelled(int argc, char** argv) {
  pthread_t t;
  (void)argc;
  (void)argv;
  start(&t, record_until_cancelled, 0);
  wait_for(&g_started, 1);
  pthread_cancel(t);
  pthread_join(t, NULL);
  record_scopes("main", 10);
  say("recording thread cancelled");
  return 0;
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"short", short_lived}, {"long", long_lived},     {"alive-at-exit", alive_at_exit},
      {"detached", detached}, {"cancelled", cancelled},
  };
  return MODES(modes);
}
