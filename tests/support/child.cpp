// fork/exec with pipes for stdout and stderr (see child.h).
#include "tests/support/child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <thread>

namespace brickprof::test {
namespace {

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  return s;
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    for (const auto& [name, value] : options.env) {
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
    if (options.address_space_bytes) {
      rlimit limit{options.address_space_bytes, options.address_space_bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ChildResult r;
  if (options.term_after_first_line) {
    char c;
    while (read(out_pipe[0], &c, 1) == 1) {
      r.out.push_back(c);
      if (c == '\n') break;
    }
    kill(pid, SIGTERM);
  }
  // Both pipes at once: a child that fills one while we wait on the other
  // would never finish.
  std::thread err_reader([&] { r.err = read_all(err_pipe[0]); });
  r.out += read_all(out_pipe[0]);
  err_reader.join();
  rusage usage{};
  while (wait4(pid, &r.status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.peak_rss_kb = usage.ru_maxrss;
  close(out_pipe[0]);
  close(err_pipe[0]);
  return r;
}

}  // namespace brickprof::test
