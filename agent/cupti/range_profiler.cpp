// CUPTI's range profiler, one window per profiled launch (see range_profiler.h).
// The calls and their order follow CUPTI's range_profiling sample and the
// headers' comments: profiler initialise, device support, enable on the
// context, chip name and counter availability, host object with the metrics,
// config image and pass count, counter data image, set config, then per
// window start / stop / decode and the host's evaluation of the one range.
#include "agent/cupti/range_profiler.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/cupti/libraries.h"
#include "agent/io/gpu_metric_events.h"
#include "agent/io/log.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent::range_profiler {
namespace {

// The profiler's entry points, resolved from the CUPTI the agent subscribed
// with; any missing: this CUPTI has no range profiler (before CUDA 12.6).
struct Api {
  decltype(&::cuptiProfilerInitialize) initialize = nullptr;
  decltype(&::cuptiProfilerDeviceSupported) device_supported = nullptr;
  decltype(&::cuptiDeviceGetChipName) chip_name = nullptr;
  decltype(&::cuptiProfilerGetCounterAvailability) counter_availability = nullptr;
  decltype(&::cuptiProfilerHostInitialize) host_initialize = nullptr;
  decltype(&::cuptiProfilerHostConfigAddMetrics) host_add_metrics = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImageSize) host_config_size = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImage) host_config_image = nullptr;
  decltype(&::cuptiProfilerHostGetNumOfPasses) host_passes = nullptr;
  decltype(&::cuptiProfilerHostEvaluateToGpuValues) host_evaluate = nullptr;
  decltype(&::cuptiRangeProfilerEnable) enable = nullptr;
  decltype(&::cuptiRangeProfilerDisable) disable = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataSize) counter_data_size = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataImageInitialize) counter_data_initialize = nullptr;
  decltype(&::cuptiRangeProfilerSetConfig) set_config = nullptr;
  decltype(&::cuptiRangeProfilerStart) start = nullptr;
  decltype(&::cuptiRangeProfilerStop) stop = nullptr;
  decltype(&::cuptiRangeProfilerDecodeData) decode = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataInfo) counter_data_info = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataGetRangeInfo) range_info = nullptr;
};

