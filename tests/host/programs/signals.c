/* Host cases for signals: default actions, handlers the program installs
 * (plain, SA_SIGINFO, SA_RESETHAND, exiting from the handler), ignored and
 * blocked signals, what a program reads back about its signals, alarm(),
 * SIGPIPE, and a program that waits to be signalled from outside. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "common.h"

static volatile sig_atomic_t g_caught;
static atomic_int g_started;

static void catch_signal(int sig) { g_caught = sig; }

static void install(int sig, void (*handler)(int), int flags) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = flags;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, NULL);
}

static void* record_forever(void* arg) {
  (void)arg;
  atomic_fetch_add(&g_started, 1);
  for (;;) record_scopes("thread", 64);
  return NULL;
}

static void start_recorders(long threads) {
  long i;
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, record_forever, NULL);
  }
  while (atomic_load(&g_started) < threads) sched_yield();
}

/* SIG's default action, raised by the program itself. */
static int raise_default(int argc, char** argv) {
  int sig = (int)arg_or(argc, argv, 0, SIGTERM);
  record_scopes("before the signal", 20);
  say("raising");
  raise(sig);
  say("still running after the signal");
  return 0;
}

/* THREADS recording, SCOPES recorded by main (a trace that takes a moment
 * to write); says "ready" and waits to be signalled from outside. */
static int wait_for_signal(int argc, char** argv) {
  record_scopes("main", arg_or(argc, argv, 1, 20)); /* before the event cap fills */
  start_recorders(arg_or(argc, argv, 0, 0));
  say("ready");
  for (;;) pause();
  return 0;
}

/* Handles SIGINT, cleans up and exits; "self" raises it, else the driver
 * sends it after "ready". */
static int handle_int(int argc, char** argv) {
  install(SIGINT, catch_signal, 0);
  record_scopes("main", 20);
  if (argc > 0 && strcmp(argv[0], "self") == 0)
    raise(SIGINT);
  else
    say("ready");
  while (!g_caught) pause();
  record_scopes("cleanup", 20);
  say("cleanup after SIGINT");
  return 0;
}

static int ignore_term(int argc, char** argv) {
  (void)argc, (void)argv;
  signal(SIGTERM, SIG_IGN);
  record_scopes("main", 20);
  raise(SIGTERM);
  say("SIGTERM ignored");
  return 0;
}

/* SIGTERM ignored by whoever started the program (nohup-like): it stays
 * ignored. */
static int inherited_ignore(int argc, char** argv) {
  struct sigaction current;
  (void)argc, (void)argv;
  sigaction(SIGTERM, NULL, &current);
  printf("SIGTERM inherited as %s\n", current.sa_handler == SIG_IGN ? "ignored" : "not ignored");
  record_scopes("main", 20);
  raise(SIGTERM);
  say("survived SIGTERM");
  return 0;
}

/* What sigaction() reports for each signal: the program's own choices. */
static int dispositions(int argc, char** argv) {
  int sig;
  (void)argc, (void)argv;
  for (sig = 1; sig < 32; ++sig) {
    struct sigaction current;
    if (sigaction(sig, NULL, &current) != 0) continue;
    printf("%2d %-8s %s\n", sig, sigabbrev_np(sig),
           current.sa_handler == SIG_DFL   ? "default"
           : current.sa_handler == SIG_IGN ? "ignored"
                                           : "handler");
  }
  return 0;
}

static volatile sig_atomic_t g_info_ok;
static void catch_with_info(int sig, siginfo_t* info, void* context) {
  (void)context;
  g_info_ok = sig == SIGTERM && info->si_signo == SIGTERM && info->si_pid == getpid();
  g_caught = sig;
}

static int siginfo_handler(int argc, char** argv) {
  struct sigaction action;
  (void)argc, (void)argv;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = catch_with_info;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGTERM, &action, NULL);
  record_scopes("main", 20);
  kill(getpid(), SIGTERM);
  while (!g_caught) pause();
  printf("SA_SIGINFO handler saw %s\n", g_info_ok ? "its own pid and SIGTERM" : "something else");
  return 0;
}

/* SA_RESETHAND: the first SIGINT runs the handler, the second the default. */
static int reset_hand(int argc, char** argv) {
  (void)argc, (void)argv;
  install(SIGINT, catch_signal, SA_RESETHAND);
  record_scopes("main", 20);
  raise(SIGINT);
  say(g_caught ? "first SIGINT handled" : "first SIGINT missed");
  raise(SIGINT);
  say("survived the second SIGINT");
  return 0;
}

