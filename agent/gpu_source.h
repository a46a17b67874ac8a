// What the agent core needs from a GPU event source (CUPTI): start it, flush
// it at exit, and have it add its kernels, copies and syncs to the trace.
#pragma once

#include <memory>
#include <string>

#include "agent/config.h"
#include "agent/replay.h"
#include "analysis/trace.h"

namespace brickprof::agent {

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // Forces out every buffered activity record (at exit, before device reset).
  virtual void flush() = 0;
  // Adds GPU nodes, parented to the scopes in `launches`, plus devices, ptx[]
  // and diagnostics (dropped records, zero timestamps, status).
  virtual void contribute(Trace& trace, const LaunchIndex& launches) = 0;
};

// Starts CUPTI if it can (dlopens libcupti/libcuda). Never throws: on any
// failure it returns nullptr and says why in `status` (e.g.
// "unavailable: no libcuda"), which goes to diagnostics.cupti.
std::unique_ptr<GpuSource> start_gpu_source(const Config& config, std::string* status);

}  // namespace brickprof::agent
