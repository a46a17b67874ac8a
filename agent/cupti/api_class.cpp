// API classification by name (see api_class.h).
#include "agent/cupti/api_class.h"

#include <cctype>
#include <cstring>

namespace brickprof::agent {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (s == n) return true;
  return false;
}

template <typename T>
T field(const void* params, size_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(params) + offset, sizeof v);
  return v;
}

}  // namespace

std::string normalize_api_name(std::string_view name, bool runtime) {
  if (runtime) {
    // CUDA 13's <<<>>> stubs call __cudaLaunchKernel: to the user it is
    // cudaLaunchKernel, and a launch like any other.
    if (name.substr(0, 2) == "__") name.remove_prefix(2);
    // Trailing version tag: _v3020, _v7000, _v11060 ...
    size_t us = name.rfind("_v");
    if (us != std::string_view::npos && us + 2 < name.size()) {
      bool digits = true;
      for (size_t i = us + 2; i < name.size(); ++i)
        digits = digits && std::isdigit(static_cast<unsigned char>(name[i]));
      if (digits && name.size() - us - 2 >= 4) name = name.substr(0, us);
    }
  }
  for (std::string_view suffix : {"_ptds", "_ptsz"})
    if (ends_with(name, suffix)) name.remove_suffix(suffix.size());
  return std::string(name);
}

ApiInfo classify_api(std::string_view raw, bool runtime) {
  std::string name = normalize_api_name(raw, runtime);
  std::string_view n = name;
  ApiInfo info;
  if (MemoryCall m = memory_call_of(n, runtime); m != MemoryCall::kNone) {
    info.cls = ApiClass::kMemory;
    info.memory = m;
  } else if (starts_with(n, "cuLaunch") || starts_with(n, "cudaLaunch")) {
    info.cls = ApiClass::kLaunch;
  } else if (n == "cuGraphLaunch" || n == "cudaGraphLaunch") {
    info.cls = ApiClass::kGraphLaunch;
  } else if (starts_with(n, "cuStreamBeginCapture") || starts_with(n, "cudaStreamBeginCapture")) {
    info.cls = ApiClass::kCaptureBegin;
  } else if (n == "cuStreamEndCapture" || n == "cudaStreamEndCapture") {
    info.cls = ApiClass::kCaptureEnd;
  } else if (starts_with(n, "cuMemcpy") || starts_with(n, "cudaMemcpy")) {
    info.cls = ApiClass::kMemcpy;
    if (one_of(n, {"cuMemcpy", "cuMemcpyAsync", "cuMemcpyHtoD_v2", "cuMemcpyHtoDAsync_v2",
                   "cuMemcpyDtoH_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoD_v2",
                   "cuMemcpyDtoDAsync_v2", "cudaMemcpy", "cudaMemcpyAsync"})) {
      info.layout = ParamLayout::kDstSrcBytes;
    } else if (one_of(n, {"cuMemcpyPeer", "cuMemcpyPeerAsync", "cudaMemcpyPeer",
                          "cudaMemcpyPeerAsync"})) {
      info.layout = ParamLayout::kPeer;
    }
  } else if (starts_with(n, "cuMemset") || starts_with(n, "cudaMemset")) {
    info.cls = ApiClass::kMemset;
    if (one_of(n, {"cuMemsetD8_v2", "cuMemsetD8Async"})) {
      info.layout = ParamLayout::kMemsetElements;
      info.element_size = 1;
    } else if (one_of(n, {"cuMemsetD16_v2", "cuMemsetD16Async"})) {
      info.layout = ParamLayout::kMemsetElements;
      info.element_size = 2;
    } else if (one_of(n, {"cuMemsetD32_v2", "cuMemsetD32Async"})) {
      info.layout = ParamLayout::kMemsetElements;
      info.element_size = 4;
    } else if (one_of(n, {"cudaMemset", "cudaMemsetAsync"})) {
      info.layout = ParamLayout::kMemsetBytes;
    }
  } else if (one_of(n, {"cuStreamSynchronize", "cuCtxSynchronize", "cuCtxSynchronize_v2",
                        "cuEventSynchronize", "cudaStreamSynchronize", "cudaDeviceSynchronize",
                        "cudaEventSynchronize", "cudaThreadSynchronize"})) {
    info.cls = ApiClass::kSync;
  } else if (n == "cuStreamWaitEvent" || n == "cudaStreamWaitEvent") {
    info.cls = ApiClass::kStreamWait;
  } else if (starts_with(n, "cuEventRecord") || starts_with(n, "cudaEventRecord")) {
    info.cls = ApiClass::kEventRecord;
  } else if (one_of(n, {"cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary"})) {
    info.cls = ApiClass::kModuleLoad;
    info.layout = ParamLayout::kImageSecond;
  } else if (n == "cuModuleLoad") {
    info.cls = ApiClass::kModuleLoad;  // from a file: the resource callback sees the cubin
  } else if (n == "cuLibraryLoadData" || n == "cudaLibraryLoadData") {
    info.cls = ApiClass::kLibraryLoad;
    info.layout = ParamLayout::kImageSecond;
  } else if (starts_with(n, "cuLibraryLoad") || starts_with(n, "cudaLibraryLoad")) {
    info.cls = ApiClass::kLibraryLoad;
  } else if (starts_with(n, "cuDevicePrimaryCtxReset") || n == "cudaDeviceReset") {
    info.cls = ApiClass::kReset;
  } else if (n == "cuProfilerStart" || n == "cudaProfilerStart") {
    info.cls = ApiClass::kProfilerStart;
  } else if (n == "cuProfilerStop" || n == "cudaProfilerStop") {
    info.cls = ApiClass::kProfilerStop;
  }
  return info;
}

bool read_param_range(const ApiInfo& info, const void* params, ParamRange* out) {
  if (params == nullptr) return false;
  switch (info.layout) {
    case ParamLayout::kDstSrcBytes:
      out->dst = field<uint64_t>(params, 0);
      out->src = field<uint64_t>(params, 8);
      out->bytes = field<uint64_t>(params, 16);
      return true;
    case ParamLayout::kPeer:
      out->dst = field<uint64_t>(params, 0);
      out->src = field<uint64_t>(params, 16);
      out->bytes = field<uint64_t>(params, 32);
      return true;
    case ParamLayout::kMemsetElements:
      out->dst = field<uint64_t>(params, 0);
      out->bytes = field<uint64_t>(params, 16) * info.element_size;
      return true;
    case ParamLayout::kMemsetBytes:
      out->dst = field<uint64_t>(params, 0);
      out->bytes = field<uint64_t>(params, 16);
      return true;
    default:
      return false;
  }
}

const void* read_param_image(const ApiInfo& info, const void* params) {
  if (params == nullptr || info.layout != ParamLayout::kImageSecond) return nullptr;
  return field<const void*>(params, 8);
}

}  // namespace brickprof::agent
