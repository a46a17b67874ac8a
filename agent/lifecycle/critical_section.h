// Code that holds the agent's own locks, or runs inside a CUPTI callback,
// must not be interrupted by the trace write a dying signal starts: the
// write takes those locks (and CUPTI's) and would wait for itself until the
// BRICKPROF_SIGNAL_DUMP_SECONDS deadline. A signal the program may receive
// any time (SIGTERM, SIGINT, ...) that lands inside such a section is held
// until the thread leaves the outermost one, then raised again.
#pragma once

#include <atomic>
#include <csignal>
#include <mutex>

namespace brickprof::agent {

namespace critical {
// Sections this thread is in; and a signal held until it leaves them.
extern constinit thread_local int tls_depth __attribute__((tls_model("initial-exec")));
extern constinit thread_local volatile sig_atomic_t tls_held_signal
    __attribute__((tls_model("initial-exec")));
void raise_held_signal();  // out of line: rare
}  // namespace critical

class CriticalSection {
 public:
  CriticalSection() {
    ++critical::tls_depth;
    std::atomic_signal_fence(std::memory_order_seq_cst);  // before the section's work
  }
  ~CriticalSection() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (--critical::tls_depth == 0 && critical::tls_held_signal != 0) critical::raise_held_signal();
  }
  CriticalSection(const CriticalSection&) = delete;
  CriticalSection& operator=(const CriticalSection&) = delete;

  static bool inside() { return critical::tls_depth > 0; }
  // From a signal handler: hold `sig` until the section ends.
  static void hold(int sig) { critical::tls_held_signal = sig; }
};

// std::lock_guard inside a critical section: the section is entered before
// the lock is taken and left after it is released.
template <typename Mutex = std::mutex>
class AgentLock {
 public:
  explicit AgentLock(Mutex& m) : lock_(m) {}

 private:
  CriticalSection section_;
  std::lock_guard<Mutex> lock_;
};

}  // namespace brickprof::agent
