/* Host cases for watchdogs: a program that bounds its own run time with
 * alarm() and leaves from the SIGALRM handler with _exit, while the
 * interrupted code may hold a lock the agent's trace write needs (malloc's
 * arena lock, inside mallinfo2) and a helper thread blocks every signal. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>

#include "common.h"

static atomic_int g_helper_ready;

static void leave_with_3(int sig) {
  static const char line[] = "watchdog fired: _exit(3)\n";
  (void)sig;
  if (write(STDOUT_FILENO, line, sizeof line - 1) < 0) _exit(4);
  _exit(3);
}

/* A thread of the program's own that never takes a signal (as many
 * runtimes' helper threads do): SIGALRM can reach only main. */
static void* helper_blocking_everything(void* arg) {
  sigset_t all;
  (void)arg;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  atomic_store(&g_helper_ready, 1);
  for (;;) pause();
  return NULL;
}

/* Many small free chunks: mallinfo2 walks every bin holding the arena's
 * lock, so the alarm lands while it is held almost every time. */
static void fragment_the_heap(void) {
  enum { kChunks = 20000 };
  static void* chunks[kChunks];
  int i;
  for (i = 0; i < kChunks; ++i) chunks[i] = malloc(32 + (i % 7) * 16);
  for (i = 0; i < kChunks; i += 2) free(chunks[i]);
}

/* alarm(1), or setitimer(ITIMER_REAL) with "itimer", into a handler that
 * _exits 3, fired while main is inside mallinfo2(). The helper thread makes
 * the process multi-threaded (malloc takes its locks only then) and leaves
 * main the only thread SIGALRM can reach. Without the agent the program
 * exits 3 after a second. */
static int alarm_in_malloc(int argc, char** argv) {
  const int itimer = argc > 0 && strcmp(argv[0], "itimer") == 0;
  struct sigaction action;
  pthread_t helper;
  size_t total = 0;
  memset(&action, 0, sizeof action);
  action.sa_handler = leave_with_3;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, NULL);
  pthread_create(&helper, NULL, helper_blocking_everything, NULL);
  while (!atomic_load(&g_helper_ready)) sched_yield();
  record_scopes("main", 2000);
  fragment_the_heap();
  say("watchdog armed");
  if (itimer) {
    struct itimerval once;
    memset(&once, 0, sizeof once);
    once.it_value.tv_sec = 1;
    setitimer(ITIMER_REAL, &once, NULL);
  } else {
    alarm(1);
  }
  for (;;) total += mallinfo2().fordblks;
  return (int)(total & 1);
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"alarm-in-malloc", alarm_in_malloc},
  };
  return MODES(modes);
}
