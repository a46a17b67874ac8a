/* Host cases for every way out of a process: return from main, exit,
 * _exit, _Exit, quick_exit, the exit_group system call, abort and real
 * crashes, exit from a thread, exit while other threads record. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "common.h"

static long status_arg(int argc, char** argv) { return arg_or(argc, argv, 0, 0); }

static void before(const char* how) {
  record_scopes("before leaving", 20);
  say(how);
}

static int by_return(int argc, char** argv) {
  before("return from main");
  return (int)status_arg(argc, argv);
}

static void on_exit_say(void) { say("atexit handler ran"); }

static int by_exit(int argc, char** argv) {
  atexit(on_exit_say);
  before("exit");
  exit((int)status_arg(argc, argv));
}

static int by_underscore_exit(int argc, char** argv) {
  atexit(on_exit_say); /* must not run */
  before("_exit");
  printf("unflushed output is lost by _exit");
  _exit((int)status_arg(argc, argv));
}

static int by_capital_exit(int argc, char** argv) {
  atexit(on_exit_say); /* must not run */
  before("_Exit");
  _Exit((int)status_arg(argc, argv));
}

static void on_quick_exit_say(void) { say("at_quick_exit handler ran"); }

static int by_quick_exit(int argc, char** argv) {
  atexit(on_exit_say); /* must not run */
  at_quick_exit(on_quick_exit_say);
  before("quick_exit");
  quick_exit((int)status_arg(argc, argv));
}

/* The raw system call: nothing in the process runs after it. */
static int by_exit_group(int argc, char** argv) {
  before("exit_group");
  syscall(SYS_exit_group, (int)status_arg(argc, argv));
  return 99;
}

static int by_abort(int argc, char** argv) {
  (void)argc, (void)argv;
  before("abort");
  abort();
}

static int by_segv(int argc, char** argv) {
  volatile int* nowhere = NULL;
  (void)argc, (void)argv;
  before("segfault");
  *nowhere = 1;
  return 0;
}

static int by_fpe(int argc, char** argv) {
  volatile int one = 1, zero = 0; /* both unknown: a real idiv, which traps */
  (void)argc, (void)argv;
  before("integer division by zero");
  return one / zero;
}

static int by_trap(int argc, char** argv) {
  (void)argc, (void)argv;
  before("illegal instruction");
  __builtin_trap();
}

static int by_sigbus(int argc, char** argv) {
  (void)argc, (void)argv;
  before("SIGBUS");
  raise(SIGBUS);
  return 0;
}

static atomic_int g_started;

static void* record_forever(void* arg) {
  (void)arg;
  atomic_fetch_add(&g_started, 1);
  for (;;) record_scopes("thread", 64);
  return NULL;
}

static void* exit_now(void* arg) {
  record_scopes("exiting thread", 20);
  say("exit from a thread");
  exit((int)(long)arg);
}

static int from_thread(int argc, char** argv) {
  pthread_t t;
  record_scopes("main", 20);
  pthread_create(&t, NULL, exit_now, (void*)status_arg(argc, argv));
  pthread_join(t, NULL);
  return 99; /* not reached */
}

static int while_recording(int argc, char** argv) {
  long threads = arg_or(argc, argv, 1, 4), i;
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, record_forever, NULL);
  }
  while (atomic_load(&g_started) < threads) sched_yield();
  before("exit while threads record");
  exit((int)status_arg(argc, argv));
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"return", by_return},
      {"exit", by_exit},
      {"_exit", by_underscore_exit},
      {"_Exit", by_capital_exit},
      {"quick_exit", by_quick_exit},
      {"exit_group", by_exit_group},
      {"abort", by_abort},
      {"segv", by_segv},
      {"fpe", by_fpe},
      {"trap", by_trap},
      {"sigbus", by_sigbus},
      {"from-thread", from_thread},
      {"while-recording", while_recording},
  };
  return MODES(modes);
}
