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
// CUPTI callbacks this thread is in (CuptiCallback below).
extern constinit thread_local int tls_cupti_depth __attribute__((tls_model("initial-exec")));
// Out of line: rare. Raises it now or, inside CUPTI's dispatch, later.
void raise_held_signal();
// A signal sent later carries this tag; the dump handler it reaches calls
// delete_redelivery_timer() with its siginfo (async-signal-safe).
extern const char kRedeliveryTag[];
void delete_redelivery_timer(const siginfo_t* info);
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

// Brackets a CUPTI callback (API, resource, buffer completion): a critical
// section whose end is still inside CUPTI's dispatch, which may hold locks
// the trace write needs (agent/README.md, rule 3). A signal held in it is
// not raised there: the kernel delivers it again a millisecond later, to a
// thread that is then out of the callback.
class CuptiCallback {
 public:
  CuptiCallback() = default;
  CuptiCallback(const CuptiCallback&) = delete;
  CuptiCallback& operator=(const CuptiCallback&) = delete;

 private:
  struct Dispatch {
    Dispatch() { ++critical::tls_cupti_depth; }
    ~Dispatch() { --critical::tls_cupti_depth; }
  };
  Dispatch dispatch_;        // counted first, uncounted last:
  CriticalSection section_;  // the section ends with the dispatch still counted
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
