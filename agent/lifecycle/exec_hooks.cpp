// The agent's exec and _exit, exported so LD_PRELOAD puts them before libc's.
// Why: exec replaces the process image (the new one loads a fresh agent) and
// _exit skips atexit, so without these hooks a process that leaves either
// way loses everything it recorded, silently. Each writes the trace first
// when agent.h's should_save_before_leaving() says so, then calls libc's.
// Every exec entry point is wrapped: glibc's execv*/execl* call its internal
// __execve, not the exported execve. A vfork child runs in its parent's
// memory and on its stack: there a hook does the pid check and the real
// call, nothing else (hence the execl* arguments go on the stack, and libc's
// functions are looked up at load).
#include <alloca.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>

#include "agent/io/log.h"
#include "agent/lifecycle/agent.h"
#include "agent/lifecycle/write_deadline.h"

namespace brickprof::agent {
namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvFn = int (*)(const char*, char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);
using ExecveatFn = int (*)(int, const char*, char* const[], char* const[], int);
using ExitFn = void (*)(int);

// libc's definitions, the next after ours.
struct Libc {
  ExecveFn execve, execvpe;
  ExecvFn execv, execvp;
  FexecveFn fexecve;
  ExecveatFn execveat;
  ExitFn exit, exit_c;  // _exit, _Exit
};
Libc g_libc;

template <typename Fn>
void look_up(Fn& slot, const char* name) {
  if (!slot) slot = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void look_up_libc() {
  look_up(g_libc.execve, "execve");
  look_up(g_libc.execvpe, "execvpe");
  look_up(g_libc.execv, "execv");
  look_up(g_libc.execvp, "execvp");
  look_up(g_libc.fexecve, "fexecve");
  look_up(g_libc.execveat, "execveat");
  look_up(g_libc.exit, "_exit");
  look_up(g_libc.exit_c, "_Exit");
}

__attribute__((constructor)) void look_up_libc_at_load() { look_up_libc(); }

// A hook called before this file's constructor (another library's).
const Libc& libc() {
  if (!g_libc.execve || !g_libc.exit) look_up_libc();
  return g_libc;
}

[[noreturn]] void leave_now(ExitFn libc_exit, int status) {
  if (libc_exit) libc_exit(status);
  for (;;) syscall(SYS_exit_group, status);
}

// One exec call, to make now or from the write's deadline handler.
struct Exec {
  enum Entry { kExecve, kExecv, kExecvp, kExecvpe, kFexecve, kExecveat } entry;
  const char* path;  // the file for execvp*
  char* const* argv;
  char* const* envp;  // for the forms that take one
  int fd = -1;        // fexecve, execveat
  int flags = 0;      // execveat

  int call() const {
    const Libc& c = libc();
    auto missing = [] {  // only if this libc lacks it
      errno = ENOSYS;
      return -1;
    };
    switch (entry) {
      case kExecve:
        return c.execve ? c.execve(path, argv, envp) : missing();
      case kExecv:
        return c.execv ? c.execv(path, argv) : missing();
      case kExecvp:
        return c.execvp ? c.execvp(path, argv) : missing();
      case kExecvpe:
        return c.execvpe ? c.execvpe(path, argv, envp) : missing();
      case kFexecve:
        return c.fexecve ? c.fexecve(fd, argv, envp) : missing();
      case kExecveat:
        return c.execveat ? c.execveat(fd, path, argv, envp, flags) : missing();
    }
    return missing();
  }

  // Whether the kernel could start this program: an exec of a missing or
  // non-executable file fails at once, and is not worth a trace write
  // (Python's os.execvp tries execve on each PATH entry in turn). An exec
  // that passes and still fails costs one write, replaced at the next.
  bool may_run() const {
    if (entry == kFexecve || entry == kExecveat) return true;
    if (!path || !*path) return false;
    if ((entry != kExecvp && entry != kExecvpe) || std::strchr(path, '/'))
      return access(path, X_OK) == 0;
    const char* search = std::getenv("PATH");
    std::string dirs = search ? search : "/bin:/usr/bin";  // glibc's default
    for (size_t begin = 0; begin <= dirs.size();) {
      size_t end = std::min(dirs.find(':', begin), dirs.size());
      std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
      if (access((dir + "/" + path).c_str(), X_OK) == 0) return true;
      begin = end + 1;
    }
    return false;
  }

  std::string what() const {
    const char* shown = path;
    asm("" : "+r"(shown));  // libc declares it nonnull: keep the check below
    if (entry == kFexecve || (entry == kExecveat && shown && !shown[0]))
      return "fd " + std::to_string(fd);
    return shown ? shown : "(null)";
  }
};

// The write is stuck past its deadline: exec without the trace. Nothing can
// go back into the stuck write, so if the exec fails here the process ends
// as a shell's child does when it cannot run a command.
[[noreturn]] void exec_without_trace(const void* arg) {
  log_error_in_signal_handler(
      "the trace write before exec did not finish within BRICKPROF_SIGNAL_DUMP_SECONDS; "
      "the exec goes on without it");
  static_cast<const Exec*>(arg)->call();
  leave_now(libc().exit, 127);
}

// The trace before `exec`, if the kernel could start it. The deadline is
// armed first: the exec may come from a handler that interrupted malloc,
// and the PATH search and the reason allocate.
bool save_before_exec(const Exec& exec) {
  WriteDeadline deadline(config().signal_dump_seconds, AfterWrite::kHostGoesOn,
                         exec_without_trace, &exec);
  try {
    return exec.may_run() &&
           save_before_leaving("written before exec of " + exec.what(), /*before_exec=*/true);
  } catch (...) {
    return false;
  }
}

int exec_saving_trace(const Exec& exec) {
  if (!should_save_before_leaving(/*before_exec=*/true))
    return exec.call();  // all a vfork child does
  const bool saved = save_before_exec(exec);
  WriteDeadline::before_exec();  // another thread's write may have its SIGALRM action in
  int result = exec.call();      // returns only on failure
  int error = errno;
  WriteDeadline::exec_failed();
  if (saved) resume_after_failed_exec();
  errno = error;
  return result;
}

[[noreturn]] void exit_without_trace(const void* status) {
  log_error_in_signal_handler(
      "the trace write at _exit did not finish within BRICKPROF_SIGNAL_DUMP_SECONDS; "
      "the process leaves without it");
  leave_now(libc().exit, *static_cast<const int*>(status));
}

[[noreturn]] void exit_saving_trace(ExitFn libc_exit, const char* name, int status) {
  if (should_save_before_leaving(/*before_exec=*/false)) {
    // Armed before the reason is built: see save_before_exec.
    WriteDeadline deadline(config().signal_dump_seconds, AfterWrite::kProcessEnds,
                           exit_without_trace, &status);
    try {
      save_before_leaving(std::string("written at ") + name + "(" + std::to_string(status) +
                              "): atexit handlers did not run",
                          /*before_exec=*/false);
    } catch (...) {
    }
  }
  leave_now(libc_exit, status);
}

// An execl* call: its arguments, `first` and those in `rest` up to the
// null that ends them, become an argv on this frame's stack (alloca), as in
// glibc's own: no malloc in a vfork child. With `then_envp` the argument
// after the null is the environment (execle's). The caller va_ends `rest`.
int exec_listed(Exec::Entry entry, const char* path, const char* first, va_list rest,
                bool then_envp) {
  va_list counting;
  va_copy(counting, rest);
  size_t n = 0;
  for (const char* a = first; a; a = va_arg(counting, const char*)) ++n;
  va_end(counting);
  char** argv = static_cast<char**>(alloca((n + 1) * sizeof(char*)));
  n = 0;
  for (const char* a = first; a; a = va_arg(rest, const char*)) argv[n++] = const_cast<char*>(a);
  argv[n] = nullptr;
  char* const* envp = then_envp ? va_arg(rest, char* const*) : nullptr;
  return exec_saving_trace(Exec{entry, path, argv, envp});
}

}  // namespace
}  // namespace brickprof::agent

