// GPU work the fake driver books and reports, shared by direct launches
// (driver_work.cpp) and graph replays (driver_graph.cpp).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "driver_state.h"

namespace fake_cuda {

// Where a launch came from: a direct launch, or a node of a replayed graph.
struct LaunchOrigin {
  uint32_t correlation;     // of the launching API call
  uint64_t graph_node = 0;  // CUPTI's id of the executed node, 0 if none
  uint32_t graph_id = 0;
  // A replay whose tool asked for GRAPH_TRACE: the nodes' runs widen this
  // span instead of getting records of their own, as CUPTI does.
  Interval* graph_span = nullptr;
};

// Books the kernel on the fake GPU (kNsPerBlock per block) and queues the
// activity record CUPTI 13 would write for it; when executing, runs it
// first (an error if it fails: no record then).
CUresult run_kernel(const KernelLaunch& k, CUcontext ctx, CUstream stream,
                    const LaunchOrigin& origin);
// Books the copy (bytes / kBytesPerNs) and queues its memcpy record; when
// executing, copies the bytes.
void run_copy(const CopyLaunch& c, CUcontext ctx, CUstream stream, const LaunchOrigin& origin);

// What CUPTI's graph data calls the node (CU_GRAPH_NODE_TYPE_*).
CUgraphNodeType node_type(const CUgraphNode_st& node);
// Records a capturing stream's node for this launch or copy, and tells
// CUPTI inside the calling API, as the driver does.
void capture_node(CUstream stream, const CUgraphNode_st& node, CUcontext ctx);

}  // namespace fake_cuda
