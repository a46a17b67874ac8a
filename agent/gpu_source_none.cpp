// The GPU source where the agent is built without CUDA headers: always
// CPU-only, and says so in diagnostics.cupti.
#include "agent/gpu_source.h"

namespace brickprof::agent {

std::unique_ptr<GpuSource> start_gpu_source(const Config&, std::string* status) {
  *status = "unavailable: agent built without CUDA";
  return nullptr;
}

}  // namespace brickprof::agent
