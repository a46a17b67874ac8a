// Switching CUPTI's work records with the capture windows (see
// activity_switch.h and agent/README.md, "Capture windows").
#include "agent/cupti/activity_switch.h"

#include <atomic>
#include <mutex>
#include <new>

#include "agent/recorder/budget.h"
#include "agent/capture/capture.h"
#include "agent/recorder/clock.h"
#include "agent/lifecycle/critical_section.h"

namespace brickprof::agent::activity_switch {
namespace {

// A span is 16 bytes: 1 MiB at most. Sampling every 50th decode step for
// hours stays far below it.
constexpr size_t kMaxSpans = size_t{1} << 16;

std::mutex g_switch_mu;  // orders the enable/disable calls; see rule 2
std::atomic<bool> g_pending{false};
bool g_applied_on = true;  // under g_switch_mu: start_activity left them on
uint64_t g_switches = 0;
uint64_t g_failed_calls = 0;
uint64_t g_spans_not_listed = 0;
int64_t g_off_since = -1;  // -1: on
// Built once and never freed, like the recorder's tables: a dump may read
// it after static destructors ran.
std::vector<TimeRange>& spans() {
  static auto* v = new std::vector<TimeRange>();
  return *v;
}

thread_local uint32_t t_callback_depth __attribute__((tls_model("initial-exec"))) = 0;

// Under g_switch_mu: brings CUPTI to the wanted state.
void switch_locked() {
  GpuState* s = gpu_state();
  if (s == nullptr || !s->activity_on) return;
  const bool want = capture::activity_wanted();
  if (want == g_applied_on) return;
  for (CUpti_ActivityKind kind : s->enabled_kinds) {
    CUptiResult r = want ? s->cupti.activity_enable(kind) : s->cupti.activity_disable(kind);
    if (r != CUPTI_SUCCESS) ++g_failed_calls;
  }
  g_applied_on = want;
  ++g_switches;
  const int64_t now = monotonic_ns();
  if (!want) {
    g_off_since = now;
    return;
  }
  if (spans().size() < kMaxSpans && budget::charge(sizeof(TimeRange))) {
    try {
      spans().push_back({g_off_since, now});
    } catch (...) {
      budget::release(sizeof(TimeRange));
      ++g_spans_not_listed;
    }
  } else {
    ++g_spans_not_listed;
  }
  g_off_since = -1;
}

}  // namespace

void install(GpuState& state) {
  (void)state;  // gpu_state() is it; the parameter says it must exist
  capture::set_activity_hook(request);
  AgentLock lock(g_switch_mu);
  switch_locked();
}

void request() {
  if (t_callback_depth > 0) {
    g_pending.store(true, std::memory_order_release);
    return;
  }
  AgentLock lock(g_switch_mu);
  g_pending.store(false, std::memory_order_relaxed);
  switch_locked();
}

void apply_pending() {
  if (__builtin_expect(!g_pending.load(std::memory_order_relaxed), 1)) return;
  std::unique_lock<std::mutex> lock(g_switch_mu, std::try_to_lock);
  if (!lock.owns_lock()) return;  // stays pending: rule 3
  if (!g_pending.exchange(false, std::memory_order_acq_rel)) return;
  switch_locked();
}

void enter_callback() { ++t_callback_depth; }
void leave_callback() { --t_callback_depth; }

void reset_after_fork() {
  new (&g_switch_mu) std::mutex();
  g_pending.store(false, std::memory_order_relaxed);
}

Report report() {
  AgentLock lock(g_switch_mu);
  Report r;
  r.off = spans();
  r.off_since = g_off_since;
  r.spans_not_listed = g_spans_not_listed;
  r.switches = g_switches;
  r.failed_calls = g_failed_calls;
  return r;
}

}  // namespace brickprof::agent::activity_switch
