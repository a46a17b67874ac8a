// The least a CUPTI tracing tool does, preloaded like the agent: callbacks
// that do nothing, records collected into a fixed ring of buffers and never
// read. Runs under it, against runs under the agent, split the agent's cost
// into CUPTI's and brickprof's own. NULL_CUPTI_MODE picks what it enables:
//   activity  CONCURRENT_KERNEL records only, no callbacks
//   launch    + the driver's cuLaunchKernel callback (the default, as
//             bench/launch_overhead expects)
//   api       what the agent enables: the callbacks of every driver and
//             runtime API it classifies (agent/cupti/api_class.h) and
//             CONCURRENT_KERNEL, MEMCPY, MEMSET, MEMCPY2, SYNCHRONIZATION,
//             MEMORY2, MEMORY_POOL
//   graph-trace  CONCURRENT_KERNEL and GRAPH_TRACE (a record per graph
//             launch, nsys's default), no callbacks; counts the records of
//             each kind and prints them on stderr at exit, to show whether
//             graph nodes still get kernel records
// A CUPTI call that fails ends the process: runs under a client that did not
// start would pass for runs under one.
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "agent/cupti/api_class.h"
#include "agent/cupti/libraries.h"

namespace {

namespace agent = brickprof::agent;

constexpr size_t kBufferBytes = 4u << 20;  // as the agent's
constexpr int kBuffers = 16;

uint8_t* g_buffers[kBuffers];
std::atomic<unsigned> g_next{0};  // CUPTI may ask from several threads

// libcupti, found and resolved as the agent does (agent/cupti/libraries.h):
// the soname first, so LD_LIBRARY_PATH picks it (launch_overhead puts the
// fake CUPTI there), else the toolkit's. Not linked: the build's only
// libcupti is the fake, and the rpath to its folder would win over the
// toolkit's in a build tree carried to a GPU.
agent::Cupti g_cupti;

[[noreturn]] void die(const std::string& what, const std::string& why) {
  std::fprintf(stderr, "null_cupti_client: %s: %s\n", what.c_str(), why.c_str());
  std::_Exit(2);
}

void load_cupti() {
  std::string why = "no libcupti";
  for (const std::string& candidate : agent::cupti_candidates(std::getenv("CUDA_HOME"))) {
    std::string file;
    if (void* lib = agent::open_cupti(candidate, &file)) {
      if (!agent::resolve_cupti(lib, &g_cupti, &why)) die(file, why);
      return;
    }
  }
  die("libcupti.so", why);
}

void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) die(what, agent::cupti_error(g_cupti, r));
}

enum class Mode { kActivity, kLaunch, kApi, kGraphTrace };

Mode mode_from_env() {
  const char* m = std::getenv("NULL_CUPTI_MODE");
  if (m == nullptr || std::strcmp(m, "launch") == 0) return Mode::kLaunch;
  if (std::strcmp(m, "activity") == 0) return Mode::kActivity;
  if (std::strcmp(m, "api") == 0) return Mode::kApi;
  if (std::strcmp(m, "graph-trace") == 0) return Mode::kGraphTrace;
  die("NULL_CUPTI_MODE", "want activity, launch, api or graph-trace");
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// Records by kind, counted in graph-trace mode only.
std::atomic<bool> g_count{false};
std::atomic<uint64_t> g_kernels{0}, g_graphs{0};

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // Reused, their contents never read; in graph-trace mode, where they are
  // read, a buffer of its own each time, freed once counted.
  *buffer = g_count.load() ? static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes))
                           : g_buffers[g_next++ % kBuffers];
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  if (!g_count.load()) return;
  CUpti_Activity* record = nullptr;
  while (g_cupti.activity_get_next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernels;
    if (record->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) ++g_graphs;
  }
  std::free(buffer);
}

void print_counts() {
  g_cupti.activity_flush_all(1);
  std::fprintf(stderr, "null_cupti_client: %llu kernel records, %llu graph records\n",
               static_cast<unsigned long long>(g_kernels.load()),
               static_cast<unsigned long long>(g_graphs.load()));
}

// The agent's callback set (enable_callbacks in agent/cupti/callbacks.cpp),
// less its resource callbacks (module loads and graph nodes, not launches).
// Its timestamp callback is left out too: that is brickprof's own code.
void enable_api_callbacks(CUpti_SubscriberHandle subscriber) {
  if (g_cupti.get_callback_name == nullptr) die("cuptiGetCallbackName", "not in libcupti");
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API}) {
    for (uint32_t cbid = 1; cbid < agent::kMaxCbid; ++cbid) {
      const char* name = nullptr;
      if (g_cupti.get_callback_name(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr)
        continue;
      bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
      if (agent::classify_api(name, runtime).cls == agent::ApiClass::kIgnore) continue;
      CUptiResult r = g_cupti.enable_callback(1, subscriber, domain, cbid);
      if (r != CUPTI_ERROR_INVALID_PARAMETER) check(r, name);  // the agent skips those too
    }
  }
}

__attribute__((constructor)) void start() {
  const Mode mode = mode_from_env();
  g_count = mode == Mode::kGraphTrace;  // before CUPTI asks for a buffer
  load_cupti();
  for (uint8_t*& b : g_buffers) b = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  if (mode == Mode::kLaunch || mode == Mode::kApi) {
    CUpti_SubscriberHandle subscriber;
    check(g_cupti.subscribe(&subscriber, on_callback, nullptr), "cuptiSubscribe");
    if (mode == Mode::kLaunch) {
      check(g_cupti.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
            "cuLaunchKernel callback");
    } else {
      enable_api_callbacks(subscriber);
    }
  }
  check(g_cupti.activity_register_callbacks(requested, completed), "cuptiActivityRegisterCallbacks");
  check(g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
        "CONCURRENT_KERNEL records");
  if (mode == Mode::kApi) {
    check(g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_MEMCPY), "MEMCPY records");
    check(g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_MEMSET), "MEMSET records");
    // Optional for the agent too: it goes on without them.
    g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_MEMCPY2);
    g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_MEMORY2);
    g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_MEMORY_POOL);
  }
  if (mode == Mode::kGraphTrace) {
    check(g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE), "GRAPH_TRACE records");
    std::atexit(print_counts);
  }
}

}  // namespace
