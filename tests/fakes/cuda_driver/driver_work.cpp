// The fake driver's GPU work: modules, launches, copies, memsets and syncs
// (memory is driver_memory.cpp).
// Each piece of work is booked on the fake GPU queue for its known duration
// (fake_cuda.h) and reported as the activity record CUPTI 13 would write.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include <cudaProfiler.h>

#include "driver_execute.h"
#include "driver_limits.h"
#include "driver_memory.h"
#include "driver_state.h"
#include "driver_trace.h"
#include "driver_work.h"
#include "fake_cuda.h"

using namespace fake_cuda;

namespace {

std::atomic<int64_t> g_grid_id{0};

// The fields every activity record of GPU work shares.
template <typename Record>
void stamp(Record& r, const Interval& run, CUcontext ctx, uint32_t stream, uint32_t correlation) {
  r.start = run.start;
  r.end = run.end;
  r.deviceId = static_cast<uint32_t>(ctx->device);
  r.contextId = ctx->id;
  r.streamId = stream;
  r.correlationId = correlation;
}

// Adds `run` to a graph replay's span, if the replay is traced whole.
bool widen(Interval* span, const Interval& run) {
  if (span == nullptr) return false;
  if (span->start == 0 || run.start < span->start) span->start = run.start;
  if (run.end > span->end) span->end = run.end;
  return true;
}

// A synchronous copy on the NULL stream: returns when it is done.
CUresult record_copy(const TracedCall& call, const CopyLaunch& copy) {
  CUcontext ctx = current_context();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  run_copy(copy, ctx, nullptr, LaunchOrigin{call.correlation()});
  gpu_wait_idle();
  return CUDA_SUCCESS;
}

CUresult record_sync(const TracedCall& call, CUpti_ActivitySynchronizationType type,
                     uint32_t stream) {
  CUcontext ctx = current_context();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  uint64_t start = now_ns();
  gpu_wait_idle();
  CUpti_ActivitySynchronization2 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = type;
  s.start = start;
  s.end = now_ns();
  s.correlationId = call.correlation();
  s.contextId = ctx->id;
  s.streamId = stream;
  s.cudaEventId = UINT32_MAX;  // CUPTI's "no event"
  emit(s, ctx->id);
  return CUDA_SUCCESS;
}

}  // namespace

CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
  cuModuleLoadData_params p{module, image};
  TRACED(cuModuleLoadData, &p);
  if (current_context() == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (module == nullptr || image == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  // Only PTX text: the real driver would JIT it; this one just keeps it.
  const char* text = static_cast<const char*>(image);
  if (std::strstr(text, ".entry") == nullptr) return call.finish(CUDA_ERROR_INVALID_IMAGE);
  *module = new_module(text);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  cuModuleUnload_params p{module};
  TRACED(cuModuleUnload, &p);
  return call.finish(module != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  cuModuleGetFunction_params p{function, module, name};
  TRACED(cuModuleGetFunction, &p);
  if (function == nullptr || module == nullptr || name == nullptr)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  *function = find_function(module, name);
  return call.finish(*function != nullptr ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND);
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute attrib, int value) {
  cuFuncSetAttribute_params p{f, attrib, value};
  TRACED(cuFuncSetAttribute, &p);
  if (f == nullptr || value < 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    const std::string why = dynamic_shared_refusal(*f, value);
    if (!why.empty()) {
      std::fprintf(stderr, "fake_cuda: cuFuncSetAttribute %s: %s\n", f->name.c_str(), why.c_str());
      return call.finish(CUDA_ERROR_INVALID_VALUE);
    }
    f->max_dynamic_shared = value;
  }
  return call.finish(CUDA_SUCCESS);
}

namespace fake_cuda {

CUresult run_kernel(const KernelLaunch& l, CUcontext ctx, CUstream stream,
                    const LaunchOrigin& origin) {
  if (executing()) {
    const CUresult r = execute_kernel(l);
    if (r != CUDA_SUCCESS) return r;
  }
  Interval run = gpu_run(uint64_t{l.grid[0]} * l.grid[1] * l.grid[2] * kNsPerBlock);
  const Tool* t = tool();
  if (t == nullptr || widen(origin.graph_span, run)) return CUDA_SUCCESS;
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  // CONCURRENT_KERNEL if asked for, else the serialising KERNEL kind.
  k.kind = t->wants(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                                                           : CUPTI_ACTIVITY_KIND_KERNEL;
  k.registersPerThread = 32;
  stamp(k, run, ctx, stream_id(stream), origin.correlation);
  k.completed = run.end;
  k.gridX = static_cast<int32_t>(l.grid[0]);
  k.gridY = static_cast<int32_t>(l.grid[1]);
  k.gridZ = static_cast<int32_t>(l.grid[2]);
  k.blockX = static_cast<int32_t>(l.block[0]);
  k.blockY = static_cast<int32_t>(l.block[1]);
  k.blockZ = static_cast<int32_t>(l.block[2]);
  k.dynamicSharedMemory = static_cast<int32_t>(l.shared_bytes);
  k.gridId = g_grid_id.fetch_add(1) + 1;
  k.name = l.function->name.c_str();
  k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
  k.graphNodeId = origin.graph_node;
  k.graphId = origin.graph_id;
  emit(k, ctx->id);
  return CUDA_SUCCESS;
}

void run_copy(const CopyLaunch& c, CUcontext ctx, CUstream stream, const LaunchOrigin& origin) {
  if (executing() && c.dst != nullptr && c.src != nullptr) std::memcpy(c.dst, c.src, c.bytes);
  Interval run = gpu_run(c.bytes / kBytesPerNs);
  if (widen(origin.graph_span, run)) return;
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = c.copy_kind;
  m.srcKind = c.src_kind;
  m.dstKind = c.dst_kind;
  m.bytes = c.bytes;
  stamp(m, run, ctx, stream_id(stream), origin.correlation);
  m.graphNodeId = origin.graph_node;
  m.graphId = origin.graph_id;
  emit(m, ctx->id);
}

CUgraphNodeType node_type(const CUgraphNode_st& node) {
  if (node.memory != CU_GRAPH_NODE_TYPE_EMPTY) return node.memory;
  return node.is_copy ? CU_GRAPH_NODE_TYPE_MEMCPY : CU_GRAPH_NODE_TYPE_KERNEL;
}

void capture_node(CUstream stream, const CUgraphNode_st& like, CUcontext ctx) {
  CUgraphNode node = new_graph_node(like);
  stream->capture->nodes.push_back(node);
  CUpti_GraphData g{};
  g.graph = stream->capture;
  g.node = node;
  g.nodeType = node_type(like);
  resource_callback(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, ctx, &g);
}

}  // namespace fake_cuda

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y,
                                unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                                void** params, void** extra) {
  cuLaunchKernel_params p{f,       grid_x,       grid_y, grid_z, block_x, block_y,
                          block_z, shared_bytes, stream, params, extra};
  ::fake_cuda::TracedCall call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &p,
                               f != nullptr ? f->name.c_str() : nullptr);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (f == nullptr) return call.finish(CUDA_ERROR_INVALID_HANDLE);
  KernelLaunch launch{f, {grid_x, grid_y, grid_z}, {block_x, block_y, block_z}, shared_bytes};
  // Checked when captured too: the launch that records a kernel node fails
  // as an eager one would, and an error invalidates the capture; a replay
  // runs only nodes that passed.
  std::string why = launch_refusal(launch);
  if (!why.empty()) {
    std::fprintf(stderr, "fake_cuda: cuLaunchKernel %s: %s\n", f->name.c_str(), why.c_str());
    if (stream != nullptr && stream->capture != nullptr) stream->invalidated = true;
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  }
  if (executing() && !copy_params(*f, params, &launch.args, &why)) {
    std::fprintf(stderr, "fake_cuda: cuLaunchKernel: %s\n", why.c_str());
    return call.finish(CUDA_ERROR_NOT_FOUND);
  }
  if (stream != nullptr && stream->capture != nullptr) {
    capture_node(stream, CUgraphNode_st{0, false, launch, {}}, ctx);  // captured, not run
    return call.finish(CUDA_SUCCESS);
  }
  return call.finish(run_kernel(launch, ctx, stream, LaunchOrigin{call.correlation()}));
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes,
                                      CUstream stream) {
  cuMemcpyHtoDAsync_v2_params p{dst, src, bytes, stream};
  TRACED(cuMemcpyHtoDAsync_v2, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (dst == 0 || src == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  // As cuMemcpyHtoD: a destination outside every allocation is refused.
  if (!range_is_allocated(dst, bytes)) return call.finish(CUDA_ERROR_INVALID_VALUE);
  // Pinned memory assumed: pageable async copies are not captured by CUDA.
  const CopyLaunch copy{bytes,
                        CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                        CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        reinterpret_cast<void*>(dst),
                        src};
  if (stream != nullptr && stream->capture != nullptr) {
    capture_node(stream, CUgraphNode_st{0, true, {}, copy}, ctx);
    return call.finish(CUDA_SUCCESS);
  }
  run_copy(copy, ctx, stream, LaunchOrigin{call.correlation()});
  return call.finish(CUDA_SUCCESS);
}

// A device-to-host copy queued on `stream` (CUDA driver API,
// cuMemcpyDtoHAsync): a source outside every allocation is refused as by
// cuMemcpyDtoH; into page-locked memory the call returns at once and the
// bytes are the host's once the stream's work is done (an event recorded
// after it completes); into pageable memory the driver stages it and
// returns when it is done ("Memcpy" in the API's synchronisation notes).
// As every piece of work here, it runs when queued and is booked on the
// GPU clock, so an event recorded after it completes at its end. A copy
// into pageable memory while a stream is captured is refused as by CUDA.
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  cuMemcpyDtoHAsync_v2_params p{dst, src, bytes, stream};
  TRACED(cuMemcpyDtoHAsync_v2, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (dst == nullptr || src == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!range_is_allocated(src, bytes)) return call.finish(CUDA_ERROR_INVALID_VALUE);
  const bool pinned = range_is_allocated(reinterpret_cast<uint64_t>(dst), bytes);
  const CopyLaunch copy{bytes,
                        CUPTI_ACTIVITY_MEMCPY_KIND_DTOH,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        static_cast<uint8_t>(pinned ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED
                                                    : CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE),
                        dst,
                        reinterpret_cast<void*>(src)};
  if (stream != nullptr && stream->capture != nullptr) {
    if (!pinned) {
      stream->invalidated = true;
      return call.finish(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    capture_node(stream, CUgraphNode_st{0, true, {}, copy}, ctx);
    return call.finish(CUDA_SUCCESS);
  }
  run_copy(copy, ctx, stream, LaunchOrigin{call.correlation()});
  if (!pinned) gpu_wait_idle();
  return call.finish(CUDA_SUCCESS);
}

// A destination outside every allocation is refused, as for cuMemcpyDtoH
// below (CUDA driver API, cuMemcpyHtoD: CUDA_ERROR_INVALID_VALUE).
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  cuMemcpyHtoD_v2_params p{dst, src, bytes};
  TRACED(cuMemcpyHtoD_v2, &p);
  if (dst == 0 || src == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!range_is_allocated(dst, bytes)) return call.finish(CUDA_ERROR_INVALID_VALUE);
  return call.finish(record_copy(
      call, CopyLaunch{bytes, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, reinterpret_cast<void*>(dst), src}));
}

// A source outside every allocation is refused, as the driver refuses it
// (CUDA driver API, cuMemcpyDtoH: CUDA_ERROR_INVALID_VALUE; with unified
// addressing the driver looks the pointer up in its allocations first).
CUresult CUDAAPI cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  cuMemcpyDtoH_v2_params p{dst, src, bytes};
  TRACED(cuMemcpyDtoH_v2, &p);
  if (dst == nullptr || src == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!range_is_allocated(src, bytes)) return call.finish(CUDA_ERROR_INVALID_VALUE);
  return call.finish(record_copy(
      call, CopyLaunch{bytes, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                       CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, dst, reinterpret_cast<void*>(src)}));
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  TRACED(cuCtxSynchronize, nullptr);  // no parameters, no params struct
  if (invalidate_captures()) return call.finish(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  release_pools_at_sync();
  // A context sync waits on no one stream: CUPTI says so with all bits set.
  return call.finish(
      record_sync(call, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, UINT32_MAX));
}

CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
  cuStreamSynchronize_params p{stream};
  TRACED(cuStreamSynchronize, &p);
  if (stream != nullptr && stream->capture != nullptr)
    return call.finish(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  release_pools_at_sync();
  return call.finish(
      record_sync(call, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, stream_id(stream)));
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t bytes) {
  cuMemsetD8_v2_params p{dst, value, bytes};
  TRACED(cuMemsetD8_v2, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (dst == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (executing()) std::memset(reinterpret_cast<void*>(dst), value, bytes);
  Interval run = gpu_run(bytes / kBytesPerNs);
  CUpti_ActivityMemset4 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = value;
  m.bytes = bytes;
  stamp(m, run, ctx, kDefaultStreamId, call.correlation());
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  emit(m, ctx->id);
  gpu_wait_idle();  // synchronous for device memory, as the driver documents
  return call.finish(CUDA_SUCCESS);
}

// Events: one in-order GPU, so an event's time is when the work queued
// before it ends.
CUresult CUDAAPI cuEventCreate(CUevent* event, unsigned int flags) {
  cuEventCreate_params p{event, flags};
  TRACED(cuEventCreate, &p);
  if (current_context() == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (event == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *event = new_event();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventRecord(CUevent event, CUstream stream) {
  cuEventRecord_params p{event, stream};
  TRACED(cuEventRecord, &p);
  if (event == nullptr) return call.finish(CUDA_ERROR_INVALID_HANDLE);
  event->ns = gpu_run(0).end;
  return call.finish(CUDA_SUCCESS);
}

// "CUDA_SUCCESS if all captured work has been completed, or
// CUDA_ERROR_NOT_READY if any captured work is incomplete"; an event never
// recorded has captured nothing (CUDA driver API, cuEventQuery).
CUresult CUDAAPI cuEventQuery(CUevent event) {
  cuEventQuery_params p{event};
  TRACED(cuEventQuery, &p);
  if (event == nullptr) return call.finish(CUDA_ERROR_INVALID_HANDLE);
  return call.finish(now_ns() >= event->ns ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

CUresult CUDAAPI cuEventSynchronize(CUevent event) {
  cuEventSynchronize_params p{event};
  TRACED(cuEventSynchronize, &p);
  if (event == nullptr) return call.finish(CUDA_ERROR_INVALID_HANDLE);
  gpu_wait_until(event->ns);
  release_pools_at_sync();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  cuEventElapsedTime_v2_params p{ms, start, end};
  TRACED(cuEventElapsedTime_v2, &p);
  if (ms == nullptr || start == nullptr || end == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *ms = static_cast<float>(static_cast<double>(end->ns - start->ns) / 1e6);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent event) {
  cuEventDestroy_v2_params p{event};
  TRACED(cuEventDestroy_v2, &p);
  return call.finish(event != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

// The profiler range calls do nothing on their own: a tool (the agent,
// with BRICKPROF_CAPTURE=cuda-profiler-api) sees them through CUPTI.
CUresult CUDAAPI cuProfilerStart(void) {
  TRACED(cuProfilerStart, nullptr);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuProfilerStop(void) {
  TRACED(cuProfilerStop, nullptr);
  return call.finish(CUDA_SUCCESS);
}