using brickprof::agent::Exec;
using brickprof::agent::exec_saving_trace;
using brickprof::agent::exit_saving_trace;
using brickprof::agent::libc;
using brickprof::agent::exec_listed;

#pragma GCC visibility push(default)
extern "C" {

int execve(const char* path, char* const argv[], char* const envp[]) noexcept {
  return exec_saving_trace(Exec{Exec::kExecve, path, argv, envp});
}
int execv(const char* path, char* const argv[]) noexcept {
  return exec_saving_trace(Exec{Exec::kExecv, path, argv, nullptr});
}
int execvp(const char* file, char* const argv[]) noexcept {
  return exec_saving_trace(Exec{Exec::kExecvp, file, argv, nullptr});
}
int execvpe(const char* file, char* const argv[], char* const envp[]) noexcept {
  return exec_saving_trace(Exec{Exec::kExecvpe, file, argv, envp});
}
int fexecve(int fd, char* const argv[], char* const envp[]) noexcept {
  return exec_saving_trace(Exec{Exec::kFexecve, nullptr, argv, envp, fd});
}
int execveat(int fd, const char* path, char* const argv[], char* const envp[], int flags) noexcept {
  return exec_saving_trace(Exec{Exec::kExecveat, path, argv, envp, fd, flags});
}
int execl(const char* path, const char* arg, ...) noexcept {
  va_list args;
  va_start(args, arg);
  int result = exec_listed(Exec::kExecv, path, arg, args, /*then_envp=*/false);
  va_end(args);
  return result;  // the exec failed
}
int execlp(const char* file, const char* arg, ...) noexcept {
  va_list args;
  va_start(args, arg);
  int result = exec_listed(Exec::kExecvp, file, arg, args, /*then_envp=*/false);
  va_end(args);
  return result;
}
int execle(const char* path, const char* arg, ...) noexcept {
  va_list args;
  va_start(args, arg);
  int result = exec_listed(Exec::kExecve, path, arg, args, /*then_envp=*/true);
  va_end(args);
  return result;
}

void _exit(int status) { exit_saving_trace(libc().exit, "_exit", status); }
void _Exit(int status) noexcept { exit_saving_trace(libc().exit_c, "_Exit", status); }

}  // extern "C"
#pragma GCC visibility pop
