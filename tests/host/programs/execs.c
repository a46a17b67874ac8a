/* Host cases that exec: each entry point of the exec family replacing the
 * program with itself (mode "target"), a chain of execs, an exec of a
 * missing file and of a file the kernel cannot run, and an exec with an
 * emptied environment. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>

#include "common.h"

extern char** environ;

static char g_self[4096];

/* The environment plus one variable, for the forms that take one. */
static char** environment_with_mark(void) {
  static char* env[4096];
  size_t n = 0;
  while (environ[n] && n + 2 < sizeof env / sizeof env[0]) {
    env[n] = environ[n];
    ++n;
  }
  env[n++] = (char*)"TORTURE_EXEC_ENV=passed";
  env[n] = NULL;
  return env;
}

/* The exec'd image: records, says how it was started. */
static int target(int argc, char** argv) {
  const char* mark = getenv("TORTURE_EXEC_ENV");
  record_scopes("exec target", 20);
  printf("target ran: %s%s%s\n", argc > 0 ? argv[0] : "", mark ? ", env " : "", mark ? mark : "");
  return 0;
}

static void before_exec(const char* how) {
  char line[128];
  record_scopes("before exec", 20);
  snprintf(line, sizeof line, "exec by %s", how);
  say(line);
}

static int exec_failed(const char* how) {
  fprintf(stderr, "%s failed: %s\n", how, strerror(errno));
  return 1;
}

static int by_execv(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"execv", NULL};
  (void)argc, (void)argv;
  before_exec("execv");
  execv(g_self, args);
  return exec_failed("execv");
}

static int by_execve(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"execve", NULL};
  (void)argc, (void)argv;
  before_exec("execve");
  execve(g_self, args, environment_with_mark());
  return exec_failed("execve");
}

static int by_execvp(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"execvp", NULL};
  (void)argc, (void)argv;
  before_exec("execvp");
  execvp("host_execs", args);
  return exec_failed("execvp");
}

static int by_execvpe(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"execvpe", NULL};
  (void)argc, (void)argv;
  before_exec("execvpe");
  execvpe("host_execs", args, environment_with_mark());
  return exec_failed("execvpe");
}

static int by_execl(int argc, char** argv) {
  (void)argc, (void)argv;
  before_exec("execl");
  execl(g_self, "host_execs", "target", "execl", (char*)NULL);
  return exec_failed("execl");
}

static int by_execlp(int argc, char** argv) {
  (void)argc, (void)argv;
  before_exec("execlp");
  execlp("host_execs", "host_execs", "target", "execlp", (char*)NULL);
  return exec_failed("execlp");
}

static int by_execle(int argc, char** argv) {
  (void)argc, (void)argv;
  before_exec("execle");
  execle(g_self, "host_execs", "target", "execle", (char*)NULL, environment_with_mark());
  return exec_failed("execle");
}

static int by_fexecve(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"fexecve", NULL};
  int fd = open(g_self, O_RDONLY | O_CLOEXEC);
  (void)argc, (void)argv;
  before_exec("fexecve");
  fexecve(fd, args, environment_with_mark());
  return exec_failed("fexecve");
}

static int by_execveat(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"execveat", NULL};
  int dir = open(dirname(strdup(g_self)), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  (void)argc, (void)argv;
  before_exec("execveat");
  execveat(dir, "host_execs", args, environ, 0);
  return exec_failed("execveat");
}

/* An exec of a file that is not there fails; the program goes on. */
static int fail_missing(int argc, char** argv) {
  char* args[] = {(char*)"missing", NULL};
  (void)argc, (void)argv;
  record_scopes("before exec", 20);
  execv("./no-such-program", args);
  printf("exec of a missing file: %s\n", strerror(errno));
  record_scopes("after failed exec", 20);
  return 0;
}

/* An executable file the kernel cannot run (ENOEXEC from execv): the exec
 * gets as far as the kernel, then the program goes on recording. */
static int fail_noexec(int argc, char** argv) {
  char* args[] = {(char*)"garbage", NULL};
  int fd = open("garbage", O_WRONLY | O_CREAT | O_TRUNC, 0755);
  (void)argc, (void)argv;
  if (fd < 0 || write(fd,
                      "\x7f"
                      "ELF garbage",
                      12) != 12)
    return 1;
  close(fd);
  record_scopes("before exec", 20);
  execv("./garbage", args);
  printf("exec of a file the kernel cannot run: %s\n", strerror(errno));
  record_scopes("after failed exec", 20);
  return 0;
}

/* LINKS execs of itself, each recording, then the target. */
static int chain(int argc, char** argv) {
  long left = arg_or(argc, argv, 0, 3);
  char count[32];
  record_scopes("chain link", 20);
  printf("chain: %ld left\n", left);
  fflush(stdout);
  if (left <= 0) return target(0, NULL);
  snprintf(count, sizeof count, "%ld", left - 1);
  execl(g_self, "host_execs", "chain", count, (char*)NULL);
  return exec_failed("execl");
}

/* An exec with an empty environment: the new image runs without the agent. */
static int empty_environment(int argc, char** argv) {
  char* args[] = {(char*)"host_execs", (char*)"target", (char*)"no environment", NULL};
  char* env[] = {NULL};
  (void)argc, (void)argv;
  before_exec("execve with no environment");
  execve(g_self, args, env);
  return exec_failed("execve");
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"target", target},
      {"execv", by_execv},
      {"execve", by_execve},
      {"execvp", by_execvp},
      {"execvpe", by_execvpe},
      {"execl", by_execl},
      {"execlp", by_execlp},
      {"execle", by_execle},
      {"fexecve", by_fexecve},
      {"execveat", by_execveat},
      {"fail-missing", fail_missing},
      {"fail-noexec", fail_noexec},
      {"chain", chain},
      {"empty-environment", empty_environment},
  };
  ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
  char path[8192];
  const char* old = getenv("PATH");
  g_self[n > 0 ? n : 0] = '\0';
  /* execvp and execlp find this program by name. */
  snprintf(path, sizeof path, "%s:%s", dirname(strdup(g_self)), old ? old : "/usr/bin:/bin");
  setenv("PATH", path, 1);
  return MODES(modes);
}
