// The CUPTI source's shared state: one instance, built at start and never
// freed (CUPTI may call back during exit, after static destructors ran).
// Callbacks touch per-thread state lock-free; everything here that needs a
// lock is off the launch path (module loads, copies, buffer completion).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "agent/cupti/api_class.h"
#include "agent/cupti/libraries.h"
#include "agent/cupti/translate.h"
#include "agent/io/config.h"
#include "agent/ptx/registry.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

struct CbidSlot {
  ApiInfo info;
  bool classified = false;
  std::atomic<uint32_t> site{0};  // recorder site of the API name, 0 = not yet
};

struct GpuState {
  explicit GpuState(const Config& c) : config(c), registry(c.ptx == PtxMode::kSource) {}

  Config config;
  Driver driver;
  Cupti cupti;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool activity_on = false;
  std::vector<CUpti_ActivityKind> enabled_kinds;  // by start_activity, for stop_activity

  CbidSlot driver_api[kMaxCbid];
  CbidSlot runtime_api[kMaxCbid];

  PtxRegistry registry;

  // Activity translation (CUPTI's buffer-completion thread, and the flush).
  std::mutex translate_mu;
  TranslationContext translation;

  // Copy/memset addresses by correlation; bounded.
  std::mutex addresses_mu;
  std::unordered_map<uint64_t, TransferAddresses> addresses;
  uint64_t addresses_dropped = 0;

  // Graph node clones (instantiation) -> original node ids.
  std::mutex graph_mu;
  std::unordered_map<uint64_t, uint64_t> graph_node_origin;
  uint64_t graph_nodes_dropped = 0;  // clones not mapped: the budget was full
  // Captured node id -> correlation of the API call that created it, so a
  // replayed copy finds the addresses stored at capture time. Bounded.
  std::unordered_map<uint64_t, uint32_t> node_correlation;

  // Devices seen at context creation.
  std::mutex devices_mu;
  std::vector<Device> devices;

  std::atomic<uint64_t> buffers_refused{0};     // pool empty when CUPTI asked
  std::atomic<uint64_t> unreadable_buffers{0};  // record walk stopped by an error
  // Stream captures begun and not yet ended, process-wide: a context sync
  // while one is open would invalidate it (and fail the program's capture).
  std::atomic<int64_t> open_captures{0};
  // BRICKPROF_CAPTURE other than all: the largest correlation id of a call
  // recorded in a window (records of later calls were launched outside).
  std::atomic<uint32_t> max_recorded_correlation{0};
  std::atomic<uint64_t> syncs_skipped_in_capture{0};
  std::atomic<uint64_t> dropped_records{0};  // cuptiActivityGetNumDroppedRecords
  std::atomic<uint64_t> module_parse_errors{0};
  std::vector<std::string> warnings;  // guarded by translate_mu
};

// The one instance (null until start_gpu_source succeeds far enough).
// Its locks, and the activity switch's, are reset in a fork child
// (cupti_source.cpp).
GpuState* gpu_state();
void set_gpu_state(GpuState* state);

}  // namespace brickprof::agent
