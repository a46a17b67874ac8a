// The CPU's counters per scope (see cpu_counters.h).
//
// One group per thread, counting that thread only (pid 0, cpu -1), user
// space only (exclude_kernel: perf_event_paranoid 2, the usual default, lets
// a process count itself so). The leader's read() returns every member's
// value at once (PERF_FORMAT_GROUP) with the time the group was enabled and
// running: where the kernel multiplexed the group onto the PMU, a scope's
// values are scaled by enabled/running, as `perf stat` scales them.
#include "agent/recorder/cpu_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "agent/recorder/budget.h"

namespace brickprof::agent::cpu_counters {
namespace {

struct EventSpec {
  const char* name;  // as `perf list` names it
  uint32_t type;
  uint64_t config;
};

constexpr EventSpec kHardware[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"LLC-load-misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
         PERF_COUNT_HW_CACHE_RESULT_MISS << 16},
};
constexpr EventSpec kSoftware[] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
};
static_assert(std::size(kHardware) <= kMaxCpuCounters && std::size(kSoftware) <= kMaxCpuCounters);

// One read of a group: time enabled and running, then each member's value.
struct Reading {
  uint64_t enabled;
  uint64_t running;
  uint64_t values[kMaxCpuCounters];
};

// A thread's group and the readings of its open scopes (as deep as the
// recorder's scope-end stack; deeper scopes get no counters).
constexpr uint32_t kMaxDepth = 128;
struct ThreadGroup {
  int fds[kMaxCpuCounters];
  uint64_t generation;  // g_generation when opened: a fork child's differs
  uint32_t depth;
  Reading open[kMaxDepth];
};

const EventSpec* g_events = nullptr;
size_t g_event_count = 0;
std::atomic<uint64_t> g_generation{1};
std::atomic<uint64_t> g_threads_refused{0};      // perf_event_open failed
std::atomic<uint64_t> g_threads_over_budget{0};  // no room for the group's state
std::atomic<int> g_thread_errno{0};
std::string* g_refusal = nullptr;  // why start() found none, set once
Mode g_mode = Mode::kOff;
pthread_key_t g_key;

// Not initial-exec: the state is reached through a call already.
thread_local ThreadGroup* tls_group = nullptr;
thread_local bool tls_refused = false;

int open_event(const EventSpec& e, int group) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format =
      PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
}

void close_all(int* fds, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (fds[i] >= 0) close(fds[i]);
}

// Opens the group into `fds`; 0, or the errno of the first event that
// failed (its index in `failed`), every fd closed again.
int open_group(int* fds, size_t* failed) {
  for (size_t i = 0; i < kMaxCpuCounters; ++i) fds[i] = -1;
  for (size_t i = 0; i < g_event_count; ++i) {
    fds[i] = open_event(g_events[i], i == 0 ? -1 : fds[0]);
    if (fds[i] < 0) {
      const int err = errno;
      close_all(fds, i);
      *failed = i;
      return err;
    }
  }
  return 0;
}

bool read_group(const ThreadGroup& g, Reading* r) {
  uint64_t buf[3 + kMaxCpuCounters];
  const ssize_t want = static_cast<ssize_t>((3 + g_event_count) * sizeof(uint64_t));
  if (read(g.fds[0], buf, sizeof buf) != want) return false;
  r->enabled = buf[1];
  r->running = buf[2];
  for (size_t i = 0; i < g_event_count; ++i) r->values[i] = buf[3 + i];
  return true;
}

// Thread exit (the key's destructor) and a stale group in a fork child.
void close_group(ThreadGroup* g, bool charged) {
  close_all(g->fds, g_event_count);
  std::free(g);
  if (charged) budget::release(sizeof(ThreadGroup));
}
void on_thread_exit(void* p) {
  ThreadGroup* g = static_cast<ThreadGroup*>(p);
  // One opened before a fork was charged to the parent's budget, not ours.
  close_group(g, g->generation == g_generation.load(std::memory_order_relaxed));
  tls_group = nullptr;
}

