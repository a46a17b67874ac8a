/* Host cases that make processes: fork (the child records, records nothing,
 * leaves by _exit, execs; many children; a fork while threads record),
 * vfork, posix_spawn, system() and popen(). */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "common.h"

extern char** environ;

static char g_self[4096];

static void find_self(void) {
  ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
  g_self[n > 0 ? n : 0] = '\0';
}

static const char* status_text(int status) {
  static char text[64];
  if (WIFEXITED(status))
    snprintf(text, sizeof text, "exit %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    snprintf(text, sizeof text, "signal %d", WTERMSIG(status));
  else
    snprintf(text, sizeof text, "status %#x", status);
  return text;
}

static void report_child(const char* what, pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) perror("waitpid");
  printf("%s: %s\n", what, status_text(status));
}

static pid_t fork_or_die(void) {
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(1);
  }
  return pid;
}

/* The target of the exec and spawn cases. */
static int record(int argc, char** argv) {
  (void)argc;
  (void)argv;
  record_scopes("exec target", 20);
  return 0;
}

static int child_records(int argc, char** argv) {
  pid_t pid;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  pid = fork_or_die();
  if (pid == 0) {
    record_scopes("child", 20);
    exit(0);
  }
  report_child("recording child", pid);
  return 0;
}

static int child_silent(int argc, char** argv) {
  pid_t pid;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  pid = fork_or_die();
  if (pid == 0) exit(0);
  report_child("silent child", pid);
  return 0;
}

static int child_underscore_exit(int argc, char** argv) {
  pid_t pid;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  pid = fork_or_die();
  if (pid == 0) {
    record_scopes("child", 20);
    _exit(3);
  }
  report_child("child leaving by _exit", pid);
  return 0;
}

static int exec_after_fork(int argc, char** argv) {
  pid_t pid;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  pid = fork_or_die();
  if (pid == 0) {
    record_scopes("child before exec", 20);
    execl(g_self, "host_forks", "record", (char*)NULL);
    _exit(127);
  }
  report_child("child that execs", pid);
  return 0;
}

static int many_children(int argc, char** argv) {
  long children = arg_or(argc, argv, 0, 16), i, ok = 0;
  pid_t pids[256];
  if (children > 256) children = 256;
  record_scopes("parent", 20);
  for (i = 0; i < children; ++i) {
    pids[i] = fork_or_die();
    if (pids[i] == 0) {
      record_scopes("child", 200);
      exit(0);
    }
  }
  for (i = 0; i < children; ++i) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  printf("%ld of %ld children exited 0\n", ok, children);
  return 0;
}

static atomic_int g_started;

static void* record_forever(void* arg) {
  (void)arg;
  atomic_fetch_add(&g_started, 1);
  for (;;) record_scopes("thread", 64);
  return NULL;
}

/* fork() while other threads are inside the recorder: the child has only
 * the forking thread and whatever locks the others held. */
static int fork_from_threads(int argc, char** argv) {
  long threads = arg_or(argc, argv, 0, 4), forks = arg_or(argc, argv, 1, 20), i, ok = 0;
  for (i = 0; i < threads; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, record_forever, NULL);
  }
  while (atomic_load(&g_started) < threads) sched_yield();
  for (i = 0; i < forks; ++i) {
    int status = 0;
    pid_t pid = fork_or_die();
    if (pid == 0) {
      record_scopes("child", 20);
      _exit(0);
    }
    waitpid(pid, &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  printf("%ld of %ld children forked beside recording threads exited 0\n", ok, forks);
  return 0;
}

static int vfork_exec(int argc, char** argv) {
  pid_t pid;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  pid = vfork();
  if (pid == 0) {
    execl(g_self, "host_forks", "record", (char*)NULL);
    _exit(127);
  }
  report_child("vfork child that execs", pid);
  return 0;
}

static int vfork_exit(int argc, char** argv) {
  pid_t pid;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  pid = vfork();
  if (pid == 0) _exit(4);
  report_child("vfork child leaving by _exit", pid);
  return 0;
}

static int spawn(int argc, char** argv) {
  pid_t pid;
  char* child_argv[] = {(char*)"host_forks", (char*)"record", NULL};
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  if (posix_spawn(&pid, g_self, NULL, NULL, child_argv, environ) != 0) {
    perror("posix_spawn");
    return 1;
  }
  report_child("posix_spawn child", pid);
  return 0;
}

static int spawnp(int argc, char** argv) {
  pid_t pid;
  char* child_argv[] = {(char*)"sh", (char*)"-c", (char*)"echo spawned shell; exit 5", NULL};
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  if (posix_spawnp(&pid, "sh", NULL, NULL, child_argv, environ) != 0) {
    perror("posix_spawnp");
    return 1;
  }
  report_child("posix_spawnp shell", pid);
  return 0;
}

static int run_system(int argc, char** argv) {
  int status;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  fflush(stdout);
  status = system("echo from the shell; echo to stderr >&2; exit 3");
  printf("system: %s\n", status_text(status));
  return 0;
}

static int run_popen(int argc, char** argv) {
  char line[256];
  FILE* in;
  FILE* out;
  (void)argc;
  (void)argv;
  record_scopes("parent", 20);
  in = popen("echo one; echo two; exit 2", "r");
  if (!in) return 1;
  while (fgets(line, sizeof line, in)) printf("read: %s", line);
  printf("popen r: %s\n", status_text(pclose(in)));
  fflush(stdout);
  out = popen("cat", "w");
  if (!out) return 1;
  fputs("written through popen\n", out);
  printf("popen w: %s\n", status_text(pclose(out)));
  return 0;
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"record", record},
      {"child-records", child_records},
      {"child-silent", child_silent},
      {"child-_exit", child_underscore_exit},
      {"exec-after-fork", exec_after_fork},
      {"many", many_children},
      {"fork-from-threads", fork_from_threads},
      {"vfork-exec", vfork_exec},
      {"vfork-_exit", vfork_exit},
      {"posix_spawn", spawn},
      {"posix_spawnp", spawnp},
      {"system", run_system},
      {"popen", run_popen},
  };
  find_self();
  return MODES(modes);
}
