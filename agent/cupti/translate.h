// Pure translation of CUPTI activity records into trace nodes: translate()
// turns each record into a staged node as buffers complete (names interned,
// PTX hash looked up); at exit the dump attributes the staged nodes to the
// scopes that launched them (io/gpu_attribution.h), with the copy addresses
// and graph-node origins the API callbacks kept (AttributionInputs). No
// libcupti call is made here, so tests feed it records of the real CUPTI
// types.
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <unordered_map>

#include "agent/io/memory_activity.h"
#include "agent/ptx/registry.h"
#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

// The kernel record layout of the headers we build against.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif

// Host/device addresses of a copy or memset, captured from the API
// callback's parameters (activity records do not carry them).
struct TransferAddresses {
  uint64_t src = 0;
  uint64_t dst = 0;
  uint64_t bytes = 0;
};

struct TranslationContext {
  StagedRecords staged;                   // nodes without parents yet
  const PtxRegistry* registry = nullptr;  // kernel -> module hash
  uint64_t zero_timestamp_records = 0;    // dropped: no usable time
  uint64_t unhandled_records = 0;         // kinds we do not translate
  uint64_t max_nodes = UINT64_MAX;        // beyond it (or the budget), count drops
  uint64_t dropped_over_cap = 0;
  // BRICKPROF_CAPTURE: records of later calls were launched outside every
  // window (correlation ids grow with each call): counted, not staged.
  uint64_t stage_correlations_up_to = UINT64_MAX;
  uint64_t outside_capture = 0;
  // Records of the agent's own calls (device_reads.h): not staged.
  bool (*agent_work)(uint64_t correlation) = nullptr;
  // CUPTI's kernel name pointers are stable per function: demangle once.
  struct NameInfo {
    StringId name;
    uint64_t ptx_hash;
  };
  std::unordered_map<const char*, NameInfo> names;
  // Memory and memory-pool records (io/memory_activity.h), each charged
  // through `memory_hooks`; past the budget or max_nodes, counted.
  std::vector<MemoryActivity> memory;
  MemoryHooks memory_hooks;
  uint64_t memory_dropped = 0;
};

// Stages one record. Returns true if it became a node.
bool translate(const CUpti_Activity* record, TranslationContext& ctx);

// What the API callbacks kept for the dump (CuptiDump, cupti_source.cpp).
struct AttributionInputs {
  // Correlation -> copy addresses from the API callbacks.
  const std::unordered_map<uint64_t, TransferAddresses>* addresses = nullptr;
  // Instantiated (cloned) graph node id -> the node it was cloned from.
  const std::unordered_map<uint64_t, uint64_t>* graph_node_origin = nullptr;
  // Captured node id -> correlation of the call that created it.
  const std::unordered_map<uint64_t, uint32_t>* node_correlation = nullptr;
  // BRICKPROF_CAPTURE other than all: work whose launch was not recorded
  // (outside every window) is left out.
  bool recorded_launches_only = false;
};

// The addresses a copy or memset's API call stored: under its own
// correlation, or for a replayed copy under the call that captured its node.
const TransferAddresses* addresses_of(const AttributionInputs& in, const GpuDetail& d);
// Instantiation clones nodes: follows a clone back to the captured node.
uint64_t original_graph_node(const AttributionInputs& in, uint64_t id);

}  // namespace brickprof::agent
