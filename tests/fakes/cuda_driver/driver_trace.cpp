// API callbacks and the GPU clock of the fake driver (see driver_trace.h).
#include "driver_trace.h"

#include <time.h>

#include <atomic>

#include "driver_state.h"

namespace fake_cuda {
namespace {

std::atomic<const Tool*> g_tool{nullptr};
std::atomic<uint32_t> g_correlation{0};

}  // namespace

const Tool* tool() { return g_tool.load(std::memory_order_acquire); }

uint64_t now_ns() {
  if (const Tool* t = tool()) return t->timestamp();
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

TracedCall::TracedCall(CUpti_CallbackId cbid, const char* name, const void* params,
                       const char* symbol)
    : cbid_(cbid) {
  data_.functionName = name;
  data_.functionParams = params;
  data_.functionReturnValue = &result_;
  data_.symbolName = symbol;
  data_.context = current_context();
  data_.contextUid = context_id(data_.context);
  data_.correlationId = g_correlation.fetch_add(1) + 1;  // 0 means "none" to CUPTI
  data_.callbackSite = CUPTI_API_ENTER;
  if (const Tool* t = tool()) t->callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid_, &data_);
}

CUresult TracedCall::finish(CUresult result) {
  result_ = result;
  data_.callbackSite = CUPTI_API_EXIT;
  // The call may have made another context current (cuCtxCreate).
  data_.context = current_context();
  data_.contextUid = context_id(data_.context);
  if (const Tool* t = tool()) t->callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid_, &data_);
  return result;
}

void resource_callback(CUpti_CallbackId cbid, CUcontext context, void* descriptor) {
  const Tool* t = tool();
  if (t == nullptr) return;
  CUpti_ResourceData data{};
  data.context = context;
  data.resourceDescriptor = descriptor;
  t->callback(CUPTI_CB_DOMAIN_RESOURCE, cbid, &data);
}

}  // namespace fake_cuda

extern "C" __attribute__((visibility("default"))) void fakecuda_attach_tool(
    const fake_cuda::Tool* tool) {
  fake_cuda::g_tool.store(tool, std::memory_order_release);
}