// A call's parameters: zeroed (pPriv null, as every call requires), sized.
template <typename P>
P params(size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

// "missing NAME" for the first entry point this CUPTI lacks, or "".
std::string resolve_api(void* lib, Api* a) {
  if (lib == nullptr) return "missing cuptiProfilerInitialize";
  std::string why;
  (void)(resolve_symbol(lib, "cuptiProfilerInitialize", &a->initialize, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerDeviceSupported", &a->device_supported, true, &why) &&
         resolve_symbol(lib, "cuptiDeviceGetChipName", &a->chip_name, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerGetCounterAvailability", &a->counter_availability, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerHostInitialize", &a->host_initialize, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerHostConfigAddMetrics", &a->host_add_metrics, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerHostGetConfigImageSize", &a->host_config_size, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerHostGetConfigImage", &a->host_config_image, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerHostGetNumOfPasses", &a->host_passes, true, &why) &&
         resolve_symbol(lib, "cuptiProfilerHostEvaluateToGpuValues", &a->host_evaluate, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerEnable", &a->enable, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerDisable", &a->disable, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerGetCounterDataSize", &a->counter_data_size, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerCounterDataImageInitialize", &a->counter_data_initialize, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerSetConfig", &a->set_config, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerStart", &a->start, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerStop", &a->stop, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerDecodeData", &a->decode, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerGetCounterDataInfo", &a->counter_data_info, true, &why) &&
         resolve_symbol(lib, "cuptiRangeProfilerCounterDataGetRangeInfo", &a->range_info, true, &why));
  return why;
}

// One context's profiler: enabled, configured for the metrics, and its
// counter data image, which holds one range (one launch) at a time.
struct Context {
  CUcontext ctx = nullptr;
  CUpti_RangeProfiler_Object* object = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config;
  std::vector<uint8_t> counter_data;
  // Held from a profiled launch's enter to its exit: the window is the
  // context's, so two threads launching on it take turns.
  std::mutex busy;
};

// Why launches were not profiled, or their values not kept.
struct Counts {
  std::atomic<uint64_t> sampled{0};   // occurrences whose kernels were profiled
  std::atomic<uint64_t> skipped{0};   // occurrences that were not
  std::atomic<uint64_t> captured{0};  // launched while a stream was being captured
  std::atomic<uint64_t> failed{0};    // a profiler call failed for the launch
  std::atomic<uint64_t> no_range{0};  // the window held no range (the launch failed)
  std::atomic<uint64_t> renamed{0};   // its range's name was not its kernel's
  std::atomic<uint64_t> dropped{0};   // ranges CUPTI dropped
  std::atomic<uint64_t> budget{0};    // kept values past BRICKPROF_BUFFER_MB
};

struct State {
  Api api;
  GpuMetricPlan plan;
  std::vector<const char*> names;  // plan.metrics' texts, for CUPTI
  uint64_t every = 10;
  std::atomic<bool> refused{false};
  std::atomic<uint32_t> passes{0};
  std::atomic<bool> opened{false};  // a window has opened: failures since are the launch's
  std::mutex mutex;                 // everything below
  std::string refusal;
  std::vector<Context*> contexts;                      // never freed: CUPTI holds their images
  std::unordered_map<uint64_t, uint64_t> occurrences;  // by scope path
  std::vector<ProfiledLaunch> launches;
  Counts counts;
};

State* g_state = nullptr;  // set once by start(); never destroyed

// A launch of one kernel (graphs replay many, and are not profiled).
bool single_kernel(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return true;
    default:
      return false;
  }
}

// Refuses for the rest of the run, saying why once.
void refuse(State& st, const std::string& why) {
  {
    AgentLock lock(st.mutex);
    if (st.refused.load()) return;
    st.refusal = "refused: " + why;
    st.refused.store(true);
  }
  log_warn("GPU metrics " + st.refusal + "; the run goes on without them");
}

// The refusal's words for a CUPTI error: what the user can do about it.
std::string explain(const Cupti& cupti, const char* call, CUptiResult r) {
  const std::string error = cupti_error(cupti, r);
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return std::string(call) + ": " + error +
             ": the driver lets only administrators read the GPU's counters (run as root, or "
             "load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0)";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return std::string(call) + ": " + error +
             ": another client holds the GPU's counters (DCGM's profiling module, Nsight "
             "Compute or another profiler; pause DCGM's with `dcgmi profile --pause`)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return std::string(call) + ": " + error + ": this GPU is not supported by the range profiler";
    default:
      return std::string(call) + " failed: " + error;
  }
}

// A failure that the next launch would meet too.
bool lasting(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return true;
    default:
      return false;
  }
}

