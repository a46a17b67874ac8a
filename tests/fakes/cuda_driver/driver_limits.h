// Where the fake driver refuses a launch or a function attribute as a real
// sm_90 driver would (limits in fake_cuda.h), so a configuration that could
// never run on an H100 fails in CI too. Each check returns the reason as
// one line, empty when the real driver would accept.
#pragma once

#include <string>

#include "driver_state.h"

namespace fake_cuda {

// Bytes of static __shared__ memory the PTX entry `entry` declares: its own
// .shared variables (nvcc puts a kernel's function-scope ones there) and
// module-scope .shared variables its body names. .extern .shared (the
// dynamic kind) counts nothing. 0 for text it cannot read.
unsigned ptx_static_shared_bytes(const std::string& ptx, const std::string& entry);

// Block and grid shape and dynamic shared memory against `launch.function`'s
// current limit.
std::string launch_refusal(const KernelLaunch& launch);

// A new CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES for `f`: at most the
// opt-in maximum less the function's static shared memory.
std::string dynamic_shared_refusal(const CUfunc_st& f, int bytes);

}  // namespace fake_cuda
