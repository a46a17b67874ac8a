// Subscribing through the first usable libcupti candidate (see subscribe.h).
#include "agent/cupti/subscribe.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "agent/cupti/callbacks.h"
#include "agent/cupti/libraries.h"

namespace brickprof::agent {
namespace {

CUptiResult subscribe(GpuState& s, std::string* other) {
  const Cupti& c = s.cupti;
  if (c.subscribe_v2 != nullptr) {
    char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {0};
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "brickprof";
    params.oldSubscriberName = old_name;
    params.oldSubscriberSize = CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN;
    CUptiResult r = c.subscribe_v2(&s.subscriber, on_cupti_callback, &s, &params);
    *other = old_name;
    return r;
  }
  return c.subscribe(&s.subscriber, on_cupti_callback, &s);
}

}  // namespace

bool subscribe_first_usable_cupti(GpuState& s, std::string* path, std::string* why) {
  std::vector<void*> tried;  // the same file under two names is one handle
  std::string failures;      // "path: error; path: error"
  for (const std::string& candidate : cupti_candidates(std::getenv("CUDA_HOME"))) {
    std::string file;
    void* lib = open_cupti(candidate, &file);
    if (lib == nullptr || std::find(tried.begin(), tried.end(), lib) != tried.end()) continue;
    tried.push_back(lib);
    s.cupti = Cupti{};
    std::string failure;
    if (resolve_cupti(lib, &s.cupti, &failure)) {
      std::string other;
      CUptiResult r = subscribe(s, &other);
      if (r == CUPTI_SUCCESS) {
        *path = file;
        return true;
      }
      s.subscriber = nullptr;
      if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        *why = "another CUPTI subscriber is active" + (other.empty() ? "" : " (" + other + ")");
        return false;
      }
      failure = "cuptiSubscribe: " + cupti_error(s.cupti, r);
    }
    failures += (failures.empty() ? "" : "; ") + file + ": " + failure;
  }
  *why = failures.empty() ? "no libcupti" : "no usable libcupti (" + failures + ")";
  return false;
}

}  // namespace brickprof::agent