// The calling thread's group, opened on first use (charged to the budget);
// nullptr where it cannot be.
__attribute__((noinline)) ThreadGroup* open_for_thread() {
  const uint64_t generation = g_generation.load(std::memory_order_relaxed);
  if (tls_group) {  // opened before a fork: it counts the parent's thread
    close_group(tls_group, false);
    tls_group = nullptr;
    tls_refused = false;
    pthread_setspecific(g_key, nullptr);
  }
  if (tls_refused) return nullptr;
  tls_refused = true;  // until it is open
  const bool charged = budget::charge(sizeof(ThreadGroup));
  ThreadGroup* g = charged ? static_cast<ThreadGroup*>(std::malloc(sizeof(ThreadGroup))) : nullptr;
  if (!g) {
    if (charged) budget::release(sizeof(ThreadGroup));
    g_threads_over_budget.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  size_t failed = 0;
  if (const int err = open_group(g->fds, &failed); err != 0) {
    std::free(g);
    budget::release(sizeof(ThreadGroup));
    g_threads_refused.fetch_add(1, std::memory_order_relaxed);
    g_thread_errno.store(err, std::memory_order_relaxed);
    return nullptr;
  }
  g->generation = generation;
  g->depth = 0;
  pthread_setspecific(g_key, g);
  tls_refused = false;
  tls_group = g;
  return g;
}

inline ThreadGroup* thread_group() {
  ThreadGroup* g = tls_group;
  if (__builtin_expect(
          g != nullptr && g->generation == g_generation.load(std::memory_order_relaxed), 1))
    return g;
  return open_for_thread();
}

const char* errno_name(int err) {
  switch (err) {
    case ENOENT:
      return "ENOENT";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case ENODEV:
      return "ENODEV";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case ENOSYS:
      return "ENOSYS";
    case EMFILE:
      return "EMFILE";
    case EINVAL:
      return "EINVAL";
    case EBUSY:
      return "EBUSY";
    default:
      return "errno";
  }
}

int paranoid_level() {
  FILE* f = std::fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  if (!f) return 99;
  int level = 99;
  if (std::fscanf(f, "%d", &level) != 1) level = 99;
  std::fclose(f);
  return level;
}

// One line: what refused, in the words a user searches for.
std::string refusal(const char* event, int err) {
  std::string cause;
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    cause = g_mode == Mode::kHardware ? "no PMU" : "event not supported";
  else if (err == EACCES || err == EPERM)
    cause = "not permitted (kernel.perf_event_paranoid is " + std::to_string(paranoid_level()) +
            "; a process counts itself at 2 or below, unless a seccomp filter such as a "
            "container's forbids perf_event_open)";
  else if (err == ENOSYS)
    cause = "no perf_event_open in this kernel";
  else
    cause = "refused";
  return "none (" + cause + ": perf_event_open(" + event + ") failed: " + errno_name(err) + ", " +
         std::strerror(err) + ")";
}

}  // namespace

std::atomic<bool> g_active{false};

bool start(Mode mode) {
  g_mode = mode;
  if (mode == Mode::kOff) return false;
  g_events = mode == Mode::kHardware ? kHardware : kSoftware;
  g_event_count = mode == Mode::kHardware ? std::size(kHardware) : std::size(kSoftware);
  int fds[kMaxCpuCounters];
  size_t failed = 0;
  if (const int err = open_group(fds, &failed); err != 0) {
    g_refusal = new std::string(refusal(g_events[failed].name, err));
    return false;
  }
  close_all(fds, g_event_count);
  pthread_key_create(&g_key, on_thread_exit);
  g_active.store(true, std::memory_order_relaxed);
  return true;
}


void scope_opened() {
  ThreadGroup* g = thread_group();
  if (!g) return;
  if (g->depth < kMaxDepth && !read_group(*g, &g->open[g->depth])) {
    g->open[g->depth].enabled = 0;  // unread: its pop writes nothing
    g->open[g->depth].running = UINT64_MAX;
  }
  ++g->depth;
}

bool scope_closing(uint64_t delta[kMaxCpuCounters]) {
  ThreadGroup* g = tls_group;
  if (!g || g->generation != g_generation.load(std::memory_order_relaxed) || g->depth == 0)
    return false;
  --g->depth;
  if (g->depth >= kMaxDepth) return false;
  const Reading& from = g->open[g->depth];
  Reading to;
  if (from.running == UINT64_MAX || !read_group(*g, &to)) return false;
  const uint64_t enabled = to.enabled - from.enabled;
  const uint64_t running = to.running - from.running;
  for (size_t i = 0; i < kMaxCpuCounters; ++i) {
    uint64_t d = i < g_event_count ? to.values[i] - from.values[i] : 0;
    if (running > 0 && running < enabled)  // multiplexed: scaled as perf stat scales
      d = static_cast<uint64_t>(static_cast<long double>(d) * enabled / running);
    delta[i] = d;
  }
  return true;
}

const std::vector<std::string>& event_names() {
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>();
    for (size_t i = 0; i < g_event_count; ++i) v->emplace_back(g_events[i].name);
    return v;
  }();
  return *names;
}

std::string status() {
  if (g_mode == Mode::kOff) return "off";
  if (g_refusal) return *g_refusal;
  std::string s = g_mode == Mode::kHardware ? "on: " : "software: ";
  for (size_t i = 0; i < g_event_count; ++i) s += (i ? ", " : "") + std::string(g_events[i].name);
  if (const uint64_t n = g_threads_refused.load(std::memory_order_relaxed); n > 0) {
    const int err = g_thread_errno.load(std::memory_order_relaxed);
    s += "; " + std::to_string(n) + (n == 1 ? " thread" : " threads") +
         " without them (perf_event_open failed: " + errno_name(err) + ", " + std::strerror(err) +
         ")";
  }
  if (const uint64_t n = g_threads_over_budget.load(std::memory_order_relaxed); n > 0)
    s += "; " + std::to_string(n) + (n == 1 ? " thread" : " threads") +
         " without them (no room in BRICKPROF_BUFFER_MB)";
  return s;
}

void reset_after_fork() {
  g_generation.fetch_add(1, std::memory_order_relaxed);
  g_threads_refused.store(0, std::memory_order_relaxed);
  g_threads_over_budget.store(0, std::memory_order_relaxed);
}

}  // namespace brickprof::agent::cpu_counters
