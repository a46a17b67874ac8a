// The fake CUPTI's range profiler: the profiler (cupti_profiler_target.h),
// host (cupti_profiler_host.h) and range profiler (cupti_range_profiler.h)
// entry points the agent calls, from the real CUDA 13 headers. What it
// copies from the real one (the headers' comments and CUPTI's
// range_profiling sample):
// - every call checks structSize against the header's _STRUCT_SIZE and
//   pPriv is null (CUPTI_ERROR_INVALID_PARAMETER otherwise);
// - cuptiProfilerInitialize comes first (CUPTI_ERROR_NOT_INITIALIZED);
// - config and counter data images are the caller's memory, opaque, sized by
//   the size calls and refused when smaller or not made by the library;
// - a range is a kernel launch (auto range) made on the object's context
//   between start and stop, named after the kernel, in launch order; with
//   kernel replay every pass is submitted within the launch, so stop says
//   all passes are submitted;
// - ranges reach the counter data image only when decoded, and decoding is
//   refused while the profiler is started; ranges past the image's maximum
//   are dropped and counted;
// - the pass count grows with the number of metrics; a metric the chip does
//   not know is CUPTI_ERROR_INVALID_METRIC_NAME;
// - FAKE_CUPTI_PROFILER refuses as a real one does where the driver
//   restricts counters, another client holds them, or the device is not
//   supported (fake_range_profiler.h).
// What it does not: replay (the fake driver runs a kernel once), user
// ranges or other replay modes (refused, CUPTI_ERROR_NOT_SUPPORTED), and its
// values are its own model of a launch (fake_range_profiler.h).
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cupti_state.h"
#include "fake_range_profiler.h"
#include "fork_child.h"

namespace {

using fake_range_profiler::Launch;

constexpr uint32_t kConfigMagic = 0x46434647;       // our config images
constexpr uint32_t kCounterDataMagic = 0x46434444;  // our counter data images
constexpr uint32_t kAvailabilityMagic = 0x46434156;
constexpr size_t kAvailabilitySize = 64;
constexpr size_t kNameBytes = 128;  // a range's name in the image

struct Range {
  std::string name;
  Launch launch;
};

struct Host {
  std::vector<std::string> metrics;
};

// The image layouts: header, then metric names (config), or header then
// ranges of a name and one value per metric (counter data).
struct ConfigHeader {
  uint32_t magic;
  uint32_t metrics;  // then `metrics` names of kNameBytes
};
struct CounterDataHeader {
  uint32_t magic;
  uint32_t metrics;  // names follow, kNameBytes each
  uint32_t max_ranges;
  uint32_t ranges;  // decoded so far
};

size_t counter_data_size(size_t metrics, size_t ranges) {
  return sizeof(CounterDataHeader) + metrics * kNameBytes +
         ranges * (kNameBytes + metrics * sizeof(double));
}

}  // namespace

struct CUpti_Profiler_Host_Object {
  Host host;
};

struct CUpti_RangeProfiler_Object {
  CUcontext ctx = nullptr;
  bool enabled = true;
  bool configured = false;
  bool started = false;
  const uint8_t* config = nullptr;
  uint8_t* counter_data = nullptr;
  size_t counter_data_size = 0;
  std::vector<Range> pending;  // recorded since set config, not yet decoded
  // The layout of the object's next counter data image (its size call).
  std::vector<std::string> layout_metrics;
  size_t layout_max_ranges = 0;
};

namespace {

struct Profiler {
  std::mutex mu;
  bool initialized = false;
  std::vector<CUpti_RangeProfiler_Object*> objects;  // enabled ones; never freed
};

Profiler& profiler() {
  static Profiler* p = [] {
    auto* made = new Profiler();  // clients call during exit
    fake_cuda::renew_in_fork_child(&made->mu);
    return made;
  }();
  return *p;
}

template <typename P>
bool well_formed(const P* p, size_t size) {
  return p != nullptr && p->structSize >= size && p->pPriv == nullptr;
}

std::string refusal() {
  const char* v = std::getenv(fake_range_profiler::kEnvRefuse);
  return v != nullptr ? v : "";
}

bool known_metric(const char* name) {
  double unused;
  return name != nullptr &&
         fake_range_profiler::value_of(name, Launch{{1, 1, 1}, {1, 1, 1}}, &unused);
}

bool our_config(const uint8_t* image, size_t size) {
  if (image == nullptr || size < sizeof(ConfigHeader)) return false;
  ConfigHeader h;
  std::memcpy(&h, image, sizeof h);
  return h.magic == kConfigMagic && size >= sizeof h + h.metrics * kNameBytes;
}

CounterDataHeader header_of(const uint8_t* image) {
  CounterDataHeader h;
  std::memcpy(&h, image, sizeof h);
  return h;
}

bool our_counter_data(const uint8_t* image, size_t size) {
  if (image == nullptr || size < sizeof(CounterDataHeader)) return false;
  CounterDataHeader h = header_of(image);
  return h.magic == kCounterDataMagic && size >= counter_data_size(h.metrics, h.max_ranges);
}

std::string metric_in(const uint8_t* image, size_t header, uint32_t i) {
  const char* at = reinterpret_cast<const char*>(image + header + i * kNameBytes);
  return std::string(at, strnlen(at, kNameBytes));
}

uint8_t* range_at(uint8_t* image, const CounterDataHeader& h, size_t i) {
  return image + sizeof h + h.metrics * kNameBytes + i * (kNameBytes + h.metrics * sizeof(double));
}

bool ours(CUpti_RangeProfiler_Object* o) {
  Profiler& p = profiler();
  return o != nullptr && std::find(p.objects.begin(), p.objects.end(), o) != p.objects.end() &&
         o->enabled;
}

}  // namespace

