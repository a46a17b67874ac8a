// Signals held across the agent's critical sections (see critical_section.h).
#include "agent/lifecycle/critical_section.h"

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace brickprof::agent::critical {

constinit thread_local int tls_depth = 0;
constinit thread_local volatile sig_atomic_t tls_held_signal = 0;
constinit thread_local int tls_cupti_depth = 0;

namespace {

// Time for the thread to leave CUPTI's dispatch (microseconds, as a rule).
constexpr long kRedeliverAfterNs = 1000000;

// A one-shot timer that sends `sig` to the process in a millisecond: the
// kernel hands it to a thread that does not block it, by then out of the
// callback (or held again, and sent again, if it landed in another one).
// To the process, not this thread: a thread that exits meanwhile would
// lose it. The timer is deleted by the dump handler it reaches
// (delete_redelivery_timer).
bool send_later(int sig) {
  sigevent event;
  std::memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = sig;
  event.sigev_value.sival_ptr = const_cast<char*>(kRedeliveryTag);
  int timer = -1;
  if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &event, &timer) != 0) return false;
  itimerspec when;
  std::memset(&when, 0, sizeof when);
  when.it_value.tv_nsec = kRedeliverAfterNs;
  if (syscall(SYS_timer_settime, timer, 0, &when, nullptr) == 0) return true;
  syscall(SYS_timer_delete, timer);
  return false;
}

}  // namespace

const char kRedeliveryTag[] = "brickprof: held signal";

void raise_held_signal() {
  int sig = tls_held_signal;
  tls_held_signal = 0;
  if (tls_cupti_depth > 0 && send_later(sig)) return;
  raise(sig);  // the handler runs now, outside every section
}

void delete_redelivery_timer(const siginfo_t* info) {
  if (info && info->si_code == SI_TIMER && info->si_value.sival_ptr == kRedeliveryTag)
    syscall(SYS_timer_delete, info->si_timerid);
}

}  // namespace brickprof::agent::critical
