// Host peaks the program reported (see host_peaks.h).
#include "agent/io/host_peaks.h"

#include <sched.h>

#include <atomic>
#include <cmath>
#include <cstring>

namespace brickprof::agent {
namespace {

struct HostPeaks {
  double gflops;
  double gbps;
  char how[kHostPeaksHowBytes + 1];
  double cache_gbps[3];  // L1, L2, L3
};

// Constant-initialised (all zero: nothing measured): a program's
// constructor may call before ours run. A spin lock rather than a mutex, so
// the dump can give up on it and a forked child can reset it.
constinit HostPeaks g_peaks{};
constinit std::atomic_flag g_lock;  // clear

double measured_or_zero(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

// Copies `how` into `out`, cut so no UTF-8 character is split (the JSON
// writer would otherwise put half a character in the trace).
void copy_how(const char* how, char* out) {
  size_t n = how ? strnlen(how, kHostPeaksHowBytes + 1) : 0;
  if (n > kHostPeaksHowBytes) {
    n = kHostPeaksHowBytes;
    while (n > 0 && (static_cast<unsigned char>(how[n]) & 0xC0) == 0x80) --n;
  }
  if (n > 0) std::memcpy(out, how, n);
  out[n] = '\0';
}

}  // namespace

void set_host_peaks(double gflops, double gbps, const char* how) {
  HostPeaks next{measured_or_zero(gflops), measured_or_zero(gbps), {}, {}};
  copy_how(how, next.how);  // outside the lock: the caller's string may be long
  while (g_lock.test_and_set(std::memory_order_acquire)) sched_yield();
  std::memcpy(next.cache_gbps, g_peaks.cache_gbps, sizeof next.cache_gbps);  // set apart
  g_peaks = next;
  g_lock.clear(std::memory_order_release);
}

void set_cache_bandwidth(double l1_gbps, double l2_gbps, double l3_gbps) {
  const double levels[3] = {measured_or_zero(l1_gbps), measured_or_zero(l2_gbps),
                            measured_or_zero(l3_gbps)};
  while (g_lock.test_and_set(std::memory_order_acquire)) sched_yield();
  std::memcpy(g_peaks.cache_gbps, levels, sizeof levels);
  g_lock.clear(std::memory_order_release);
}

void add_host_device(Trace& trace) {
  // The dump may run in a signal handler that interrupted a set on this
  // very thread: then the lock never comes free, so wait only a little.
  for (int tries = 0; g_lock.test_and_set(std::memory_order_acquire); ++tries) {
    if (tries == 1000) {
      trace.diagnostics.warnings.push_back(
          "host peaks (brickprof_set_host_peaks) were being set when the trace was written; "
          "not recorded");
      return;
    }
    sched_yield();
  }
  const HostPeaks now = g_peaks;
  g_lock.clear(std::memory_order_release);
  const bool caches = now.cache_gbps[0] > 0 || now.cache_gbps[1] > 0 || now.cache_gbps[2] > 0;
  if (now.gflops <= 0 && now.gbps <= 0 && !caches) return;
  Device d;
  d.id = kHostDeviceId;
  d.name = "cpu";
  d.peak_gflops = now.gflops;
  d.peak_gbps = now.gbps;
  d.peaks_source = now.how[0] ? std::string("measured by the program (") + now.how + ")"
                              : std::string("measured by the program");
  std::memcpy(d.cache_gbps, now.cache_gbps, sizeof d.cache_gbps);
  trace.devices.push_back(d);
}

void host_peaks_after_fork() { g_lock.clear(std::memory_order_release); }

}  // namespace brickprof::agent