namespace fake_cupti {

// Every driver call the fake driver reports: a kernel launch that returns
// success on a context whose profiler is started is one auto range.
void range_profiler_saw(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cbid != CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
    return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite != CUPTI_API_EXIT) return;
  const auto* result = static_cast<const CUresult*>(cb->functionReturnValue);
  if (result == nullptr || *result != CUDA_SUCCESS) return;
  const auto* l = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
  Profiler& p = profiler();
  std::lock_guard<std::mutex> lock(p.mu);
  for (CUpti_RangeProfiler_Object* o : p.objects)
    if (o->enabled && o->started && o->ctx == cb->context)
      o->pending.push_back({cb->symbolName != nullptr ? cb->symbolName : "",
                            Launch{{l->gridDimX, l->gridDimY, l->gridDimZ},
                                   {l->blockDimX, l->blockDimY, l->blockDimZ}}});
}

}  // namespace fake_cupti

// --- cupti_profiler_target.h, cupti_target.h ---

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Initialize_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  Profiler& pr = profiler();
  std::lock_guard<std::mutex> lock(pr.mu);
  pr.initialized = true;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params* p) {
  if (!well_formed(p, CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  Profiler& pr = profiler();
  std::lock_guard<std::mutex> lock(pr.mu);
  pr.initialized = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params* p) {
  if (!well_formed(p, CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  const bool unsupported = refusal() == "unsupported";
  const auto level = [](bool ok) {
    return ok ? CUPTI_PROFILER_CONFIGURATION_SUPPORTED : CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
  };
  p->architecture = level(!unsupported);
  p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl = level(true);
  p->isSupported = level(!unsupported);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
  if (!well_formed(p, CUpti_Device_GetChipName_Params_STRUCT_SIZE) || p->deviceIndex != 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->pChipName = fake_range_profiler::kChip;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p) {
  if (!well_formed(p, CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!profiler().initialized) return CUPTI_ERROR_NOT_INITIALIZED;
  if (p->pCounterAvailabilityImage == nullptr) {
    p->counterAvailabilityImageSize = kAvailabilitySize;
    return CUPTI_SUCCESS;
  }
  if (p->counterAvailabilityImageSize < kAvailabilitySize) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pCounterAvailabilityImage, 0, kAvailabilitySize);
  std::memcpy(p->pCounterAvailabilityImage, &kAvailabilityMagic, sizeof kAvailabilityMagic);
  p->counterAvailabilityImageSize = kAvailabilitySize;
  return CUPTI_SUCCESS;
}

// --- cupti_profiler_host.h ---

CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE) ||
      p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || p->pChipName == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (std::strcmp(p->pChipName, fake_range_profiler::kChip) != 0) return CUPTI_ERROR_NOT_SUPPORTED;
  if (p->pCounterAvailabilityImage != nullptr) {
    uint32_t magic;
    std::memcpy(&magic, p->pCounterAvailabilityImage, sizeof magic);
    if (magic != kAvailabilityMagic) return CUPTI_ERROR_INVALID_PARAMETER;
  }
  p->pHostObject = new CUpti_Profiler_Host_Object();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE) ||
      p->pHostObject == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  delete p->pHostObject;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE) ||
      p->pHostObject == nullptr || p->ppMetricNames == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < p->numMetrics; ++i)
    if (!known_metric(p->ppMetricNames[i])) return CUPTI_ERROR_INVALID_METRIC_NAME;
  std::vector<std::string>& metrics = p->pHostObject->host.metrics;
  for (size_t i = 0; i < p->numMetrics; ++i)
    if (std::find(metrics.begin(), metrics.end(), p->ppMetricNames[i]) == metrics.end())
      metrics.emplace_back(p->ppMetricNames[i]);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE) ||
      p->pHostObject == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->configImageSize = sizeof(ConfigHeader) + p->pHostObject->host.metrics.size() * kNameBytes;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE) ||
      p->pHostObject == nullptr || p->pConfigImage == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const std::vector<std::string>& metrics = p->pHostObject->host.metrics;
  if (metrics.empty()) return CUPTI_ERROR_INVALID_OPERATION;
  ConfigHeader h{kConfigMagic, static_cast<uint32_t>(metrics.size())};
  if (p->configImageSize < sizeof h + h.metrics * kNameBytes) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memcpy(p->pConfigImage, &h, sizeof h);
  for (uint32_t i = 0; i < h.metrics; ++i) {
    char* at = reinterpret_cast<char*>(p->pConfigImage + sizeof h + i * kNameBytes);
    std::memset(at, 0, kNameBytes);
    std::memcpy(at, metrics[i].data(), std::min(metrics[i].size(), kNameBytes - 1));
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE) ||
      !our_config(p->pConfigImage, p->configImageSize))
    return CUPTI_ERROR_INVALID_PARAMETER;
  ConfigHeader h;
  std::memcpy(&h, p->pConfigImage, sizeof h);
  p->numOfPasses =
      (h.metrics + fake_range_profiler::kMetricsPerPass - 1) / fake_range_profiler::kMetricsPerPass;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  if (!well_formed(p, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE) ||
      p->pHostObject == nullptr || p->ppMetricNames == nullptr || p->pMetricValues == nullptr ||
      !our_counter_data(p->pCounterDataImage, p->counterDataImageSize))
    return CUPTI_ERROR_INVALID_PARAMETER;
  uint8_t* image = const_cast<uint8_t*>(p->pCounterDataImage);
  const CounterDataHeader h = header_of(image);
  if (p->rangeIndex >= h.ranges) return CUPTI_ERROR_INVALID_PARAMETER;
  const uint8_t* range = range_at(image, h, p->rangeIndex);
  for (size_t i = 0; i < p->numMetrics; ++i) {
    uint32_t k = 0;
    while (k < h.metrics && metric_in(image, sizeof h, k) != p->ppMetricNames[i]) ++k;
    if (k == h.metrics) return CUPTI_ERROR_INVALID_METRIC_NAME;  // not collected
    std::memcpy(&p->pMetricValues[i], range + kNameBytes + k * sizeof(double), sizeof(double));
  }
  return CUPTI_SUCCESS;
}

