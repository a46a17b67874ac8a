// The fake CUPTI's callback API: one subscriber (a second, or a tool named
// in FAKE_CUPTI_OTHER_SUBSCRIBER, is refused as real CUPTI refuses it; a
// copy named in FAKE_CUPTI_SUBSCRIBE_ERROR refuses with the error given
// there), per callback enabling, callback names and result strings.
#include <dlfcn.h>
#include <limits.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "cupti_state.h"
#include "fake_cuda.h"
#include "fake_tool.h"

using namespace fake_cupti;

namespace {

// The handle's value means nothing; only that it is ours.
struct Subscriber {
  int unused;
} g_subscriber;

const fake_cuda::Tool kTool = {forward_callback, timestamp, wants, queue_record, discard_context};

struct Name {
  CUpti_CallbackId cbid;
  const char* name;
};
#define NAMED(fn) \
  { CUPTI_DRIVER_TRACE_CBID_##fn, #fn }
// The driver APIs the fake driver implements (real CUPTI names them all).
const Name kDriverNames[] = {
    NAMED(cuInit),
    NAMED(cuDeviceGetCount),
    NAMED(cuDeviceGet),
    NAMED(cuDeviceGetName),
    NAMED(cuDeviceGetAttribute),
    NAMED(cuDevicePrimaryCtxRetain),
    NAMED(cuDevicePrimaryCtxRelease_v2),
    NAMED(cuCtxCreate_v4),
    NAMED(cuCtxDestroy_v2),
    NAMED(cuCtxGetCurrent),
    NAMED(cuCtxSetCurrent),
    NAMED(cuCtxGetDevice),
    NAMED(cuCtxSynchronize),
    NAMED(cuModuleLoadData),
    NAMED(cuModuleUnload),
    NAMED(cuModuleGetFunction),
    NAMED(cuFuncSetAttribute),
    NAMED(cuMemAlloc_v2),
    NAMED(cuMemFree_v2),
    NAMED(cuMemAllocPitch_v2),
    NAMED(cuMemAllocManaged),
    NAMED(cuMemGetInfo_v2),
    NAMED(cuDeviceTotalMem_v2),
    NAMED(cuMemHostAlloc),
    NAMED(cuMemAllocHost_v2),
    NAMED(cuMemFreeHost),
    NAMED(cuMemHostRegister_v2),
    NAMED(cuMemHostUnregister),
    NAMED(cuDeviceGetDefaultMemPool),
    NAMED(cuMemPoolCreate),
    NAMED(cuMemPoolDestroy),
    NAMED(cuMemPoolTrimTo),
    NAMED(cuMemAllocAsync),
    NAMED(cuMemAllocFromPoolAsync),
    NAMED(cuMemFreeAsync),
    NAMED(cuMemGetAllocationGranularity),
    NAMED(cuMemAddressReserve),
    NAMED(cuMemAddressFree),
    NAMED(cuMemCreate),
    NAMED(cuMemRelease),
    NAMED(cuMemMap),
    NAMED(cuMemUnmap),
    NAMED(cuMemSetAccess),
    NAMED(cuLaunchKernel),
    NAMED(cuMemcpyHtoD_v2),
    NAMED(cuMemcpyDtoH_v2),
    NAMED(cuMemcpyHtoDAsync_v2),
    NAMED(cuMemcpyDtoHAsync_v2),
    NAMED(cuMemsetD8_v2),
    NAMED(cuStreamCreate),
    NAMED(cuStreamDestroy_v2),
    NAMED(cuStreamSynchronize),
    NAMED(cuStreamBeginCapture_v2),
    NAMED(cuStreamEndCapture),
    NAMED(cuGraphInstantiateWithFlags),
    NAMED(cuGraphLaunch),
    NAMED(cuGraphExecDestroy),
    NAMED(cuGraphDestroy),
    NAMED(cuEventCreate),
    NAMED(cuEventRecord),
    NAMED(cuEventQuery),
    NAMED(cuEventSynchronize),
    NAMED(cuEventElapsedTime_v2),
    NAMED(cuEventDestroy_v2),
    NAMED(cuProfilerStart),
    NAMED(cuProfilerStop),
};
#undef NAMED

uint32_t domain_size(CUpti_CallbackDomain domain) {
  switch (domain) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
      return CUPTI_DRIVER_TRACE_CBID_SIZE;
    case CUPTI_CB_DOMAIN_RUNTIME_API:
      return CUPTI_RUNTIME_TRACE_CBID_SIZE;
    case CUPTI_CB_DOMAIN_RESOURCE:
      return CUPTI_CBID_RESOURCE_SIZE;
    default:
      return 0;
  }
}

std::string real_path(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? resolved : path;
}

// What FAKE_CUPTI_SUBSCRIBE_ERROR says this copy of the library answers.
CUptiResult refusal_for_this_copy() {
  const char* env = std::getenv(fake_cuda::kEnvSubscribeError);
  Dl_info self;
  if (env == nullptr || !dladdr(reinterpret_cast<void*>(&refusal_for_this_copy), &self) ||
      self.dli_fname == nullptr)
    return CUPTI_SUCCESS;
  const std::string me = real_path(self.dli_fname);
  std::istringstream entries(env);
  for (std::string entry; std::getline(entries, entry, ',');) {
    size_t eq = entry.rfind('=');
    if (eq != std::string::npos && real_path(entry.substr(0, eq)) == me)
      return static_cast<CUptiResult>(std::atoi(entry.c_str() + eq + 1));
  }
  return CUPTI_SUCCESS;
}

CUptiResult subscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                      void* userdata, const char** other) {
  if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  const char* env = std::getenv(fake_cuda::kEnvOtherSubscriber);
  if (env != nullptr && *env != '\0') {
    *other = env;
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  if (CUptiResult refused = refusal_for_this_copy(); refused != CUPTI_SUCCESS) {
    *other = "";  // no tool named
    return refused;
  }
  if (s.subscribed.load()) {
    *other = "CUPTI for a subscriber already there";
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  s.callback = callback;
  s.userdata = userdata;
  s.subscribed.store(true);
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  attach_tool_if_needed(s);
  return CUPTI_SUCCESS;
}

bool ours(CUpti_SubscriberHandle subscriber) {
  return state().subscribed.load() &&
         subscriber == reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
}

}  // namespace

namespace fake_cupti {

void attach_tool_if_needed(State& s) {
  bool needed = s.subscribed.load();
  for (const auto& kind : s.kinds) needed = needed || kind.load();
  fakecuda_attach_tool(needed ? &kTool : nullptr);
}

void forward_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  range_profiler_saw(domain, cbid, data);  // before the client's exit callback stops it
  State& s = state();
  if (!s.subscribed.load() || domain_size(domain) <= cbid || cbid >= kMaxCbid ||
      !s.enabled[domain][cbid].load())
    return;
  s.callback(s.userdata, domain, cbid, data);
}

}  // namespace fake_cupti

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
  const char* other = nullptr;
  return subscribe(subscriber, callback, userdata, &other);
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber,
                                       CUpti_CallbackFunc callback, void* userdata,
                                       CUpti_SubscriberParams* params) {
  const char* other = nullptr;
  CUptiResult r = subscribe(subscriber, callback, userdata, &other);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && params != nullptr &&
      params->oldSubscriberName != nullptr && params->oldSubscriberSize > 0)
    std::snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s", other);
  return r;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  if (!ours(subscriber)) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.subscribed.store(false);
  for (auto& domain : s.enabled)
    for (auto& on : domain) on.store(false);
  attach_tool_if_needed(s);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (!ours(subscriber) || cbid >= domain_size(domain) || cbid >= kMaxCbid)
    return CUPTI_ERROR_INVALID_PARAMETER;
  state().enabled[domain][cbid].store(enable != 0);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain) {
  uint32_t size = domain_size(domain);
  if (!ours(subscriber) || size == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  for (uint32_t cbid = 0; cbid < size && cbid < kMaxCbid; ++cbid)
    state().enabled[domain][cbid].store(enable != 0);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  if (name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = nullptr;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    for (const Name& n : kDriverNames)
      if (n.cbid == cbid) *name = n.name;
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (str == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS:
      *str = "CUPTI_SUCCESS";
      break;
    case CUPTI_ERROR_INVALID_PARAMETER:
      *str = "CUPTI_ERROR_INVALID_PARAMETER";
      break;
    case CUPTI_ERROR_NOT_INITIALIZED:
      *str = "CUPTI_ERROR_NOT_INITIALIZED";
      break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      *str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
      break;
    case CUPTI_ERROR_NOT_COMPATIBLE:
      *str = "CUPTI_ERROR_NOT_COMPATIBLE";
      break;
    case CUPTI_ERROR_INVALID_KIND:
      *str = "CUPTI_ERROR_INVALID_KIND";
      break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED:
      *str = "CUPTI_ERROR_MAX_LIMIT_REACHED";
      break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      break;
    case CUPTI_ERROR_HARDWARE_BUSY:
      *str = "CUPTI_ERROR_HARDWARE_BUSY";
      break;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      *str = "CUPTI_ERROR_INVALID_METRIC_NAME";
      break;
    case CUPTI_ERROR_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_NOT_SUPPORTED";
      break;
    case CUPTI_ERROR_INVALID_OPERATION:
      *str = "CUPTI_ERROR_INVALID_OPERATION";
      break;
    default:
      *str = "CUPTI_ERROR_UNKNOWN";
      break;
  }
  return CUPTI_SUCCESS;
}
