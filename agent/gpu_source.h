// What the agent core needs from a GPU event source (CUPTI): start it, flush
// it at exit, and hand its kernels, copies and syncs to the trace.
#pragma once

#include <memory>
#include <string>

#include "agent/io/config.h"
#include "agent/io/memory_activity.h"
#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

// The GPU records while the trace is written, under the source's locks
// (released when this is destroyed).
class GpuDump {
 public:
  virtual ~GpuDump() = default;
  virtual StagedRecords& records() = 0;
  // BRICKPROF_CAPTURE other than all: records whose launch was not
  // recorded (outside every window) are left out.
  virtual bool recorded_launches_only() const = 0;
  // The graph node a replayed record was captured as (instantiation clones
  // followed back).
  virtual uint64_t original_graph_node(uint64_t graph_node) const = 0;
  // Copy and memset addresses the API callbacks saw, into `detail`.
  virtual void fill_addresses(NodeKind kind, GpuDetail& detail) const = 0;
  // CUPTI's memory and memory-pool records (io/memory_activity.h).
  virtual const std::vector<MemoryActivity>* memory_activity() const { return nullptr; }
  // devices[], ptx[] and the source's diagnostics (dropped records,
  // warnings); `left_out`: records the dump left out of the capture.
  virtual void contribute_header(Trace& header, uint64_t left_out) = 0;
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // Forces out every buffered activity record (at exit, before device reset).
  virtual void flush() = 0;
  // The exit write's view of the records (trace_stream.h).
  virtual std::unique_ptr<GpuDump> begin_dump() = 0;
};

// Starts CUPTI if it can (dlopens libcupti/libcuda). Never throws: on any
// failure it returns nullptr and says why in `status` (e.g.
// "unavailable: no libcuda"), which goes to diagnostics.cupti.
std::unique_ptr<GpuSource> start_gpu_source(const Config& config, std::string* status);

}  // namespace brickprof::agent
