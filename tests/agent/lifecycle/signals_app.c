/* A program that asks about and sets the signals the agent writes its trace
   on, printing what it sees; signals_test.cpp runs each mode with and
   without the agent and wants the same output and exit status.
     signals_app query           each dump signal's disposition
     signals_app calls           signal, sysv_signal, bsd_signal, sigset, sigignore,
                                 siginterrupt, sigaction: what each returns
     signals_app resethand       a one-shot (SA_RESETHAND) handler runs once; the query
                                 then says SIG_DFL, and the next SIGTERM kills
     signals_app handler-exit    a SIGTERM handler that exit(3)s
     signals_app default-again   a handler, then SIG_DFL again: SIGTERM kills
     signals_app exec-query      SIGHUP ignored, SIGTERM handled, then exec of `query`
     signals_app fork-query      a handler; a forked child asks
     signals_app vfork           a vfork child ignores SIGINT and _exits; the parent's
                                 handler is still its own
     signals_app threads         threads swap handlers for SIGHUP while it arrives
     signals_app system          a thread asks about SIGINT while system() runs (libc
                                 ignores it meanwhile, behind sigaction's back), and
                                 again after
   Each mode records a scope first, so the agent has something to write. */
#define _GNU_SOURCE
#include <brickprof/brickprof.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Declared only for old X/Open levels; glibc still exports it. */
extern void (*bsd_signal(int sig, void (*handler)(int)))(int);

static const int kDumpSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT,
                                   SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static const int kDumpSignalCount = sizeof kDumpSignals / sizeof kDumpSignals[0];

static volatile sig_atomic_t g_h1_runs, g_h2_runs;
static void h1(int sig) {
  (void)sig;
  ++g_h1_runs;
}
static void h2(int sig) {
  (void)sig;
  ++g_h2_runs;
}
static void on_term_exit(int sig) {
  (void)sig;
  static const char line[] = "handler ran\n";
  (void)!write(1, line, sizeof line - 1);
  exit(3);
}

static const char* handler_name(void (*h)(int)) {
  if (h == SIG_DFL) return "DFL";
  if (h == SIG_IGN) return "IGN";
  if (h == SIG_ERR) return "ERR";
  if (h == h1) return "h1";
  if (h == h2) return "h2";
  if (h == on_term_exit) return "on_term_exit";
  return "other";
}

/* What a program can tell about a disposition (not the restorer libc adds). */
static void print_action(const char* what, int sig, const struct sigaction* a) {
  printf("%s %d: %s%s%s%s%s%s\n", what, sig, handler_name(a->sa_handler),
         (a->sa_flags & SA_RESETHAND) ? " resethand" : "",
         (a->sa_flags & SA_NODEFER) ? " nodefer" : "", (a->sa_flags & SA_RESTART) ? " restart" : "",
         (a->sa_flags & SA_SIGINFO) ? " siginfo" : "",
         sigismember(&a->sa_mask, sig) ? " masks-itself" : "");
}

static void query_one(const char* what, int sig) {
  struct sigaction now;
  if (sigaction(sig, NULL, &now) != 0) {
    printf("%s %d: sigaction failed\n", what, sig);
    return;
  }
  print_action(what, sig, &now);
}

static void query(const char* what) {
  for (int i = 0; i < kDumpSignalCount; ++i) {
    struct sigaction now;
    if (sigaction(kDumpSignals[i], NULL, &now) != 0) {
      printf("%s %d: sigaction failed\n", what, kDumpSignals[i]);
      continue;
    }
    print_action(what, kDumpSignals[i], &now);
  }
}

static void set(int sig, void (*h)(int), int flags) {
  struct sigaction a, old;
  memset(&a, 0, sizeof a);
  a.sa_handler = h;
  a.sa_flags = flags;
  sigemptyset(&a.sa_mask);
  if (sigaction(sig, &a, &old) != 0) {
    printf("set %d failed\n", sig);
    return;
  }
  print_action("old", sig, &old);
}

static void calls(void) {
  printf("signal: %s\n", handler_name(signal(SIGINT, h1)));
  printf("signal: %s\n", handler_name(signal(SIGINT, SIG_DFL)));
  printf("sysv_signal: %s\n", handler_name(sysv_signal(SIGTERM, h2)));
  printf("bsd_signal: %s\n", handler_name(bsd_signal(SIGTERM, h1)));
  printf("ssignal: %s\n", handler_name(ssignal(SIGTERM, SIG_IGN)));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  printf("sigset: %s\n", handler_name(sigset(SIGHUP, h2)));
  printf("sigset: %s\n", handler_name(sigset(SIGHUP, SIG_DFL)));
  printf("sigignore: %d\n", sigignore(SIGQUIT));
  printf("siginterrupt: %d\n", siginterrupt(SIGINT, 1));
#pragma GCC diagnostic pop
  printf("signal: %s\n", handler_name(signal(SIGINT, h2)));
  query("after");
  /* Bad arguments fail the same way. */
  errno = 0;
  printf("signal(0): %s errno %d\n", handler_name(signal(0, h1)), errno);
  errno = 0;
  printf("sigaction(SIGKILL): %d errno %d\n", sigaction(SIGKILL, &(struct sigaction){0}, NULL),
         errno);
  /* A handler the program set runs. */
  g_h2_runs = 0;
  raise(SIGINT);
  printf("h2 ran %d\n", (int)g_h2_runs);
  set(SIGTERM, SIG_DFL, 0);
  set(SIGTERM, SIG_DFL, 0);
}

