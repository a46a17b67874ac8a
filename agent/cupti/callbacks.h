// The one CUPTI subscriber's callback and its switchboard: routes each
// (domain, callback id) to a small handler (API enter/exit, module loads,
// graph nodes, context creation and teardown).
#pragma once

#include <cupti.h>

#include <string>

#include "agent/cupti/state.h"

namespace brickprof::agent {

void CUPTIAPI on_cupti_callback(void* userdata, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid, const void* data);

// Classifies every callback id of the driver and runtime domains and
// enables the ones the agent handles, plus the resource domain. Returns
// false with a reason if CUPTI refuses.
bool enable_callbacks(GpuState& state, std::string* why);

// Reads device attributes for the device of `ctx` (once per device).
void note_device_of_context(GpuState& state, CUcontext ctx);

}  // namespace brickprof::agent
