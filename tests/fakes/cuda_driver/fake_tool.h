// The private link between the fake driver and the fake CUPTI. The real
// libcupti hooks into libcuda through undocumented export tables; the fakes
// use this table instead: the fake CUPTI hands it to the fake driver when a
// client subscribes, and the driver reports every call and every piece of
// GPU work through it.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace fake_cuda {

struct Tool {
  // A driver-API or resource callback; CUPTI forwards it to the subscriber
  // if the client enabled it.
  void (*callback)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // The clock GPU records are stamped with (the client's, once registered).
  uint64_t (*timestamp)();
  // Whether records of `kind` are collected at all.
  bool (*wants)(CUpti_ActivityKind kind);
  // Queues one record (copied) of `context` until the next flush.
  void (*record)(const CUpti_Activity* record, size_t size, uint32_t context);
  // The context is being destroyed: its undelivered records go with it.
  void (*context_destroyed)(uint32_t context);
};

}  // namespace fake_cuda

// Exported by the fake libcuda; the fake libcupti links against it.
extern "C" void fakecuda_attach_tool(const fake_cuda::Tool* tool);