static int blocked(int argc, char** argv) {
  sigset_t set, pending;
  (void)argc, (void)argv;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, NULL);
  record_scopes("main", 20);
  raise(SIGTERM);
  sigpending(&pending);
  say(sigismember(&pending, SIGTERM) ? "SIGTERM pending while blocked" : "SIGTERM not pending");
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  say("survived SIGTERM");
  return 0;
}

static void say_and_exit(int sig) {
  (void)sig;
  say("handler calls exit");
  exit(0);
}

static void say_and_underscore_exit(int sig) {
  (void)sig;
  say("handler calls _exit");
  _exit(0);
}

/* A SIGTERM handler that leaves the process (exit or _exit) while other
 * threads record. */
static int handler_exits(int argc, char** argv) {
  int underscore = argc > 0 && strcmp(argv[0], "_exit") == 0;
  install(SIGTERM, underscore ? say_and_underscore_exit : say_and_exit, 0);
  start_recorders(2);
  record_scopes("main", 20);
  raise(SIGTERM);
  for (;;) pause();
  return 0;
}

static void report_segv(int sig) {
  static const char line[] = "SIGSEGV handler: crashed, leaving with 3\n";
  (void)sig;
  if (write(STDOUT_FILENO, line, sizeof line - 1) < 0) _exit(4);
  _exit(3);
}

/* A crash reporter: the program's own SIGSEGV handler. */
static int segv_handler(int argc, char** argv) {
  volatile int* nowhere = NULL;
  (void)argc, (void)argv;
  install(SIGSEGV, report_segv, 0);
  record_scopes("main", 20);
  say("about to crash");
  *nowhere = 1;
  return 0;
}

/* alarm() the program set fires as without the agent: here in a handler. */
static int alarm_handled(int argc, char** argv) {
  (void)argc, (void)argv;
  install(SIGALRM, catch_signal, 0);
  alarm(1);
  record_scopes("main", 20);
  while (!g_caught) pause();
  say("alarm fired");
  return 0;
}

/* A pending alarm() survives exec: the new image dies of SIGALRM. */
static int alarm_across_exec(int argc, char** argv) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  (void)argc, (void)argv;
  self[n > 0 ? n : 0] = '\0';
  alarm(1);
  record_scopes("main", 20);
  say("alarm set, exec");
  execl(self, "host_signals", "alarm-wait", (char*)NULL);
  return 1;
}

static int alarm_wait(int argc, char** argv) {
  (void)argc, (void)argv;
  record_scopes("after exec", 20);
  say("waiting for the alarm");
  for (;;) pause();
  return 0;
}

/* Writes lines until its stdout (a pipe) is closed: dies of SIGPIPE. */
static int sigpipe_writer(int argc, char** argv) {
  long i;
  (void)argc, (void)argv;
  for (i = 0;; ++i) {
    record_scopes("line", 1);
    printf("line %ld\n", i);
    fflush(stdout);
  }
  return 0;
}

static atomic_int g_worker_waiting;

static void* wait_for_term(void* arg) {
  (void)arg;
  atomic_store(&g_worker_waiting, 1);
  for (;;) pause();
  return NULL;
}

/* SIGTERM (default action) to a thread, then main calls exit(0), or
 * _exit(0) with "_exit", a moment later: without the agent the process
 * dies of SIGTERM at once; with it, the trace is written on that thread
 * meanwhile, and main must not end the process with status 0 first. */
static int term_then_exit(int argc, char** argv) {
  const int underscore = argc > 0 && strcmp(argv[0], "_exit") == 0;
  pthread_t worker;
  record_scopes("main", 100000);
  pthread_create(&worker, NULL, wait_for_term, NULL);
  while (!atomic_load(&g_worker_waiting)) sched_yield();
  pthread_kill(worker, SIGTERM);
  usleep(20000);
  if (underscore) _exit(0);
  exit(0);
}

/* Records COUNT scopes and returns: a long write at exit. */
static int long_write(int argc, char** argv) {
  record_scopes("many", arg_or(argc, argv, 0, 200000));
  say("recorded");
  return 0;
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"raise", raise_default},
      {"wait", wait_for_signal},
      {"handle-int", handle_int},
      {"ignore-term", ignore_term},
      {"inherited-ignore", inherited_ignore},
      {"dispositions", dispositions},
      {"siginfo", siginfo_handler},
      {"resethand", reset_hand},
      {"blocked", blocked},
      {"handler-exits", handler_exits},
      {"segv-handler", segv_handler},
      {"alarm", alarm_handled},
      {"alarm-exec", alarm_across_exec},
      {"alarm-wait", alarm_wait},
      {"sigpipe", sigpipe_writer},
      {"long-write", long_write},
      {"term-then-exit", term_then_exit},
  };
  return MODES(modes);
}