// Which of the device's properties keep the profiler off.
std::string unsupported_parts(const CUpti_Profiler_DeviceSupported_Params& p) {
  std::string parts;
  auto add = [&parts](CUpti_Profiler_Support_Level level, const char* what) {
    if (level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
    if (!parts.empty()) parts += ", ";
    parts += what;
    if (level == CUPTI_PROFILER_CONFIGURATION_DISABLED) parts += " (disabled)";
  };
  add(p.architecture, "architecture (compute capability 7.0 or later needed)");
  add(p.sli, "SLI");
  add(p.vGpu, "vGPU");
  add(p.confidentialCompute, "confidential computing");
  add(p.cmp, "a mining processor (CMP)");
  add(p.wsl, "WSL");
  return parts.empty() ? "not supported" : parts;
}

// Sets up the profiler on `c.ctx` (the launch's, current on this thread);
// false, saying why, where it cannot. Under st.mutex.
bool set_up(GpuState& s, State& st, Context& c, std::string* why) {
  const Api& a = st.api;
  // CUPTI's own query first: a driver call here would show in the trace.
  uint32_t id = 0;
  CUdevice device = 0;
  if (s.cupti.get_device_id != nullptr && s.cupti.get_device_id(c.ctx, &id) == CUPTI_SUCCESS) {
    device = static_cast<CUdevice>(id);
  } else if (s.driver.ctx_get_device(&device) != CUDA_SUCCESS) {
    *why = "cuCtxGetDevice failed on the launch's context";
    return false;
  }
  auto supported = params<CUpti_Profiler_DeviceSupported_Params>(
      CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  supported.cuDevice = device;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (CUptiResult r = a.device_supported(&supported); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiProfilerDeviceSupported", r);
    return false;
  }
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    *why = "device " + std::to_string(device) +
           " does not support the range profiler: " + unsupported_parts(supported);
    return false;
  }
  auto enable =
      params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = c.ctx;
  if (CUptiResult r = a.enable(&enable); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiRangeProfilerEnable", r);
    return false;
  }
  c.object = enable.pRangeProfilerObject;
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(device);
  if (CUptiResult r = a.chip_name(&chip); r != CUPTI_SUCCESS || chip.pChipName == nullptr) {
    *why = explain(s.cupti, "cuptiDeviceGetChipName", r);
    return false;
  }
  const std::string chip_name = chip.pChipName;
  auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = c.ctx;
  std::vector<uint8_t> availability;
  if (CUptiResult r = a.counter_availability(&avail); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiProfilerGetCounterAvailability", r);
    return false;
  }
  availability.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = a.counter_availability(&avail); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiProfilerGetCounterAvailability", r);
    return false;
  }
  auto host = params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip_name.c_str();
  host.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = a.host_initialize(&host); r != CUPTI_SUCCESS) {
    *why = "chip " + chip_name + ": " + explain(s.cupti, "cuptiProfilerHostInitialize", r);
    return false;
  }
  c.host = host.pHostObject;
  // One metric at a time, so an unknown name is named.
  for (const char* name : st.names) {
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = c.host;
    const char* one[] = {name};
    add.ppMetricNames = one;
    add.numMetrics = 1;
    if (CUptiResult r = a.host_add_metrics(&add); r != CUPTI_SUCCESS) {
      *why =
          "chip " + chip_name + " has no metric '" + name + "' (" + cupti_error(s.cupti, r) + ")";
      return false;
    }
  }
  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = c.host;
  if (CUptiResult r = a.host_config_size(&size); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiProfilerHostGetConfigImageSize", r);
    return false;
  }
  c.config.resize(size.configImageSize);
  auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = c.host;
  image.configImageSize = c.config.size();
  image.pConfigImage = c.config.data();
  if (CUptiResult r = a.host_config_image(&image); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiProfilerHostGetConfigImage", r);
    return false;
  }
  auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = c.config.size();
  passes.pConfigImage = c.config.data();
  if (CUptiResult r = a.host_passes(&passes); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiProfilerHostGetNumOfPasses", r);
    return false;
  }
  st.passes.store(static_cast<uint32_t>(passes.numOfPasses));
  auto data = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  data.pRangeProfilerObject = c.object;
  data.pMetricNames = st.names.data();
  data.numMetrics = st.names.size();
  data.maxNumOfRanges = 1;  // one launch per window
  data.maxNumRangeTreeNodes = 1;
  if (CUptiResult r = a.counter_data_size(&data); r != CUPTI_SUCCESS) {
    *why = explain(s.cupti, "cuptiRangeProfilerGetCounterDataSize", r);
    return false;
  }
  c.counter_data.resize(data.counterDataSize);
  return true;
}

