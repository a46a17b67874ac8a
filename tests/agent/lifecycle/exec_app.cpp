// A program that leaves through exec or _exit, for the agent's hooks
// (exec_test.cpp). Each mode records a scope named after it first.
//   exec_app exec-via ENTRY    `true` through one exec entry point (execve, execl, ...)
//   exec_app exec-self         runs itself again in mode after-exec
//   exec_app exec-chain N      scope "step N", then itself as exec-chain N-1, down to 0
//   exec_app exec-missing      an exec of a missing file; prints its errno; records on
//   exec_app exec-fails        the same with an exec of "/", which fails later (EACCES)
//   exec_app exec-threads      execs `true` while another thread records
//   exec_app fork-exec|vfork-exec  a child that records nothing execs `true`
//                              without the agent; the parent waits
//   exec_app _exit|_Exit       prints without a newline (unflushed), leaves with 3
//   exec_app quick_exit        registers a handler that records a scope and
//                              prints, then quick_exit(3)
//   exec_app stuck-exec|stuck-exit  execs `true` / _exits 3 while another thread
//                              holds stderr's lock for good (the agent's log blocks)
//   exec_app alarm-exec        alarm(30), then runs itself as print-alarm, which
//                              prints the seconds left
#include <brickprof/brickprof.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

char kTrue[] = "true";
char* const kTrueArgv[] = {kTrue, nullptr};
char* const kNoEnv[] = {nullptr};  // `true` runs without the agent

int exec_via(const std::string& entry) {
  if (entry == "execve") return execve("/bin/true", kTrueArgv, environ);
  if (entry == "execv") return execv("/bin/true", kTrueArgv);
  if (entry == "execvp") return execvp("true", kTrueArgv);
  if (entry == "execvpe") return execvpe("true", kTrueArgv, environ);
  if (entry == "execl") return execl("/bin/true", "true", static_cast<char*>(nullptr));
  if (entry == "execlp") return execlp("true", "true", static_cast<char*>(nullptr));
  if (entry == "execle") return execle("/bin/true", "true", static_cast<char*>(nullptr), environ);
  if (entry == "fexecve") return fexecve(open("/bin/true", O_RDONLY), kTrueArgv, environ);
  if (entry == "execveat") return execveat(AT_FDCWD, "/bin/true", kTrueArgv, environ, 0);
  std::fprintf(stderr, "unknown entry %s\n", entry.c_str());
  return 2;
}

void exec_self(const char* self, const char* mode, const char* arg) {
  char* const argv[] = {const_cast<char*>(self), const_cast<char*>(mode), const_cast<char*>(arg),
                        nullptr};
  execv(self, argv);
  std::perror("exec self");
  std::exit(1);
}

int child_execs_true(bool use_vfork) {
  BRICKPROF_SCOPE("parent");
  std::fflush(stdout);
  pid_t child = use_vfork ? vfork() : fork();
  if (child == 0) {
    execve("/bin/true", kTrueArgv, kNoEnv);
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("child exited %d\n", WEXITSTATUS(status));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* arg = argc > 2 ? argv[2] : "";
  if (mode == "exec-via") {
    { BRICKPROF_SCOPE("before exec"); }
    exec_via(arg);
    std::perror("exec");
    return 1;
  }
  if (mode == "exec-self") {
    { BRICKPROF_SCOPE("before exec"); }
    exec_self(argv[0], "after-exec", "");
  }
  if (mode == "after-exec") {
    { BRICKPROF_SCOPE("after exec"); }
    std::printf("after exec\n");
    return 0;
  }
  if (mode == "exec-chain") {
    int step = std::atoi(arg);
    std::string name = "step " + std::to_string(step);
    if (brickprof_push_name(BRICKPROF_KIND_SCOPE, name.c_str(), 0)) brickprof_pop();
    if (step == 0) return 0;
    exec_self(argv[0], "exec-chain", std::to_string(step - 1).c_str());
  }
  if (mode == "exec-missing" || mode == "exec-fails") {
    // A missing file fails before the trace is written; a directory passes
    // the agent's access() check and fails in the kernel (EACCES).
    const char* path = mode == "exec-missing" ? "/nonexistent/brickprof-missing" : "/";
    { BRICKPROF_SCOPE("before exec"); }
    char* const exec_argv[] = {const_cast<char*>(path), nullptr};
    int result = execve(path, exec_argv, environ);
    int error = errno;
    { BRICKPROF_SCOPE("after exec"); }
    std::printf("exec returned %d, errno %s\n", result,
                error == ENOENT ? "ENOENT" : error == EACCES ? "EACCES" : "other");
    return 0;
  }
  if (mode == "exec-threads") {
    std::atomic<bool> started{false};
    std::thread worker([&] {
      for (;;) {
        BRICKPROF_SCOPE("worker");
        started = true;
        usleep(100);
      }
    });
    worker.detach();
    while (!started) std::this_thread::yield();
    { BRICKPROF_SCOPE("before exec"); }
    execv("/bin/true", kTrueArgv);
    return 1;
  }
  if (mode == "fork-exec" || mode == "vfork-exec") return child_execs_true(mode[0] == 'v');
  if (mode == "_exit" || mode == "_Exit") {
    { BRICKPROF_SCOPE("before exit"); }
    std::printf("unflushed");
    if (mode == "_exit") _exit(3);
    _Exit(3);
  }
  if (mode == "quick_exit") {
    { BRICKPROF_SCOPE("before exit"); }
    std::at_quick_exit([] {
      { BRICKPROF_SCOPE("at quick exit"); }
      const char said[] = "handler ran\n";
      (void)!write(1, said, sizeof said - 1);
    });
    std::quick_exit(3);
  }
  if (mode == "stuck-exec" || mode == "stuck-exit") {
    { BRICKPROF_SCOPE("before leaving"); }
    std::thread holder([] {
      flockfile(stderr);
      for (;;) pause();
    });
    holder.detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (mode == "stuck-exit") _exit(3);
    execv("/bin/true", kTrueArgv);
    return 1;
  }
  if (mode == "alarm-exec") {
    { BRICKPROF_SCOPE("before exec"); }
    alarm(30);
    exec_self(argv[0], "print-alarm", "");
  }
  if (mode == "print-alarm") {
    std::printf("%u\n", alarm(0));
    return 0;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
