// A stand-in for libbrickprof.so in `brickprof run` tests: a loadable shared
// object that records nothing. What run relies on it copies from the real
// agent (agent/lifecycle/agent.cpp, agent/io/output.h): the process run
// started (its pid is BRICKPROF_RUN_PID) writes its trace at exit, also
// when it leaves through _exit or _Exit (which the agent hooks, as a shell
// running `sh -c` leaves: agent/lifecycle/exec_hooks.cpp), and appends the
// file's path to BRICKPROF_RUN_MANIFEST. This one writes an empty file
// where BRICKPROF_FAKE_TRACE says; with that unset it writes nothing, as an
// agent that could not write.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

extern "C" __attribute__((visibility("default"))) int brickprof_fake_agent_marker() { return 0; }

namespace {

std::atomic<bool> g_written{false};

void write_trace() {
  if (g_written.exchange(true)) return;
  const char* run_pid = std::getenv("BRICKPROF_RUN_PID");
  if (run_pid == nullptr || std::atol(run_pid) != static_cast<long>(::getpid())) return;
  const char* trace = std::getenv("BRICKPROF_FAKE_TRACE");
  const char* manifest = std::getenv("BRICKPROF_RUN_MANIFEST");
  if (trace == nullptr || manifest == nullptr) return;
  int fd = ::open(trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ::close(fd);
  const std::string line = std::string(trace) + "\n";
  fd = ::open(manifest, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

__attribute__((constructor)) void start() { std::atexit(write_trace); }

using ExitFn = void (*)(int);

[[noreturn]] void leave(const char* name, int status) {
  write_trace();
  if (auto libc = reinterpret_cast<ExitFn>(::dlsym(RTLD_NEXT, name))) libc(status);
  std::abort();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void _exit(int status) { leave("_exit", status); }
extern "C" __attribute__((visibility("default"))) void _Exit(int status) { leave("_Exit", status); }
