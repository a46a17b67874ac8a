// The buffers a kernel launch may write: its address-sized arguments, with
// the parameter layout from cuFuncGetParamInfo where the driver has it
// (CUDA 12.4+), else from the kernel's PTX (the registry's parameter list),
// and each pointer's element type from the kernel's C++ signature where its
// name is mangled ("_Z5saxpyfPKfPfi": float const*, float*).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "agent/cupti/libraries.h"
#include "agent/ptx/registry.h"
#include "trace/model/checksum.h"

namespace brickprof::agent {

struct PointerArg {
  uint32_t index = 0;     // the parameter's position
  uint64_t value = 0;     // what was passed: an address, if it falls in an allocation
  ElementType type = ElementType::kBytes;
  bool read_only = false;  // a pointer to const: the kernel does not write through it
};

enum class ArgsFrom : uint8_t { kDriver, kPtx, kNone };

// The launch's 8-byte arguments (`params`: cuLaunchKernel's kernelParams).
// kNone when neither the driver nor a PTX module describes the kernel.
ArgsFrom pointer_args(const Driver& driver, const PtxRegistry& registry, CUfunction function,
                      std::string_view mangled, void* const* params, std::vector<PointerArg>* out);

// The pointee of each parameter of a demangled signature
// ("demo::scale<float>(float*, float const*, int)"): its element type and
// whether it is const; a parameter that is not a pointer is kBytes and not
// const. Empty when `demangled` has no parameter list.
struct Pointee {
  ElementType type = ElementType::kBytes;
  bool pointer = false;
  bool read_only = false;
};
std::vector<Pointee> pointees_of(std::string_view demangled);

}  // namespace brickprof::agent
