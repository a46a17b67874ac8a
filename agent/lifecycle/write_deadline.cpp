// The time limit on a trace write the process's leaving waits for (see
// write_deadline.h). ITIMER_REAL is the host's alarm() too, so its remaining
// time is saved and, where the host goes on, put back less the time the
// write took. Everything the handler calls is async-signal-safe.
#include "agent/lifecycle/write_deadline.h"

#include <signal.h>
#include <sys/time.h>

#include <cstdint>
#include <cstring>

#include "agent/recorder/clock.h"
#include "analysis/export/atomic_file.h"

namespace brickprof::agent {
namespace {

AfterWrite g_after = AfterWrite::kHostGoesOn;
GiveUp g_give_up = nullptr;
const void* g_arg = nullptr;
int64_t g_armed_ns = 0;
int64_t g_deadline_ns = 0;
struct sigaction g_host_action;
itimerval g_host_timer;
volatile sig_atomic_t g_host_alarm_pending = 0;

// Ours off first, then the host's action, then (if it goes on) its timer:
// no moment where either alarm meets the other's action.
void restore_host_alarm(AfterWrite after) {
  itimerval timer;
  std::memset(&timer, 0, sizeof timer);
  setitimer(ITIMER_REAL, &timer, nullptr);
  sigaction(SIGALRM, &g_host_action, nullptr);
  if (after == AfterWrite::kProcessDies) return;
  timer = g_host_timer;
  if (timerisset(&timer.it_value)) {
    int64_t left_us = timer.it_value.tv_sec * 1000000 + timer.it_value.tv_usec -
                      (monotonic_ns() - g_armed_ns) / 1000;
    if (left_us < 1) left_us = 1;  // it would have fired during the write: now, then
    timer.it_value.tv_sec = left_us / 1000000;
    timer.it_value.tv_usec = left_us % 1000000;
  }
  setitimer(ITIMER_REAL, &timer, nullptr);
}

void on_alarm(int) {
  constexpr int64_t kSlackNs = 10000000;            // the timer and our clock may differ a little
  if (monotonic_ns() < g_deadline_ns - kSlackNs) {  // not ours: kill(), a host timer
    g_host_alarm_pending = 1;
    return;
  }
  restore_host_alarm(g_after);
  remove_unfinished_files();  // the write is given up: no temporary file stays
  g_give_up(g_arg);
}

}  // namespace

WriteDeadline::WriteDeadline(unsigned seconds, AfterWrite after, GiveUp give_up, const void* arg)
    : after_(after) {
  g_after = after;
  g_give_up = give_up;
  g_arg = arg;
  g_host_alarm_pending = 0;
  g_armed_ns = monotonic_ns();
  g_deadline_ns = g_armed_ns + static_cast<int64_t>(seconds) * 1000000000;
  struct sigaction ours;
  std::memset(&ours, 0, sizeof ours);
  ours.sa_handler = on_alarm;
  sigemptyset(&ours.sa_mask);
  // Not blocked while it runs: an exec from the handler would hand the new
  // image a signal mask with SIGALRM blocked.
  ours.sa_flags = SA_NODEFER | SA_RESTART;
  sigaction(SIGALRM, &ours, &g_host_action);
  itimerval deadline;
  std::memset(&deadline, 0, sizeof deadline);
  deadline.it_value.tv_sec = seconds;
  setitimer(ITIMER_REAL, &deadline, &g_host_timer);
}

WriteDeadline::~WriteDeadline() {
  restore_host_alarm(after_);
  if (g_host_alarm_pending && after_ == AfterWrite::kHostGoesOn) raise(SIGALRM);
}

}  // namespace brickprof::agent
