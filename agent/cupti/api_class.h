// Which CUDA API calls the agent cares about, decided once per callback id
// from the API's name (so every _v2/_ptsz/_ptds/_vNNNN variant is covered
// without listing them), plus where their parameters sit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "agent/cupti/memory_calls.h"

namespace brickprof::agent {

// Callback ids are small dense integers below this: a table per domain
// beats a map, and enabling walks the ids up to it.
inline constexpr uint32_t kMaxCbid = 2048;

enum class ApiClass : uint8_t {
  kIgnore,
  kLaunch,       // cuLaunchKernel*, cudaLaunchKernel*, cooperative, ...
  kGraphLaunch,  // cuGraphLaunch, cudaGraphLaunch
  kMemcpy,
  kMemset,
  kSync,         // stream / context / event / device synchronise
  kStreamWait,   // cuStreamWaitEvent
  kEventRecord,
  kModuleLoad,   // image handed over in memory (cuModuleLoadData*, FatBinary)
  kLibraryLoad,  // cuLibraryLoadData, cudaLibraryLoadData
  kReset,        // cuDevicePrimaryCtxReset, cudaDeviceReset: flush first
  kCaptureBegin,  // cuStreamBeginCapture*, cudaStreamBeginCapture*
  kCaptureEnd,    // cuStreamEndCapture, cudaStreamEndCapture
  kProfilerStart,  // cuProfilerStart, cudaProfilerStart: BRICKPROF_CAPTURE=cuda-profiler-api
  kProfilerStop,   // cuProfilerStop, cudaProfilerStop
  kMemory,         // allocations, frees, maps, trims: memory_calls.h
};

// Layout of the parameter struct, for reading copy/memset addresses.
enum class ParamLayout : uint8_t {
  kNone,
  kDstSrcBytes,     // {dst, src, bytes, ...}: 1D copies, driver _v2 and runtime
  kPeer,            // {dst, dst ctx/device, src, src ctx/device, bytes}
  kMemsetElements,  // {dst, value, element count}: cuMemsetD8/16/32
  kMemsetBytes,     // {dst, int value, bytes}: cudaMemset
  kImageSecond,     // {handle out, image}: module and library loads
};

struct ApiInfo {
  ApiClass cls = ApiClass::kIgnore;
  ParamLayout layout = ParamLayout::kNone;
  uint8_t element_size = 0;  // for kMemsetElements
  MemoryCall memory = MemoryCall::kNone;  // for kMemory
};

// "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync"; driver "_v2" kept (it
// changes the parameter types), "_ptds"/"_ptsz" dropped.
std::string normalize_api_name(std::string_view name, bool runtime);
ApiInfo classify_api(std::string_view name, bool runtime);

// Reads the copy or memset range out of a callback's parameter struct.
struct ParamRange {
  uint64_t src = 0;
  uint64_t dst = 0;
  uint64_t bytes = 0;
};
bool read_param_range(const ApiInfo& info, const void* params, ParamRange* out);
// The image pointer of a module/library load.
const void* read_param_image(const ApiInfo& info, const void* params);

}  // namespace brickprof::agent