static void resethand(void) {
  set(SIGTERM, h1, SA_RESETHAND);
  raise(SIGTERM);
  printf("h1 ran %d\n", (int)g_h1_runs);
  query("after one-shot");
  fflush(stdout);
  raise(SIGTERM); /* the default now: dies */
  printf("not reached\n");
}

static void exec_query(const char* self) {
  signal(SIGHUP, SIG_IGN);
  signal(SIGTERM, h1);
  signal(SIGINT, h2);
  signal(SIGINT, SIG_DFL);
  fflush(stdout);
  execl(self, self, "query", (char*)NULL);
  perror("exec");
}

static void fork_query(void) {
  signal(SIGTERM, h1);
  signal(SIGQUIT, SIG_IGN);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    query("child");
    exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  query("parent");
}

static void vfork_child(void) {
  signal(SIGINT, h1);
  signal(SIGTERM, SIG_IGN);
  pid_t child = vfork();
  if (child == 0) {
    signal(SIGINT, SIG_IGN); /* the child's own table */
    signal(SIGTERM, SIG_DFL);
    _exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  query("parent");
  g_h1_runs = 0;
  raise(SIGINT);
  printf("h1 ran %d\n", (int)g_h1_runs);
}

/* Threads set SIGHUP to h1, h2 or SIG_IGN, never SIG_DFL, while the main
   thread raises it: the process must never die of it, and at the end the
   disposition is the last one set. */
static volatile int g_stop;
static void (*const kSwapped[])(int) = {h1, h2, SIG_IGN};
static void* swapper(void* arg) {
  void (*mine)(int) = kSwapped[*(const int*)arg];
  while (!g_stop) {
    struct sigaction a, old;
    memset(&a, 0, sizeof a);
    a.sa_handler = mine;
    sigemptyset(&a.sa_mask);
    sigaction(SIGHUP, &a, &old);
    if (old.sa_handler != h1 && old.sa_handler != h2 && old.sa_handler != SIG_IGN) {
      printf("saw %s\n", handler_name(old.sa_handler));
      exit(9);
    }
  }
  return NULL;
}
static void threads(void) {
  signal(SIGHUP, h1);
  static const int which[] = {0, 1, 2};
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) pthread_create(&t[i], NULL, swapper, (void*)&which[i]);
  for (int i = 0; i < 20000; ++i) raise(SIGHUP);
  g_stop = 1;
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
  signal(SIGHUP, h2);
  struct sigaction now;
  sigaction(SIGHUP, NULL, &now);
  printf("threads done, SIGHUP %s\n", handler_name(now.sa_handler));
}

/* The thread asks once system()'s shell says it runs (pipe `started`), and
   lets it finish after (pipe `asked`). */
static int g_started[2], g_asked[2];
static void* ask_during_system(void* unused) {
  (void)unused;
  char c;
  if (read(g_started[0], &c, 1) != 1) return NULL;
  query_one("during", SIGINT);
  (void)!write(g_asked[1], "x\n", 2);
  return NULL;
}
static void system_query(void) {
  if (pipe(g_started) != 0 || pipe(g_asked) != 0) return;
  dup2(g_started[1], 5);
  dup2(g_asked[0], 6);
  pthread_t asker;
  pthread_create(&asker, NULL, ask_during_system, NULL);
  fflush(stdout);
  int status = system("printf x >&5; read _ <&6");
  pthread_join(asker, NULL);
  printf("system %d\n", status);
  query_one("after", SIGINT);
  query_one("after", SIGQUIT);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "query";
  const struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  BRICKPROF_PUSH_SCOPE("signals_app");
  if (strcmp(mode, "query") == 0) {
    query("start");
  } else if (strcmp(mode, "calls") == 0) {
    calls();
  } else if (strcmp(mode, "resethand") == 0) {
    resethand();
  } else if (strcmp(mode, "handler-exit") == 0) {
    signal(SIGTERM, on_term_exit);
    kill(getpid(), SIGTERM);
    pause();
  } else if (strcmp(mode, "default-again") == 0) {
    signal(SIGTERM, h1);
    printf("old %s\n", handler_name(signal(SIGTERM, SIG_DFL)));
    fflush(stdout);
    kill(getpid(), SIGTERM);
    pause();
  } else if (strcmp(mode, "exec-query") == 0) {
    exec_query(argv[0]);
  } else if (strcmp(mode, "fork-query") == 0) {
    fork_query();
  } else if (strcmp(mode, "vfork") == 0) {
    vfork_child();
  } else if (strcmp(mode, "threads") == 0) {
    threads();
  } else if (strcmp(mode, "system") == 0) {
    system_query();
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  BRICKPROF_POP();
  return 0;
}