// --- cupti_range_profiler.h ---

CUptiResult CUPTIAPI cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE) || p->ctx == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  Profiler& pr = profiler();
  std::lock_guard<std::mutex> lock(pr.mu);
  if (!pr.initialized) return CUPTI_ERROR_NOT_INITIALIZED;
  const std::string refuse = refusal();
  if (refuse == "privileges") return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  if (refuse == "busy") return CUPTI_ERROR_HARDWARE_BUSY;
  for (CUpti_RangeProfiler_Object* o : pr.objects)
    if (o->enabled && o->ctx == p->ctx) return CUPTI_ERROR_INVALID_OPERATION;  // enabled already
  auto* o = new CUpti_RangeProfiler_Object();
  o->ctx = p->ctx;
  pr.objects.push_back(o);
  p->pRangeProfilerObject = o;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  Profiler& pr = profiler();
  std::lock_guard<std::mutex> lock(pr.mu);
  if (!ours(p->pRangeProfilerObject)) return CUPTI_ERROR_INVALID_PARAMETER;
  p->pRangeProfilerObject->enabled = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE) ||
      p->pMetricNames == nullptr || p->numMetrics == 0 || p->maxNumOfRanges == 0 ||
      p->maxNumRangeTreeNodes < p->maxNumOfRanges)
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(profiler().mu);
  CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
  if (!ours(o)) return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < p->numMetrics; ++i)
    if (!known_metric(p->pMetricNames[i])) return CUPTI_ERROR_INVALID_METRIC_NAME;
  // The layout the next image of this object is initialised with.
  o->layout_metrics.assign(p->pMetricNames, p->pMetricNames + p->numMetrics);
  o->layout_max_ranges = p->maxNumOfRanges;
  p->counterDataSize = counter_data_size(p->numMetrics, p->maxNumOfRanges);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerCounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE) ||
      p->pCounterData == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(profiler().mu);
  CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
  if (!ours(o) || o->layout_metrics.empty()) return CUPTI_ERROR_INVALID_PARAMETER;
  const size_t size = counter_data_size(o->layout_metrics.size(), o->layout_max_ranges);
  if (p->counterDataSize < size) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pCounterData, 0, size);
  CounterDataHeader h{kCounterDataMagic, static_cast<uint32_t>(o->layout_metrics.size()),
                      static_cast<uint32_t>(o->layout_max_ranges), 0};
  std::memcpy(p->pCounterData, &h, sizeof h);
  for (uint32_t i = 0; i < h.metrics; ++i)
    std::memcpy(p->pCounterData + sizeof h + i * kNameBytes, o->layout_metrics[i].data(),
                std::min(o->layout_metrics[i].size(), kNameBytes - 1));
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE) ||
      !our_config(p->pConfig, p->configSize) ||
      !our_counter_data(p->pCounterDataImage, p->counterDataImageSize) ||
      p->maxRangesPerPass == 0 || p->minNestingLevel < 1 || p->numNestingLevels < 1)
    return CUPTI_ERROR_INVALID_PARAMETER;
  // Auto ranges profile one nesting level (the header says so).
  if (p->range == CUPTI_AutoRange && p->numNestingLevels != 1) return CUPTI_ERROR_INVALID_PARAMETER;
  if (p->range != CUPTI_AutoRange || p->replayMode != CUPTI_KernelReplay)
    return CUPTI_ERROR_NOT_SUPPORTED;  // not modelled: see the top
  std::lock_guard<std::mutex> lock(profiler().mu);
  CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
  if (!ours(o) || o->started)
    return o != nullptr && o->started ? CUPTI_ERROR_INVALID_OPERATION
                                      : CUPTI_ERROR_INVALID_PARAMETER;
  o->config = p->pConfig;
  o->counter_data = p->pCounterDataImage;
  o->counter_data_size = p->counterDataImageSize;
  o->configured = true;
  o->pending.clear();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(profiler().mu);
  CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
  if (!ours(o)) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!o->configured || o->started) return CUPTI_ERROR_INVALID_OPERATION;
  if (refusal() == "busy-at-start") return CUPTI_ERROR_HARDWARE_BUSY;
  o->started = true;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(profiler().mu);
  CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
  if (!ours(o)) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!o->started) return CUPTI_ERROR_INVALID_OPERATION;
  o->started = false;
  // Kernel replay ran every pass inside each launch.
  p->passIndex = 0;
  p->targetNestingLevel = 1;
  p->isAllPassSubmitted = 1;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE))
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(profiler().mu);
  CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
  if (!ours(o) || !o->configured) return CUPTI_ERROR_INVALID_PARAMETER;
  if (o->started) return CUPTI_ERROR_INVALID_OPERATION;  // decode only after stop
  if (!our_counter_data(o->counter_data, o->counter_data_size))
    return CUPTI_ERROR_INVALID_PARAMETER;
  CounterDataHeader h = header_of(o->counter_data);
  size_t dropped = 0;
  for (const Range& r : o->pending) {
    if (h.ranges == h.max_ranges) {
      ++dropped;
      continue;
    }
    uint8_t* at = range_at(o->counter_data, h, h.ranges);
    std::memset(at, 0, kNameBytes);
    std::memcpy(at, r.name.data(), std::min(r.name.size(), kNameBytes - 1));
    for (uint32_t k = 0; k < h.metrics; ++k) {
      double v = 0;
      fake_range_profiler::value_of(metric_in(o->counter_data, sizeof h, k), r.launch, &v);
      std::memcpy(at + kNameBytes + k * sizeof(double), &v, sizeof v);
    }
    ++h.ranges;
  }
  o->pending.clear();
  std::memcpy(o->counter_data, &h, sizeof h);
  p->numOfRangeDropped = dropped;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE) ||
      !our_counter_data(p->pCounterDataImage, p->counterDataImageSize))
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->numTotalRanges = header_of(p->pCounterDataImage).ranges;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiRangeProfilerCounterDataGetRangeInfo(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params* p) {
  if (!well_formed(p, CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE) ||
      !our_counter_data(p->pCounterDataImage, p->counterDataImageSize))
    return CUPTI_ERROR_INVALID_PARAMETER;
  uint8_t* image = const_cast<uint8_t*>(p->pCounterDataImage);
  const CounterDataHeader h = header_of(image);
  if (p->rangeIndex >= h.ranges) return CUPTI_ERROR_INVALID_PARAMETER;
  // The name stays in the image, as CUPTI's points into it.
  p->rangeName = reinterpret_cast<const char*>(range_at(image, h, p->rangeIndex));
  return CUPTI_SUCCESS;
}
