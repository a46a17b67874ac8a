// How the fake driver reports to CUPTI: every API call fires ENTER and EXIT
// callbacks with a real CUpti_CallbackData, and GPU work becomes activity
// records. Without a subscriber all of it costs nothing and reports nothing.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <cstddef>
#include <cstdint>

#include "fake_tool.h"

namespace fake_cuda {

// The attached tool, or null (no CUPTI client).
const Tool* tool();
// The GPU clock: the tool's timestamp source, else CLOCK_MONOTONIC_RAW.
uint64_t now_ns();

// One traced driver call: ENTER on construction, EXIT in finish(), both
// with the same correlation id, as CUPTI does.
class TracedCall {
 public:
  TracedCall(CUpti_CallbackId cbid, const char* name, const void* params,
             const char* symbol = nullptr);
  TracedCall(const TracedCall&) = delete;
  TracedCall& operator=(const TracedCall&) = delete;
  CUresult finish(CUresult result);
  uint32_t correlation() const { return data_.correlationId; }

 private:
  CUpti_CallbackId cbid_;
  CUresult result_ = CUDA_SUCCESS;
  CUpti_CallbackData data_{};
};

// TRACED(cuLaunchKernel, &params) names the call and its callback id once.
#define TRACED(fn, params) ::fake_cuda::TracedCall call(CUPTI_DRIVER_TRACE_CBID_##fn, #fn, (params))

// A resource-domain callback: context created or being destroyed (no
// descriptor), graph node created or cloned (a CUpti_GraphData).
void resource_callback(CUpti_CallbackId cbid, CUcontext context, void* descriptor = nullptr);

// Queues a record if the tool wants its kind.
template <typename Record>
void emit(const Record& record, uint32_t context) {
  const Tool* t = tool();
  if (t != nullptr && t->wants(record.kind))
    t->record(reinterpret_cast<const CUpti_Activity*>(&record), sizeof record, context);
}

}  // namespace fake_cuda
