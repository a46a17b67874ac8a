// The fake CUPTI as it was before CUDA 12.6: callbacks and activity, no
// range profiler entry points (cuptiRangeProfiler*, cuptiProfilerHost*), so
// the agent's GPU metrics find the API missing, as with such a CUPTI.
#include "../cupti_state.h"

namespace fake_cupti {

void range_profiler_saw(CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

}  // namespace fake_cupti
