// Memory calls by name and their parameters (see memory_calls.h). The
// structs are CUDA's own generated ones, so a layout change in a future
// toolkit breaks the build, not the reading.
#include "agent/cupti/memory_calls.h"

#include <cuda_runtime_api.h>
#include <cupti.h>  // the generated parameter structs, with the types they need

#include <iterator>

namespace brickprof::agent {
namespace {

struct Named {
  std::string_view name;
  MemoryCall call;
};

constexpr Named kDriver[] = {
    {"cuMemAlloc_v2", MemoryCall::kAlloc},
    {"cuMemAllocPitch_v2", MemoryCall::kAllocPitch},
    {"cuMemAllocManaged", MemoryCall::kAllocManaged},
    {"cuMemFree_v2", MemoryCall::kFree},
    {"cuMemAllocAsync", MemoryCall::kAllocAsync},
    {"cuMemAllocFromPoolAsync", MemoryCall::kAllocFromPool},
    {"cuMemFreeAsync", MemoryCall::kFreeAsync},
    {"cuMemPoolTrimTo", MemoryCall::kPoolTrim},
    {"cuMemCreate", MemoryCall::kCreate},
    {"cuMemRelease", MemoryCall::kRelease},
    {"cuMemMap", MemoryCall::kMap},
    {"cuMemUnmap", MemoryCall::kUnmap},
    {"cuMemHostAlloc", MemoryCall::kHostAlloc},
    {"cuMemAllocHost_v2", MemoryCall::kAllocHost},
    {"cuMemFreeHost", MemoryCall::kFreeHost},
    {"cuMemHostRegister_v2", MemoryCall::kHostRegister},
    {"cuMemHostUnregister", MemoryCall::kHostUnregister},
};

constexpr Named kRuntime[] = {
    {"cudaMalloc", MemoryCall::kRtMalloc},
    {"cudaMallocPitch", MemoryCall::kRtMallocPitch},
    {"cudaMallocManaged", MemoryCall::kRtMallocManaged},
    {"cudaFree", MemoryCall::kRtFree},
    {"cudaMallocAsync", MemoryCall::kRtMallocAsync},
    {"cudaMallocFromPoolAsync", MemoryCall::kRtMallocFromPoolAsync},
    {"cudaFreeAsync", MemoryCall::kRtFreeAsync},
    {"cudaMemPoolTrimTo", MemoryCall::kRtPoolTrim},
    {"cudaMallocHost", MemoryCall::kRtMallocHost},
    {"cudaHostAlloc", MemoryCall::kRtHostAlloc},
    {"cudaFreeHost", MemoryCall::kRtFreeHost},
    {"cudaHostRegister", MemoryCall::kRtHostRegister},
    {"cudaHostUnregister", MemoryCall::kRtHostUnregister},
};

template <typename Params>
const Params& as(const void* params) {
  return *static_cast<const Params*>(params);
}

uint64_t handle(const void* p) { return reinterpret_cast<uint64_t>(p); }
uint64_t handle(unsigned long long v) { return v; }  // CUdeviceptr, VMM handles

// An allocation's facts: the address its output pointer got, if it succeeded.
template <typename Out>
MemoryCallFacts allocated(MemorySource source, Out* out, uint64_t bytes, bool succeeded) {
  MemoryCallFacts f;
  f.op = MemoryOp::kAlloc;
  f.source = source;
  f.bytes = bytes;
  if (succeeded && out != nullptr) f.address = handle(*out);
  f.host = source == MemorySource::kPinned || source == MemorySource::kRegistered;
  return f;
}

MemoryCallFacts freed(MemorySource source, uint64_t address) {
  MemoryCallFacts f;
  f.op = MemoryOp::kFree;
  f.source = source;
  f.address = address;
  f.host = source == MemorySource::kPinned || source == MemorySource::kRegistered;
  return f;
}

}  // namespace

MemoryCall memory_call_of(std::string_view name, bool runtime) {
  const Named* begin = runtime ? std::begin(kRuntime) : std::begin(kDriver);
  const Named* end = runtime ? std::end(kRuntime) : std::end(kDriver);
  for (const Named* n = begin; n != end; ++n)
    if (n->name == name) return n->call;
  return MemoryCall::kNone;
}

bool read_memory_call(MemoryCall call, const void* params, bool ok, MemoryCallFacts* out) {
  if (params == nullptr || call == MemoryCall::kNone) return false;
  MemoryCallFacts& f = *out;
  switch (call) {
    case MemoryCall::kAlloc: {
      const auto& p = as<cuMemAlloc_v2_params>(params);
      f = allocated(MemorySource::kDevice, p.dptr, p.bytesize, ok);
      break;
    }
    case MemoryCall::kAllocPitch: {
      const auto& p = as<cuMemAllocPitch_v2_params>(params);
      // The bytes the driver gave: rows padded to the pitch it chose.
      const uint64_t row = ok && p.pPitch != nullptr ? *p.pPitch : p.WidthInBytes;
      f = allocated(MemorySource::kDevice, p.dptr, row * p.Height, ok);
      break;
    }
    case MemoryCall::kAllocManaged: {
      const auto& p = as<cuMemAllocManaged_params>(params);
      f = allocated(MemorySource::kManaged, p.dptr, p.bytesize, ok);
      break;
    }
    case MemoryCall::kFree:
      f = freed(MemorySource::kDevice, as<cuMemFree_v2_params>(params).dptr);
      break;
    case MemoryCall::kAllocAsync: {
      const auto& p = as<cuMemAllocAsync_params>(params);
      f = allocated(MemorySource::kAsync, p.dptr, p.bytesize, ok);
      f.stream = handle(p.hStream);
      break;
    }
    case MemoryCall::kAllocFromPool: {
      const auto& p = as<cuMemAllocFromPoolAsync_params>(params);
      f = allocated(MemorySource::kAsync, p.dptr, p.bytesize, ok);
      f.stream = handle(p.hStream);
      f.pool = handle(p.pool);
      break;
    }
    case MemoryCall::kFreeAsync: {
      const auto& p = as<cuMemFreeAsync_params>(params);
      f = freed(MemorySource::kAsync, p.dptr);
      f.stream = handle(p.hStream);
      break;
    }
    case MemoryCall::kPoolTrim: {
      const auto& p = as<cuMemPoolTrimTo_params>(params);
      f.op = MemoryOp::kTrim;
      f.source = MemorySource::kAsync;
      f.pool = handle(p.pool);
      f.bytes = p.minBytesToKeep;
      break;
    }
    case MemoryCall::kCreate: {
      const auto& p = as<cuMemCreate_params>(params);
      f = allocated(MemorySource::kPhysical, static_cast<void* const*>(nullptr), p.size, ok);
      if (ok && p.handle != nullptr) f.address = *p.handle;
      if (p.prop != nullptr && p.prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
        f.device = p.prop->location.id;
      break;
    }
    case MemoryCall::kRelease:
      f = freed(MemorySource::kPhysical, as<cuMemRelease_params>(params).handle);
      break;
    case MemoryCall::kMap: {
      const auto& p = as<cuMemMap_params>(params);
      f.op = MemoryOp::kMap;
      f.source = MemorySource::kMapping;
      f.address = p.ptr;
      f.bytes = p.size;
      f.pool = p.handle;  // what the accounts free at the last unmap
      break;
    }
    case MemoryCall::kUnmap:
      f.op = MemoryOp::kUnmap;
      f.source = MemorySource::kMapping;
      f.address = as<cuMemUnmap_params>(params).ptr;
      break;
    case MemoryCall::kHostAlloc: {
      const auto& p = as<cuMemHostAlloc_params>(params);
      f = allocated(MemorySource::kPinned, p.pp, p.bytesize, ok);
      break;
    }
    case MemoryCall::kAllocHost: {
      const auto& p = as<cuMemAllocHost_v2_params>(params);
      f = allocated(MemorySource::kPinned, p.pp, p.bytesize, ok);
      break;
    }
    case MemoryCall::kFreeHost:
      f = freed(MemorySource::kPinned, handle(as<cuMemFreeHost_params>(params).p));
      break;
    case MemoryCall::kHostRegister: {
      const auto& p = as<cuMemHostRegister_v2_params>(params);
      f = allocated(MemorySource::kRegistered, static_cast<void* const*>(nullptr), p.bytesize, ok);
      f.address = handle(p.p);  // the program's memory: known either way
      break;
    }
    case MemoryCall::kHostUnregister:
      f = freed(MemorySource::kRegistered, handle(as<cuMemHostUnregister_params>(params).p));
      break;
    case MemoryCall::kRtMalloc: {
      const auto& p = as<cudaMalloc_v3020_params>(params);
      f = allocated(MemorySource::kDevice, p.devPtr, p.size, ok);
      break;
    }
    case MemoryCall::kRtMallocPitch: {
      const auto& p = as<cudaMallocPitch_v3020_params>(params);
      const uint64_t row = ok && p.pitch != nullptr ? *p.pitch : p.width;
      f = allocated(MemorySource::kDevice, p.devPtr, row * p.height, ok);
      break;
    }
    case MemoryCall::kRtMallocManaged: {
      const auto& p = as<cudaMallocManaged_v6000_params>(params);
      f = allocated(MemorySource::kManaged, p.devPtr, p.size, ok);
      break;
    }
    case MemoryCall::kRtFree:
      f = freed(MemorySource::kDevice, handle(as<cudaFree_v3020_params>(params).devPtr));
      break;
    case MemoryCall::kRtMallocAsync: {
      const auto& p = as<cudaMallocAsync_v11020_params>(params);
      f = allocated(MemorySource::kAsync, p.devPtr, p.size, ok);
      f.stream = handle(p.hStream);
      break;
    }
    case MemoryCall::kRtMallocFromPoolAsync: {
      const auto& p = as<cudaMallocFromPoolAsync_v11020_params>(params);
      f = allocated(MemorySource::kAsync, p.ptr, p.size, ok);
      f.stream = handle(p.stream);
      f.pool = handle(p.memPool);
      break;
    }
    case MemoryCall::kRtFreeAsync: {
      const auto& p = as<cudaFreeAsync_v11020_params>(params);
      f = freed(MemorySource::kAsync, handle(p.devPtr));
      f.stream = handle(p.hStream);
      break;
    }
    case MemoryCall::kRtPoolTrim: {
      const auto& p = as<cudaMemPoolTrimTo_v11020_params>(params);
      f.op = MemoryOp::kTrim;
      f.source = MemorySource::kAsync;
      f.pool = handle(p.memPool);
      f.bytes = p.minBytesToKeep;
      break;
    }
    case MemoryCall::kRtMallocHost: {
      const auto& p = as<cudaMallocHost_v3020_params>(params);
      f = allocated(MemorySource::kPinned, p.ptr, p.size, ok);
      break;
    }
    case MemoryCall::kRtHostAlloc: {
      const auto& p = as<cudaHostAlloc_v3020_params>(params);
      f = allocated(MemorySource::kPinned, p.pHost, p.size, ok);
      break;
    }
    case MemoryCall::kRtFreeHost:
      f = freed(MemorySource::kPinned, handle(as<cudaFreeHost_v3020_params>(params).ptr));
      break;
    case MemoryCall::kRtHostRegister: {
      const auto& p = as<cudaHostRegister_v4000_params>(params);
      f = allocated(MemorySource::kRegistered, static_cast<void* const*>(nullptr), p.size, ok);
      f.address = handle(p.ptr);
      break;
    }
    case MemoryCall::kRtHostUnregister:
      f = freed(MemorySource::kRegistered, handle(as<cudaHostUnregister_v4000_params>(params).ptr));
      break;
    case MemoryCall::kNone:
      return false;
  }
  // A free of nothing changes nothing (cudaFree(0) only initialises).
  return !(f.op == MemoryOp::kFree && f.address == 0);
}

}  // namespace brickprof::agent
