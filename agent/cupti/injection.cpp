// CUDA_INJECTION64_PATH entry point: the driver calls InitializeInjection()
// from cuInit; it only starts the agent (the same idempotent start as the
// LD_PRELOAD constructor), which subscribes to CUPTI if it can.
#include "agent/lifecycle/agent.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  try {
    brickprof::agent::ensure_started();
  } catch (...) {
    // Never throw into the driver.
  }
  return 1;  // "initialised": a failure is recorded in diagnostics, not here
}