// set_up, and the profiler disabled again on the context where it failed
// after enabling it (it would otherwise stay on there).
Context* set_up_or_disable(GpuState& s, State& st, CUcontext ctx, std::string* why) {
  auto c = std::make_unique<Context>();
  c->ctx = ctx;
  if (!set_up(s, st, *c, why)) {
    if (c->object != nullptr) {
      auto off = params<CUpti_RangeProfiler_Disable_Params>(
          CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      off.pRangeProfilerObject = c->object;
      st.api.disable(&off);
    }
    return nullptr;
  }
  return c.release();
}

Context* context_for(GpuState& s, State& st, CUcontext ctx) {
  std::string why;
  Context* made = nullptr;
  {
    AgentLock lock(st.mutex);  // a dump from a signal on this thread takes it too
    if (st.refused.load()) return nullptr;
    for (Context* c : st.contexts)
      if (c->ctx == ctx) return c;
    try {
      made = set_up_or_disable(s, st, ctx, &why);
      if (made != nullptr) st.contexts.push_back(made);
    } catch (const std::bad_alloc&) {
      why = "out of memory for the profiler's images";
    }
  }
  if (made == nullptr) refuse(st, why);
  return made;
}

// A fresh counter data image and the config, then the window opens; on a
// failure, `*call` names the call that failed.
CUptiResult open_window(const Api& a, Context& c, const char** call) {
  *call = "cuptiRangeProfilerCounterDataImageInitialize";
  auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = c.object;
  init.counterDataSize = c.counter_data.size();
  init.pCounterData = c.counter_data.data();
  if (CUptiResult r = a.counter_data_initialize(&init); r != CUPTI_SUCCESS) return r;
  auto config = params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = c.object;
  config.configSize = c.config.size();
  config.pConfig = c.config.data();
  config.counterDataImageSize = c.counter_data.size();
  config.pCounterDataImage = c.counter_data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = 1;
  config.numNestingLevels = 1;  // as auto range requires
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  *call = "cuptiRangeProfilerSetConfig";
  if (CUptiResult r = a.set_config(&config); r != CUPTI_SUCCESS) return r;
  *call = "cuptiRangeProfilerStart";
  auto start =
      params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = c.object;
  return a.start(&start);
}

// The launch's window closes; its range's values, if it has one.
void close_window(State& st, Context& c, uint32_t correlation, const std::string& kernel) {
  const Api& a = st.api;
  Counts& n = st.counts;
  auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = c.object;
  if (a.stop(&stop) != CUPTI_SUCCESS) {
    n.failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = c.object;
  if (a.decode(&decode) != CUPTI_SUCCESS) {
    n.failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  n.dropped.fetch_add(decode.numOfRangeDropped, std::memory_order_relaxed);
  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = c.counter_data.data();
  info.counterDataImageSize = c.counter_data.size();
  if (a.counter_data_info(&info) != CUPTI_SUCCESS) {
    n.failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (info.numTotalRanges == 0) {
    n.no_range.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto range = params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
      CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
  range.pCounterDataImage = c.counter_data.data();
  range.counterDataImageSize = c.counter_data.size();
  range.rangeIndex = 0;
  range.rangeDelimiter = "/";
  // The window held this launch alone, so the range is its; a name that is
  // not the kernel's is counted (a check of that premise), not dropped.
  if (a.range_info(&range) != CUPTI_SUCCESS || range.rangeName == nullptr ||
      kernel != range.rangeName)
    n.renamed.fetch_add(1, std::memory_order_relaxed);
  ProfiledLaunch launch;
  launch.correlation = correlation;
  launch.values.assign(st.names.size(), 0.0);
  auto values = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  values.pHostObject = c.host;
  values.pCounterDataImage = c.counter_data.data();
  values.counterDataImageSize = c.counter_data.size();
  values.rangeIndex = 0;
  values.ppMetricNames = st.names.data();
  values.numMetrics = st.names.size();
  values.pMetricValues = launch.values.data();
  if (a.host_evaluate(&values) != CUPTI_SUCCESS) {
    n.failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint64_t bytes = sizeof(ProfiledLaunch) + launch.values.size() * sizeof(double);
  AgentLock lock(st.mutex);
  if (!budget::charge(bytes)) {
    n.budget.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  st.launches.push_back(std::move(launch));
}

// Per thread: each open scope level's occurrence (bumped as a scope at that
// level closes), and the sampling decision taken for it (decided_at: the
// occurrence + 1; 0: none yet).
constexpr uint32_t kLevels = thread_buffers::ThreadBuffer::kMaxDepth + 1;
struct Occurrences {
  uint64_t current[kLevels];
  uint64_t decided_at[kLevels];
  bool sampled[kLevels];
};
// On the heap, charged to the budget and freed at thread exit: 2 KiB more
// of TLS would not fit the static TLS a dlopen'ed agent gets
// (CUDA_INJECTION64_PATH), and most threads launch nothing.
constinit thread_local Occurrences* t_occurrences = nullptr;
pthread_key_t g_occurrences_key;

void free_occurrences(void* o) {
  delete static_cast<Occurrences*>(o);
  budget::release(sizeof(Occurrences));
  t_occurrences = nullptr;
}

// This thread's, made on its first launch; null past the budget (each
// launch is then an occurrence of its own).
Occurrences* occurrences() {
  if (t_occurrences != nullptr) return t_occurrences;
  static const bool keyed = pthread_key_create(&g_occurrences_key, free_occurrences) == 0;
  if (!keyed || !budget::charge(sizeof(Occurrences))) return nullptr;
  t_occurrences = new (std::nothrow) Occurrences();
  if (t_occurrences == nullptr) {
    budget::release(sizeof(Occurrences));
    return nullptr;
  }
  pthread_setspecific(g_occurrences_key, t_occurrences);
  return t_occurrences;
}

// The launch in flight on this thread, between its enter and its exit.
struct Pending {
  Context* context = nullptr;
  uint32_t correlation = 0;
};
constinit thread_local Pending t_pending = {};

// FNV-1a of the open scopes' sites: the path's key.
uint64_t path_key(const uint32_t* sites, uint32_t levels) {
  uint64_t h = 1469598103934665603ull ^ levels;
  for (uint32_t i = 0; sites != nullptr && i < levels; ++i) {
    h ^= sites[i];
    h *= 1099511628211ull;
  }
  return h;
}

// Paths remembered at most; past it, new paths share one count.
constexpr size_t kMaxPaths = 1 << 16;

// Whether this launch's occurrence is one to profile: its first launch
// decides, counting the occurrence for its path.
bool in_sampled_occurrence(State& st) {
  const uint32_t* sites = nullptr;
  const uint32_t depth = Recorder::open_scopes(&sites);
  const uint32_t level = std::min(depth, kLevels - 1);
  Occurrences* o = level > 0 ? occurrences() : nullptr;
  if (o != nullptr && o->decided_at[level] == o->current[level] + 1) return o->sampled[level];
  uint64_t key = path_key(sites, level);
  bool sampled;
  {
    AgentLock lock(st.mutex);
    if (st.occurrences.size() >= kMaxPaths && st.occurrences.count(key) == 0) key = 0;
    uint64_t& seen = st.occurrences[key];
    sampled = seen % st.every == 0;  // the 1st, N+1th, ...
    ++seen;
  }
  (sampled ? st.counts.sampled : st.counts.skipped).fetch_add(1, std::memory_order_relaxed);
  if (o != nullptr) {  // outside every scope, each launch is an occurrence
    o->decided_at[level] = o->current[level] + 1;
    o->sampled[level] = sampled;
  }
  return sampled;
}

void add_warning(Trace& header, uint64_t n, const std::string& why) {
  if (n > 0) header.diagnostics.warnings.push_back(std::to_string(n) + " " + why);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

bool start(GpuState& s) {
  auto st = std::make_unique<State>();
  st->plan = plan_gpu_metrics(s.config.gpu_metrics);
  for (const std::string& m : st->plan.metrics) st->names.push_back(m.c_str());
  st->every = std::max<uint64_t>(1, s.config.gpu_metrics_every);
  State* state = st.release();  // kept even when refused: contribute() says why
  g_state = state;
  if (const std::string missing = resolve_api(s.cupti.library, &state->api); !missing.empty()) {
    refuse(*state,
           "this CUPTI has no range profiler (" + missing + "; CUDA 12.6 or later has it)");
    return false;
  }
  auto init =
      params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (CUptiResult r = state->api.initialize(&init); r != CUPTI_SUCCESS) {
    refuse(*state, explain(s.cupti, "cuptiProfilerInitialize", r));
    return false;
  }
  return true;
}

void scope_ending() {
  const uint32_t* sites = nullptr;
  const uint32_t depth = Recorder::open_scopes(&sites);
  // A thread that has not launched yet has nothing to end.
  if (Occurrences* o = t_occurrences; o != nullptr && depth > 0 && depth < kLevels)
    ++o->current[depth];
}

void before_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  State* st = g_state;
  if (st == nullptr || st->refused.load(std::memory_order_relaxed) || !single_kernel(cbid)) return;
  // A captured launch does not run now, and kernel replay cannot capture.
  if (s.open_captures.load(std::memory_order_relaxed) > 0) {
    st->counts.captured.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (!in_sampled_occurrence(*st)) return;
  Context* c = context_for(s, *st, cb->context);
  if (c == nullptr) return;
  c->busy.lock();
  const char* call = nullptr;
  if (CUptiResult r = open_window(st->api, *c, &call); r != CUPTI_SUCCESS) {
    c->busy.unlock();
    // Some drivers say no to the counters only here: before any window
    // opened, or for a reason that will not pass, it is a refusal.
    if (!st->opened.load(std::memory_order_relaxed) || lasting(r))
      refuse(*st, explain(s.cupti, call, r));
    else
      st->counts.failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  st->opened.store(true, std::memory_order_relaxed);
  t_pending = {c, cb->correlationId};
}

void after_launch(GpuState&, CUpti_CallbackId, const CUpti_CallbackData* cb) {
  State* st = g_state;
  Pending p = t_pending;
  if (st == nullptr || p.context == nullptr || p.correlation != cb->correlationId) return;
  t_pending = {};
  try {
    close_window(*st, *p.context, p.correlation, cb->symbolName != nullptr ? cb->symbolName : "");
  } catch (const std::bad_alloc&) {
    st->counts.budget.fetch_add(1, std::memory_order_relaxed);
  }
  p.context->busy.unlock();
}

void contribute(const GpuState&, const StagedRecords& staged, Trace& header) {
  State* st = g_state;
  if (st == nullptr) return;
  std::vector<ProfiledLaunch> launches;
  std::string refusal;
  {
    AgentLock lock(st->mutex);
    launches = st->launches;
    refusal = st->refusal;
  }
  if (!refusal.empty()) {
    header.diagnostics.gpu_metrics = refusal;
    return;
  }
  const Counts& n = st->counts;
  GpuMetrics& g = header.gpu_metrics;
  g.metrics = st->plan.metrics;
  g.weights = st->plan.weights;
  g.passes = st->passes.load();
  g.every = st->every;
  g.occurrences_sampled = n.sampled.load();
  g.occurrences_skipped = n.skipped.load();
  const uint64_t unplaced = place_gpu_metrics(launches, staged, g);
  header.diagnostics.gpu_metrics =
      "kernel replay, " + (g.passes != 0 ? std::to_string(g.passes) : std::string("no")) +
      " passes per kernel: " + joined(st->plan.metrics) + "; " +
      std::to_string(g.occurrences_sampled) + " of " +
      std::to_string(g.occurrences_sampled + g.occurrences_skipped) +
      " scope occurrences profiled (1 in " + std::to_string(g.every) + ")";
  add_warning(header, n.captured.load(),
              "kernel launches not profiled (GPU metrics): launched while a stream was being "
              "captured");
  add_warning(header, n.failed.load(),
              "kernel launches not profiled (GPU metrics): a range profiler call failed");
  add_warning(header, n.no_range.load(),
              "kernel launches not profiled (GPU metrics): no range was recorded (the launch "
              "failed)");
  add_warning(header, n.dropped.load(), "ranges dropped by CUPTI's range profiler");
  add_warning(header, n.renamed.load(),
              "profiled ranges whose name was not their kernel's (GPU metrics; values kept: "
              "the window held that launch alone)");
  add_warning(header, n.budget.load() + unplaced,
              "profiled kernels' metrics left out: past BRICKPROF_BUFFER_MB, or their kernel's "
              "record was not kept");
}

void reset_after_fork() {
  // CUDA does not survive fork; the child profiles nothing, and the
  // parent's lock may be held.
  if (State* st = g_state) {
    new (&st->mutex) std::mutex();
    st->refused.store(true);
    st->refusal = "refused: a fork child (CUDA does not survive fork)";
    st->launches.clear();
  }
  t_pending = {};
}

}  // namespace brickprof::agent::range_profiler
