// A benchmark's measurement in a child process of its own: the benchmark
// runs itself again with `argv` (its "--child ..." form) and `env` added to
// its environment, so the agent, a CUPTI client or nothing is preloaded per
// child and cases can alternate round by round.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

// The first number the child prints on stdout, or -1 when it cannot start,
// fails or prints none.
inline double run_child(std::vector<std::string> argv, const std::vector<std::string>& env) {
  int out[2];
  if (pipe(out) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    for (const std::string& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  char buf[128] = {};
  const ssize_t got = read(out[0], buf, sizeof buf - 1);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  double value = -1;
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(buf, "%lf", &value) != 1)
    return -1;
  return value;
}

}  // namespace bench
