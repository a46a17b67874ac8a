// start_gpu_source(): loads libcuda and libcupti, subscribes the one CUPTI
// subscriber, enables callbacks and activity, installs the sync-mode hook.
// Any failure leaves the process untouched and says why in the status.
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/cupti/activity.h"
#include "agent/cupti/activity_switch.h"
#include "agent/cupti/callbacks.h"
#include "agent/cupti/device_reads.h"
#include "agent/cupti/devices.h"
#include "agent/cupti/kernel_checksums.h"
#include "agent/cupti/live_allocations.h"
#include "agent/cupti/range_profiler.h"
#include "agent/cupti/state.h"
#include "agent/cupti/subscribe.h"
#include "agent/gpu_source.h"
#include "agent/io/log.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/python/python_frames.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {
namespace {

std::atomic<GpuState*> g_state{nullptr};

// BRICKPROF_SYNC=per-layer|immediate: make the CPU scope wait for its GPU
// work, so wall times include it. Only where this thread has a context:
// synchronising would otherwise create one (or fail).
void sync_at_scope_end(NodeKind closed) {
  GpuState* s = gpu_state();
  if (s == nullptr) return;
  if (s->config.sync == SyncMode::kPerLayer && closed != NodeKind::kLayer) return;
  // Synchronising while a stream is being captured invalidates the capture:
  // the program's own cuStreamEndCapture would fail. Its kernels do not run
  // now anyway.
  if (s->open_captures.load(std::memory_order_relaxed) > 0) {
    s->syncs_skipped_in_capture.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  CUcontext ctx = nullptr;
  if (s->driver.ctx_get_current(&ctx) == CUDA_SUCCESS && ctx != nullptr)
    s->driver.ctx_synchronize();
}

// BRICKPROF_GPU_METRICS: the profiler's occurrences end with their scopes,
// then the sync above where BRICKPROF_SYNC asks for one.
void scope_end_with_gpu_metrics(NodeKind closed) {
  range_profiler::scope_ending();
  GpuState* s = gpu_state();
  if (s != nullptr &&
      (s->config.sync == SyncMode::kPerLayer || s->config.sync == SyncMode::kImmediate))
    sync_at_scope_end(closed);
}

// devices[] (sorted by id); queried outside the record locks (the query
// takes one of them).
void add_devices(GpuState& s, Trace& trace) {
  query_used_devices(s);
  {
    AgentLock lock(s.devices_mu);
    trace.devices = s.devices;
  }
  std::sort(trace.devices.begin(), trace.devices.end(),
            [](const Device& a, const Device& b) { return a.id < b.id; });
}

// When CUPTI's records were off (read before the record locks: a switch in
// progress may wait inside CUPTI on the buffer callback, which takes them).
activity_switch::Report switch_report(const GpuState& s) {
  if (s.config.capture == capture::Mode::kAll) return {};
  return activity_switch::report();
}

// ptx[] and the source's diagnostics; `left_out`: records attribution left
// out of the capture. Caller holds the record locks.
void add_ptx_and_diagnostics(GpuState& s, Trace& trace, uint64_t left_out,
                             const activity_switch::Report& switched) {
  trace.ptx = s.registry.export_modules();
  Diagnostics& d = trace.diagnostics;
  d.activity_off = switched.off;
  if (switched.off_since >= 0)  // still off at the end: ends with the trace
    d.activity_off.push_back(
        {switched.off_since, std::max(switched.off_since, trace.process.end_ns)});
  if (switched.switches != 0)
    d.capture += "; CUPTI's work records off between windows (" +
                 std::to_string(switched.switches) + " switches)";
  d.dropped_activity_records += s.dropped_records.load() + s.translation.dropped_over_cap;
  d.zero_timestamp_records += s.translation.zero_timestamp_records;
  d.records_outside_capture += s.translation.outside_capture + left_out;
  for (const std::string& w : s.warnings) d.warnings.push_back(w);
  auto note = [&d](uint64_t n, const std::string& what) {
    if (n != 0) d.warnings.push_back(std::to_string(n) + " " + what);
  };
  note(s.buffers_refused.load(), "CUPTI buffer requests refused (pool empty; records dropped)");
  note(s.unreadable_buffers.load(),
       "activity buffers whose remaining records could not be read (lost)");
  note(s.syncs_skipped_in_capture.load(),
       "scope-end syncs skipped while a stream was being captured (BRICKPROF_SYNC)");
  note(s.translation.dropped_over_cap, "GPU records dropped at the BRICKPROF_BUFFER_MB cap");
  note(s.translation.memory_dropped,
       "CUPTI memory and memory-pool records dropped at the BRICKPROF_BUFFER_MB cap");
  note(s.module_parse_errors.load(), "module images the PTX registry could not read");
  note(s.addresses_dropped, "copy address records dropped at the cap");
  note(s.graph_nodes_dropped,
       "CUDA graph node clones not mapped at the cap (their records land under the launch)");
  note(s.translation.unhandled_records, "activity records of kinds not translated");
  note(switched.spans_not_listed,
       "spans with CUPTI's records off not listed in activity_off (list full)");
  note(switched.failed_calls, "CUPTI activity enable/disable calls refused at window edges");
}

AttributionInputs inputs_of(GpuState& s) {
  AttributionInputs in;
  in.addresses = &s.addresses;
  in.graph_node_origin = &s.graph_node_origin;
  in.node_correlation = &s.node_correlation;
  in.recorded_launches_only = s.config.capture != capture::Mode::kAll;
  return in;
}

class CuptiDump final : public GpuDump {
 public:
  // `devices`: queried before the locks are taken (add_devices).
  CuptiDump(GpuState& s, std::vector<Device> devices, activity_switch::Report switched)
      : s_(s),
        devices_(std::move(devices)),
        switched_(std::move(switched)),
        lock_(s.translate_mu, s.addresses_mu, s.graph_mu),
        in_(inputs_of(s)) {}

  StagedRecords& records() override { return s_.translation.staged; }
  bool recorded_launches_only() const override { return in_.recorded_launches_only; }
  uint64_t original_graph_node(uint64_t graph_node) const override {
    return brickprof::agent::original_graph_node(in_, graph_node);
  }
  void fill_addresses(NodeKind, GpuDetail& d) const override {
    if (const TransferAddresses* a = addresses_of(in_, d)) {
      d.src_addr = a->src;
      d.dst_addr = a->dst;
    }
  }
  const std::vector<MemoryActivity>* memory_activity() const override {
    return &s_.translation.memory;
  }
  void contribute_header(Trace& header, uint64_t left_out) override {
    header.devices = devices_;
    add_ptx_and_diagnostics(s_, header, left_out, switched_);
    if (s_.config.checksums) kernel_checksums::contribute(s_, s_.translation.staged, header);
    if (!s_.config.gpu_metrics.empty())
      range_profiler::contribute(s_, s_.translation.staged, header);
    python::contribute(header);
  }

 private:
  GpuState& s_;
  std::vector<Device> devices_;
  activity_switch::Report switched_;
  std::scoped_lock<std::mutex, std::mutex, std::mutex> lock_;
  AttributionInputs in_;
};

// In a fork child only the forking thread goes on: a lock another thread
// of the parent's held at fork stays held for ever. CUDA does not survive
// fork, but the child's CUDA calls still reach the callbacks, which take
// the state's locks (and the Python stack table's).
void reset_locks_in_fork_child() {
  if (GpuState* s = g_state.load(std::memory_order_acquire)) {
    for (std::mutex* m : {&s->translate_mu, &s->addresses_mu, &s->graph_mu, &s->devices_mu})
      new (m) std::mutex();
    s->registry.reset_lock_after_fork();
  }
  activity_switch::reset_after_fork();
  live_allocations::reset_after_fork();
  device_reads::reset_after_fork();
  kernel_checksums::reset_after_fork();
  range_profiler::reset_after_fork();
  python::reset_after_fork_in_child();
}

class CuptiSource final : public GpuSource {
 public:
  explicit CuptiSource(GpuState* s) : s_(s) {}

  void flush() override { flush_activity(*s_); }

  std::unique_ptr<GpuDump> begin_dump() override {
    Trace devices;
    add_devices(*s_, devices);
    return std::make_unique<CuptiDump>(*s_, std::move(devices.devices), switch_report(*s_));
  }

 private:
  GpuState* s_;
};

std::unique_ptr<GpuSource> fail(GpuState* s, const std::string& why, std::string* status,
                                bool expected) {
  *status = "unavailable: " + why;
  // No libcuda is the normal CPU-only case: keep stderr as the host's own
  // (the agent core logs the status at info level).
  if (!expected) log_warn("GPU capture " + *status + "; CPU scopes only");
  if (s != nullptr) {
    // Nothing stays enabled: activity outlives the subscriber in CUPTI.
    stop_activity(*s);
    if (s->subscriber != nullptr) s->cupti.unsubscribe(s->subscriber);
  }
  // `s` (subscribed once) is leaked on purpose: CUPTI may still hold its
  // address.
  return nullptr;
}

}  // namespace

GpuState* gpu_state() { return g_state.load(std::memory_order_acquire); }

void set_gpu_state(GpuState* state) {
  static const bool registered = (pthread_atfork(nullptr, nullptr, reset_locks_in_fork_child), true);
  (void)registered;
  g_state.store(state, std::memory_order_release);
}

std::unique_ptr<GpuSource> start_gpu_source(const Config& config, std::string* status) {
  try {
    if (config.sync == SyncMode::kNone) {
      *status = "off: BRICKPROF_SYNC=none (CPU scopes only)";
      return nullptr;
    }
    auto owned = std::make_unique<GpuState>(config);
    std::string why;
    if (!load_driver(&owned->driver, &why)) return fail(nullptr, why, status, true);
    std::string path;
    if (!subscribe_first_usable_cupti(*owned, &path, &why))
      return fail(nullptr, why, status, false);
    GpuState* s = owned.release();  // CUPTI holds its address from here on
    set_gpu_state(s);
    if (!enable_callbacks(*s, &why) || !start_activity(*s, &why)) {
      set_gpu_state(nullptr);
      return fail(s, why, status, false);
    }
    // Outside a window: CUPTI's records off from the start.
    if (config.capture != capture::Mode::kAll) activity_switch::install(*s);
    if (!config.gpu_metrics.empty() && range_profiler::start(*s))
      Recorder::set_scope_end_hook(scope_end_with_gpu_metrics);  // occurrences need every pop
    else if (config.sync == SyncMode::kPerLayer || config.sync == SyncMode::kImmediate)
      Recorder::set_scope_end_hook(sync_at_scope_end);
    python::start(config.python_depth);
    const auto& kinds = s->enabled_kinds;
    const bool graphs_whole =
        std::find(kinds.begin(), kinds.end(), CUPTI_ACTIVITY_KIND_GRAPH_TRACE) != kinds.end();
    *status = "active (" + path + ", sync " + to_string(config.sync) +
              (graphs_whole ? ", CUDA graphs traced whole" : "") + ")";
    return std::make_unique<CuptiSource>(s);
  } catch (...) {
    *status = "unavailable: internal error while starting CUPTI";
    return nullptr;
  }
}

}  // namespace brickprof::agent
