// fork/exec with pipes for stdout and stderr (see run_program.h).
#include "run_program.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

namespace brickprof::test {
namespace {

std::string slurp_fd(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  return s;
}

}  // namespace

Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           bool wait_for_ready_then_term, uint64_t address_space_bytes) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    if (address_space_bytes) {
      rlimit limit{address_space_bytes, address_space_bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  Result r;
  if (wait_for_ready_then_term) {
    char c;
    std::string line;
    while (read(out_pipe[0], &c, 1) == 1) {
      line.push_back(c);
      if (c == '\n') break;
    }
    r.out = line;
    kill(pid, SIGTERM);
  }
  std::thread err_reader([&] { r.err = slurp_fd(err_pipe[0]); });
  r.out += slurp_fd(out_pipe[0]);
  err_reader.join();
  rusage usage{};
  wait4(pid, &r.status, 0, &usage);
  r.peak_rss_kb = usage.ru_maxrss;
  close(out_pipe[0]);
  close(err_pipe[0]);
  return r;
}

}  // namespace brickprof::test
