// A program that makes the agent's file writing hard (files_test.cpp).
// Each mode records scopes first, so there is a trace to write.
//   files_app scopes N            N scopes, then exit 0
//   files_app closed-stdio        closes stdout and stderr; threads write to
//                                 descriptors 1 and 2 without pause while the
//                                 trace is written at exit
//   files_app chdir DIR           a scope, then chdir(DIR) and exit
//   files_app fsize BYTES N       RLIMIT_FSIZE of BYTES, SIGXFSZ at its default
//                                 (a full disk for a file larger than that), N scopes
//   files_app stall-write         SIGTERM to itself; the trace write stalls in its
//                                 first write(2) to a temporary file, for good
//   files_app stall-write-exec    the same write, before an exec of /bin/true
// This program's own write and writev (exported, so the agent's calls land
// here) pass everything on, except in stall-write.
#include <brickprof/brickprof.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

bool g_stall_temp_writes = false;

// Whether fd is a temporary file the agent writes (`<name>.tmp...`).
bool is_temp_file(int fd) {
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  return std::strstr(target, ".tmp") != nullptr;
}

void stall_if_asked(int fd) {
  if (g_stall_temp_writes && is_temp_file(fd))
    for (;;) pause();  // the agent's deadline ends this
}

void record(long scopes) {
  for (long i = 0; i < scopes; ++i) {
    BRICKPROF_SCOPE("tick");
  }
}

void write_forever(int fd) {
  static const char noise[] = "noise from the program\n";
  for (;;) syscall(SYS_write, fd, noise, sizeof noise - 1);
}

}  // namespace

extern "C" ssize_t write(int fd, const void* data, size_t n) {
  stall_if_asked(fd);
  return syscall(SYS_write, fd, data, n);
}

extern "C" ssize_t writev(int fd, const struct iovec* iov, int count) {
  stall_if_asked(fd);
  return syscall(SYS_writev, fd, iov, count);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "scopes" && argc > 2) {
    record(std::atol(argv[2]));
    return 0;
  }
  if (mode == "closed-stdio") {
    close(1);
    close(2);
    record(100000);
    std::thread(write_forever, 1).detach();
    std::thread(write_forever, 2).detach();
    return 0;  // the trace is written while they write
  }
  if (mode == "chdir" && argc > 2) {
    record(1);
    if (chdir(argv[2]) != 0) return 1;
    return 0;
  }
  if (mode == "fsize" && argc > 3) {
    const rlimit limit{std::strtoul(argv[2], nullptr, 10), RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 1;
    record(std::atol(argv[3]));
    return 0;
  }
  if (mode == "stall-write") {
    record(1);
    g_stall_temp_writes = true;
    kill(getpid(), SIGTERM);
    for (;;) pause();
  }
  if (mode == "stall-write-exec") {
    record(1);
    g_stall_temp_writes = true;
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    return 1;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
