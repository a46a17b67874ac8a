// The least any CUPTI tracing tool does, preloaded like the agent: subscribe,
// take the cuLaunchKernel callbacks and do nothing in them, collect
// CONCURRENT_KERNEL records into a fixed ring of buffers and ignore them.
// launch_overhead subtracts its cost from the agent's, leaving what
// brickprof's own code adds per launch.
#include <cupti.h>

#include <cstdint>
#include <cstdlib>

namespace {

constexpr size_t kBufferBytes = 4u << 20;  // as the agent's
constexpr int kBuffers = 16;

alignas(8) uint8_t* g_buffers[kBuffers];
int g_next = 0;

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = g_buffers[g_next++ % kBuffers];  // reused: the contents are never read
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t*, size_t, size_t) {}

__attribute__((constructor)) void start() {
  for (uint8_t*& b : g_buffers) b = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, on_callback, nullptr) != CUPTI_SUCCESS) return;
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  cuptiActivityRegisterCallbacks(requested, completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

}  // namespace
