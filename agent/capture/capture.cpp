// Capture windows (see capture.h). Windows open and close rarely (a
// profiler call, an outermost trigger scope), so one mutex orders them;
// the activity hook is called after it is released (agent/README.md).
#include "agent/capture/capture.h"

#include <atomic>
#include <mutex>
#include <new>

#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "trace/model/format.h"

namespace brickprof::agent::capture {
namespace {

// 16 bytes each: 4 MiB at most. A scope per decode step fills the event
// cap long before this.
constexpr size_t kMaxWindows = size_t{1} << 18;

std::atomic<Mode> g_mode{Mode::kAll};
std::mutex g_mu;
std::atomic<bool> g_open{false};  // written under g_mu, read without it too
int64_t g_threads_inside = 0;     // kScope: threads inside a trigger scope
uint64_t g_refused = 0;
bool g_refusing = false;     // the current would-be window is not recorded
uint64_t g_every = 1;        // BRICKPROF_CAPTURE_EVERY
uint64_t g_max = 0;          // BRICKPROF_CAPTURE_MAX, 0: no limit
uint64_t g_would_be = 0;     // would-be windows so far, recorded or not
uint64_t g_sampled_out = 0;  // of those, left out by every/max
std::atomic<bool> g_activity_wanted{true};
std::atomic<void (*)()> g_activity_hook{nullptr};
bool g_frozen = false;       // the trace is being written: no new window
bool g_user_enabled = true;  // brickprof_set_enabled()

// Built on first use and never freed, like the recorder's tables: the
// dump runs after static destructors may have.
std::vector<Window>*& windows_storage() {
  static auto* w = new std::vector<Window>();
  return w;
}
std::vector<Window>& windows_list() { return *windows_storage(); }
std::string& name_storage() {
  static auto* s = new std::string();
  return *s;
}
// Built while the library loads (see thread_buffers.cpp: fork and guards).
[[maybe_unused]] const bool kStorageBuiltAtLoad = (windows_storage(), name_storage(), true);

// Records while the program allows it, nothing is being written, and the
// mode or an open window says so.
void apply_locked() {
  Recorder::set_enabled(g_user_enabled && !g_frozen && (mode() == Mode::kAll || g_open));
}

// Sets the wanted state of the GPU's records; true if it changed (the
// caller then runs the hook, after releasing g_mu).
bool update_wanted_locked() {
  const bool wanted = mode() == Mode::kAll || g_open;
  return g_activity_wanted.exchange(wanted, std::memory_order_acq_rel) != wanted;
}

void run_hook_if(bool changed) {
  if (!changed) return;
  if (void (*hook)() = g_activity_hook.load(std::memory_order_acquire)) hook();
}

void open_locked() {
  if (g_open || g_refusing || g_frozen) return;
  std::vector<Window>& list = windows_list();
  const uint64_t index = g_would_be++;  // 0-based
  if (index % g_every != 0 || (g_max != 0 && list.size() >= g_max)) {
    ++g_sampled_out;
    g_refusing = true;  // off until this would-be window closes
    return;
  }
  if (list.size() >= kMaxWindows) {
    ++g_refused;
    g_refusing = true;
    return;
  }
  try {
    list.push_back(Window{Clock::ticks(), 0});
  } catch (const std::bad_alloc&) {
    ++g_refused;
    g_refusing = true;
    return;
  }
  g_open = true;
  apply_locked();  // after the start: every event lies inside
}

void close_locked() {
  g_refusing = false;
  if (!g_open) return;
  g_open = false;
  apply_locked();
  windows_list().back().end_tsc = Clock::ticks();
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kAll:
      return "all";
    case Mode::kCudaProfilerApi:
      return "cuda-profiler-api";
    case Mode::kScope:
      return "scope";
  }
  return "all";
}

}  // namespace

void configure(Mode mode, const std::string& scope_name, uint64_t every, uint64_t max) {
  // Outside g_mu: the recorder takes its own lock, which never waits on ours.
  Recorder::capture_by_scope(mode == Mode::kScope ? scope_name : "");
  bool changed;
  {
    AgentLock lock(g_mu);
    name_storage() = scope_name;
    g_mode.store(mode, std::memory_order_relaxed);
    windows_list().clear();
    g_open = false;
    g_threads_inside = 0;
    g_refused = 0;
    g_refusing = false;
    g_every = every == 0 ? 1 : every;
    g_max = max;
    g_would_be = 0;
    g_sampled_out = 0;
    g_frozen = false;
    g_user_enabled = true;
    apply_locked();
    changed = update_wanted_locked();
  }
  run_hook_if(changed);
}

