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

namespace brickprof::bench {

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

// One way of running the measured child (its environment) and what each
// round measured.
struct ChildCase {
  const char* name;
  std::vector<std::string> env;
  std::vector<double> values;
};

// Runs every case's child once a round, the cases alternating so a change in
// the machine's load hits them all alike; false, after a line naming
// `bench` and the case, when a child fails.
inline bool run_rounds(const char* bench, const std::vector<std::string>& argv,
                       std::vector<ChildCase>& cases, int rounds) {
  for (int r = 0; r < rounds; ++r)
    for (ChildCase& c : cases) {
      const double value = run_child(argv, c.env);
      if (value <= 0) {
        std::fprintf(stderr, "%s: a child run (%s) failed\n", bench, c.name);
        return false;
      }
      c.values.push_back(value);
    }
  return true;
}

// Round by round, what `a` measured less what `b` did.
inline std::vector<double> differences(const ChildCase& a, const ChildCase& b) {
  std::vector<double> out;
  for (size_t i = 0; i < a.values.size() && i < b.values.size(); ++i)
    out.push_back(a.values[i] - b.values[i]);
  return out;
}

}  // namespace brickprof::bench
