// The fake driver's objects and its one fake GPU: contexts, modules,
// functions, a bump allocator for device memory, and an in-order queue that
// books each piece of work after the one before it on the GPU clock.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The driver's opaque handle types (cuda.h only declares them).
struct CUctx_st {
  uint32_t id;
  CUdevice device;
};
struct CUmod_st {
  std::string image;  // PTX text, copied as the real driver does
};
struct CUfunc_st {
  std::string name;  // mangled; c_str() is stable, as CUPTI's name pointers are
  CUmod_st* module;
  unsigned static_shared = 0;  // bytes of __shared__ its PTX declares
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: a launch asking for more fails.
  int64_t max_dynamic_shared = 0;
};
struct CUstream_st {
  uint32_t id;                // CUPTI's stream id
  CUgraph capture = nullptr;  // the graph being captured, if any
  bool invalidated = false;   // an illegal call during the capture broke it
};
namespace fake_cuda {
struct KernelLaunch {
  CUfunction function;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  std::vector<std::vector<unsigned char>> args = {};  // parameter values, when executing
};
struct CopyLaunch {
  uint64_t bytes;
  uint8_t copy_kind, src_kind, dst_kind;  // CUPTI's memcpy and memory kinds
  void* dst = nullptr;  // host-visible addresses, when executing
  const void* src = nullptr;
};
}  // namespace fake_cuda
// What stream capture records: a kernel launch or a copy, or a
// stream-ordered allocation or free (a memory node: `memory`).
struct CUgraphNode_st {
  uint64_t id;  // CUPTI's node id, unique in the process
  bool is_copy;
  fake_cuda::KernelLaunch launch;
  fake_cuda::CopyLaunch copy;
  CUgraphNodeType memory = CU_GRAPH_NODE_TYPE_EMPTY;  // _MEM_ALLOC or _MEM_FREE if one
  CUdevice device = 0;         // a memory node's
  uint64_t address = 0;        // its allocation, fixed when captured
  uint64_t bytes = 0;          // as counted against the device
  bool allocated = false;      // an exec's allocation node: its memory is held now
};
struct CUevent_st {
  uint64_t ns = 0;  // GPU time at which the work queued before it ended
};
struct CUgraph_st {
  uint32_t id;
  std::vector<CUgraphNode> nodes;
};
struct CUgraphExec_st {
  uint32_t id;
  std::vector<CUgraphNode> nodes;  // clones of the graph's, made at instantiation
};

namespace fake_cuda {

bool initialized();
// FAKE_CUDA_DEVICES (default 1; all alike).
int device_count();
void set_initialized();

// Per thread, as in the driver. Null until cuCtxCreate / cuCtxSetCurrent.
CUcontext current_context();
void set_current_context(CUcontext ctx);
uint32_t context_id(CUcontext ctx);  // 0 for null

CUcontext new_context(CUdevice device);
CUmodule new_module(const char* image);
// Null if `module` has no such entry point.
CUfunction find_function(CUmodule module, const char* name);
CUdeviceptr heap_alloc(size_t bytes);
CUstream new_stream();
CUgraph new_graph();
// A node like `like`, with a fresh id.
CUgraphNode new_graph_node(const CUgraphNode_st& like);
CUgraphExec new_graph_exec();
CUevent new_event();
// The primary context of `device`, created on first use; counts retains.
CUcontext retain_primary_context(CUdevice device, bool* created);
// Drops one retain; the context if that was the last (it goes away), else null.
CUcontext release_primary_context(CUdevice device);
// A context-wide sync during a capture is illegal: it breaks every capture
// in progress. Returns true if there was one.
bool invalidate_captures();
// CUPTI's id for work on `stream` (the NULL stream has its own).
uint32_t stream_id(CUstream stream);

struct Interval {
  uint64_t start;
  uint64_t end;
};
// Books `duration` ns of work after everything queued before it.
Interval gpu_run(uint64_t duration_ns);
// Waits (on the GPU clock) until all booked work has ended, or until `ns`.
void gpu_wait_idle();
void gpu_wait_until(uint64_t ns);

}  // namespace fake_cuda