Mode mode() { return g_mode.load(std::memory_order_relaxed); }
const std::string& scope_name() { return name_storage(); }
bool window_open() { return g_open; }
bool activity_wanted() { return g_activity_wanted.load(std::memory_order_acquire); }
void set_activity_hook(void (*on_change)()) {
  g_activity_hook.store(on_change, std::memory_order_release);
}

void profiler_start() {
  if (mode() != Mode::kCudaProfilerApi) return;
  bool changed;
  {
    AgentLock lock(g_mu);
    open_locked();
    changed = update_wanted_locked();
  }
  run_hook_if(changed);
}

void profiler_stop() {
  if (mode() != Mode::kCudaProfilerApi) return;
  bool changed;
  {
    AgentLock lock(g_mu);
    close_locked();
    changed = update_wanted_locked();
  }
  run_hook_if(changed);
}

void enter_scope() {
  bool changed;
  {
    AgentLock lock(g_mu);
    if (g_threads_inside++ == 0) open_locked();
    changed = update_wanted_locked();
  }
  run_hook_if(changed);
}

void leave_scope() {
  bool changed;
  {
    AgentLock lock(g_mu);
    if (g_threads_inside > 0 && --g_threads_inside == 0) close_locked();
    changed = update_wanted_locked();
  }
  run_hook_if(changed);
}

void freeze(bool frozen) {
  AgentLock lock(g_mu);
  g_frozen = frozen;
  apply_locked();
}

void set_user_enabled(bool on) {
  AgentLock lock(g_mu);
  g_user_enabled = on;
  apply_locked();
}

std::vector<Window> windows() {
  AgentLock lock(g_mu);
  return windows_list();
}

uint64_t windows_refused() {
  AgentLock lock(g_mu);
  return g_refused;
}

uint64_t windows_sampled_out() {
  AgentLock lock(g_mu);
  return g_sampled_out;
}

std::string describe(double ns_per_tick) {
  Mode m = mode();
  if (m == Mode::kAll) return "all";
  std::string out = mode_name(m);
  if (m == Mode::kScope) out += " '" + scope_name() + "'";
  AgentLock lock(g_mu);
  uint64_t ticks = 0;
  for (const Window& w : windows_list())
    if (w.end_tsc > w.start_tsc) ticks += w.end_tsc - w.start_tsc;
  size_t n = windows_list().size();
  out += ": " + std::to_string(n) + (n == 1 ? " window, " : " windows, ") +
         format_duration(static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick)) +
         " recorded";
  if (g_open) out += " (the last still open at exit)";
  if (g_every > 1 || g_max != 0) {
    out += "; sampled: every " + std::to_string(g_every) +
           (g_max != 0 ? ", at most " + std::to_string(g_max) : std::string()) + ", " +
           std::to_string(g_sampled_out) + " of " + std::to_string(g_would_be) +
           " would-be windows left out";
  }
  if (g_refused) out += ", " + std::to_string(g_refused) + " more not recorded (window list full)";
  return out;
}

std::string why_nothing_was_recorded() {
  Mode m = mode();
  {
    AgentLock lock(g_mu);
    if (m == Mode::kAll || !windows_list().empty()) return "";
  }
  if (m == Mode::kScope)
    return "BRICKPROF_CAPTURE=scope:" + scope_name() +
           ": no scope, brick or NVTX range of that name was entered; nothing was recorded";
  return "BRICKPROF_CAPTURE=cuda-profiler-api: the program never called cudaProfilerStart or "
         "cuProfilerStart (or GPU capture is not active); nothing was recorded";
}

void reset_after_fork(bool this_thread_inside) {
  new (&g_mu) std::mutex();        // another thread may have held it at fork
  g_activity_hook.store(nullptr);  // CUDA does not survive fork: nothing to switch
  // A fresh list: another thread may have been growing the old one.
  windows_storage() = new std::vector<Window>();
  g_refused = 0;
  g_refusing = false;
  g_frozen = false;
  // Only the forking thread lives on: a window that other threads' trigger
  // scopes held open closes; one this thread holds goes on, from now.
  g_threads_inside = this_thread_inside ? 1 : 0;
  if (g_open && mode() == Mode::kScope && !this_thread_inside) {
    g_open = false;
    apply_locked();
  }
  if (g_open) windows_list().push_back(Window{Clock::ticks(), 0});
  update_wanted_locked();
}

}  // namespace brickprof::agent::capture
