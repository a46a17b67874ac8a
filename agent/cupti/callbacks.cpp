// CUPTI callback switchboard and handlers (see callbacks.h). The launch path
// is: enter -> store a tick count in a thread_local frame; exit -> one
// Recorder::cuda_api append (with the Python stack's id, interned under a
// lock, when the thread holds the GIL). No allocation in steady state.
#include "agent/cupti/callbacks.h"

#include "agent/capture/capture.h"
#include "agent/cupti/activity.h"
#include "agent/cupti/activity_switch.h"
#include "agent/cupti/device_reads.h"
#include "agent/cupti/devices.h"
#include "agent/cupti/kernel_checksums.h"
#include "agent/cupti/range_profiler.h"
#include "agent/cupti/live_allocations.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/python/python_frames.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {

// From agent/lifecycle when it is linked in (not in the tests that link
// the GPU source alone): BRICKPROF_DUMP_ON=oom's write.
__attribute__((weak)) void save_at_out_of_memory(const std::string& why);  // lifecycle/agent.h

namespace {

constexpr uint32_t kMaxDepth = 8;
constexpr size_t kMaxAddresses = 1u << 20;
// What an entry of the side tables below costs (hash node, bucket, the
// allocator's rounding), charged to the memory budget.
constexpr uint64_t kMapEntryBytes = 64;

// Per-thread API nesting: cudaMemcpy calls cuMemcpy inside it, both fire.
struct ThreadFrames {
  uint64_t enter_tsc[kMaxDepth];
  uint32_t correlation[kMaxDepth];  // of each open call, for resource callbacks
  uint32_t depth;
  uint32_t runtime_depth;
  uint32_t runtime_correlation;  // of the outermost runtime call
  // The call that added a graph memory node (a stream-ordered allocation or
  // free on a capturing stream): it allocated nothing, the graph's launches
  // will (CUPTI's records, io/memory_activity.h).
  uint32_t memory_node_correlation;
};
// Zero-initialised POD: no TLS init call. Initial-exec: no __tls_get_addr
// per callback; 120 bytes fit the static TLS glibc keeps for dlopen'ed
// libraries (the CUDA_INJECTION64_PATH route), as the recorder's 8 do.
thread_local ThreadFrames t_frames __attribute__((tls_model("initial-exec")));

CbidSlot* slot_for(GpuState& s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (cbid >= kMaxCbid) return nullptr;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return &s.driver_api[cbid];
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return &s.runtime_api[cbid];
  return nullptr;
}

uint32_t api_site(CbidSlot& slot, CUpti_CallbackDomain domain, const char* function_name) {
  uint32_t site = slot.site.load(std::memory_order_relaxed);
  if (site == 0 && function_name != nullptr) {
    // First call of this API: intern its name once (takes the recorder lock).
    site = Recorder::intern_api_name(
        normalize_api_name(function_name, domain == CUPTI_CB_DOMAIN_RUNTIME_API));
    slot.site.store(site, std::memory_order_relaxed);
  }
  return site;
}

void store_addresses(GpuState& s, uint64_t correlation, const ParamRange& r) {
  AgentLock lock(s.addresses_mu);
  if (s.addresses.size() >= kMaxAddresses || !budget::charge(kMapEntryBytes)) {
    ++s.addresses_dropped;
    return;
  }
  auto [it, added] = s.addresses.emplace(correlation, TransferAddresses{});
  if (!added) budget::release(kMapEntryBytes);  // the runtime call's driver call: replaces it
  it->second = {r.src, r.dst, r.bytes};
}

void register_image(GpuState& s, const void* image, size_t size) {
  if (image == nullptr) return;
  std::string why;
  if (!s.registry.add_image(image, size, &why)) s.module_parse_errors.fetch_add(1);
}

void on_api_enter(GpuState& s, CUpti_CallbackDomain domain, const CbidSlot& slot,
                  const CUpti_CallbackData* cb) {
  ThreadFrames& f = t_frames;
  if (f.depth < kMaxDepth) {
    f.enter_tsc[f.depth] = Clock::ticks();
    f.correlation[f.depth] = cb->correlationId;
  }
  ++f.depth;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && f.runtime_depth++ == 0)
    f.runtime_correlation = cb->correlationId;
  switch (slot.info.cls) {
    case ApiClass::kMemcpy:
    case ApiClass::kMemset: {
      ParamRange r;
      if (read_param_range(slot.info, cb->functionParams, &r))
        store_addresses(s, cb->correlationId, r);
      break;
    }
    case ApiClass::kModuleLoad:
    case ApiClass::kLibraryLoad:
      register_image(s, read_param_image(slot.info, cb->functionParams), 0);
      break;
    case ApiClass::kReset:
      // The reset destroys the context and its pending records: flush first.
      flush_activity(s);
      break;
    default:
      break;
  }
}

// Begin and end are counted alike whether the runtime's call and the
// driver call inside it are both seen or only one, so the count returns to
// zero either way. A failed begin opened nothing; an end always closes.
void track_capture(GpuState& s, ApiClass cls, const CUpti_CallbackData* cb) {
  if (cls == ApiClass::kCaptureBegin) {
    const auto* result = static_cast<const int*>(cb->functionReturnValue);
    if (result != nullptr && *result == 0) s.open_captures.fetch_add(1);
  } else if (cls == ApiClass::kCaptureEnd) {
    int64_t n = s.open_captures.load();
    while (n > 0 && !s.open_captures.compare_exchange_weak(n, n - 1)) {
    }
  }
}

// Calls that put work on the GPU: their Python stack is recorded.
bool launches_work(ApiClass cls) {
  return cls == ApiClass::kLaunch || cls == ApiClass::kGraphLaunch || cls == ApiClass::kMemcpy ||
         cls == ApiClass::kMemset;
}

// The device a call's memory is on: its context's (CUPTI names it).
uint32_t device_of(const GpuState& s, CUcontext ctx) {
  uint32_t id = 0;
  if (ctx == nullptr || s.cupti.get_device_id == nullptr ||
      s.cupti.get_device_id(ctx, &id) != CUPTI_SUCCESS)
    return 0;
  return id;
}

// One memory event per call (memory_calls.h), failed ones with their
// result; an out-of-memory failure may write the trace there and then
// (BRICKPROF_DUMP_ON=oom).
void record_memory(GpuState& s, uint32_t site, uint64_t enter_tsc,
                   MemoryCall call, const CUpti_CallbackData* cb) {
  const auto* returned = static_cast<const int*>(cb->functionReturnValue);
  const int result = returned != nullptr ? *returned : 0;
  if (t_frames.memory_node_correlation == cb->correlationId && cb->correlationId != 0) return;
  MemoryCallFacts facts;
  if (!read_memory_call(call, cb->functionParams, result == 0, &facts)) return;
  // Recorded or not, the live allocations follow every call that succeeded.
  if (result == 0) live_allocations::note(facts);
  if (!Recorder::enabled()) return;
  MemoryRecord r;
  r.op = facts.op;
  r.source = facts.source;
  r.name_site = site;
  r.address = facts.address;
  r.bytes = facts.bytes;
  r.result = result;
  r.stream = facts.stream;
  r.pool = facts.pool;
  r.device = facts.host                ? kHostDeviceId
             : facts.device >= 0       ? static_cast<uint32_t>(facts.device)
                                       : device_of(s, cb->context);
  // A free's memory is gone when the call begins; an allocation's is
  // there when it returns (now: the stack walk is not the call's time).
  const bool ends_something = r.op == MemoryOp::kFree || r.op == MemoryOp::kUnmap;
  r.tsc = ends_something ? enter_tsc : Clock::ticks();
  r.python_stack = python::current_stack();
  Recorder::memory(r);
  // CUDA_ERROR_OUT_OF_MEMORY, and the runtime's cudaErrorMemoryAllocation: both 2.
  constexpr int kOutOfMemory = CUDA_ERROR_OUT_OF_MEMORY;
  static_assert(kOutOfMemory == 2);
  if (result == kOutOfMemory && r.op == MemoryOp::kAlloc &&
      s.config.dump_on == DumpOn::kOutOfMemory && save_at_out_of_memory) {
    save_at_out_of_memory(std::string("written at an out-of-memory failure (BRICKPROF_DUMP_ON=oom): ") +
                          std::string(Recorder::site(site).name) + " of " +
                          std::to_string(r.bytes) + " bytes; recording went on");
  }
}

void on_api_exit(GpuState& s, CUpti_CallbackDomain domain, CbidSlot& slot,
                 const CUpti_CallbackData* cb) {
  ThreadFrames& f = t_frames;
  if (f.depth == 0) return;  // enabled mid-call: no enter seen
  --f.depth;
  uint64_t enter = f.depth < kMaxDepth ? f.enter_tsc[f.depth] : Clock::ticks();
  bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (runtime && f.runtime_depth > 0) --f.runtime_depth;
  track_capture(s, slot.info.cls, cb);
  // A driver call inside a runtime call that shares its correlation id adds
  // nothing: the runtime exit records the outer (user-visible) call.
  if (!runtime && f.runtime_depth > 0 && cb->correlationId == f.runtime_correlation) return;
  uint32_t site = api_site(slot, domain, cb->functionName);
  if (s.config.capture != capture::Mode::kAll && Recorder::enabled()) {
    // Before the record: its GPU work may be delivered at once.
    uint32_t seen = s.max_recorded_correlation.load(std::memory_order_relaxed);
    while (cb->correlationId > seen &&
           !s.max_recorded_correlation.compare_exchange_weak(seen, cb->correlationId,
                                                             std::memory_order_release)) {
    }
  }
  if (slot.info.cls == ApiClass::kMemory) {
    record_memory(s, site, enter, slot.info.memory, cb);
    return;
  }
  const uint64_t exit_tsc = Clock::ticks();  // the stack walk is not the call's time
  // Not while recording is off (a capture window closed): the record is
  // dropped, the walk would cost for nothing.
  const bool stack = launches_work(slot.info.cls) && Recorder::enabled();
  Recorder::cuda_api(enter, exit_tsc, site, cb->correlationId,
                     stack ? python::current_stack() : 0);
}

void on_api(GpuState& s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
            const CUpti_CallbackData* cb) {
  CbidSlot* slot = slot_for(s, domain, cbid);
  if (slot == nullptr) return;
  if (!slot->classified) {
    // Only when cuptiGetCallbackName was missing and whole domains are on.
    slot->info = classify_api(cb->functionName ? cb->functionName : "",
                              domain == CUPTI_CB_DOMAIN_RUNTIME_API);
    slot->classified = true;
  }
  if (slot->info.cls == ApiClass::kIgnore) return;
  // Capture window edges, not recorded themselves: the window opens once
  // the start call returns and closes as the stop call begins.
  if (slot->info.cls == ApiClass::kProfilerStart) {
    if (cb->callbackSite == CUPTI_API_EXIT) capture::profiler_start();
    return;
  }
  if (slot->info.cls == ApiClass::kProfilerStop) {
    if (cb->callbackSite == CUPTI_API_ENTER) capture::profiler_stop();
    return;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    // A window edge a callback reached switches here, before this call's
    // work is launched (agent/README.md, rule 3).
    activity_switch::apply_pending();
    on_api_enter(s, domain, *slot, cb);
    if (!s.config.gpu_metrics.empty() && slot->info.cls == ApiClass::kLaunch &&
        domain == CUPTI_CB_DOMAIN_DRIVER_API)
      range_profiler::before_launch(s, cbid, cb);
  } else {
    // The profiling window closes first: the digest's copies are not the kernel's.
    if (!s.config.gpu_metrics.empty() && slot->info.cls == ApiClass::kLaunch &&
        domain == CUPTI_CB_DOMAIN_DRIVER_API)
      range_profiler::after_launch(s, cbid, cb);
    on_api_exit(s, domain, *slot, cb);
    if (s.config.checksums && slot->info.cls == ApiClass::kLaunch &&
        domain == CUPTI_CB_DOMAIN_DRIVER_API)
      kernel_checksums::after_launch(s, cbid, cb);
  }
}

uint64_t graph_node_id(GpuState& s, CUgraphNode node) {
  uint64_t id = 0;
  if (node == nullptr || s.cupti.get_graph_node_id == nullptr ||
      s.cupti.get_graph_node_id(node, &id) != CUPTI_SUCCESS) {
    return 0;
  }
  return id;
}

void on_resource(GpuState& s, CUpti_CallbackId cbid, const CUpti_ResourceData* rd) {
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_MODULE_LOADED: {
      // The cubin is only valid inside this callback: hash it now.
      auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
      if (m != nullptr && m->pCubin != nullptr) register_image(s, m->pCubin, m->cubinSize);
      break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED: {
      auto* g = static_cast<const CUpti_GraphData*>(rd->resourceDescriptor);
      if (g == nullptr) break;
      // Runs on the capturing thread, inside the brick: the recorder ties
      // the node to the scope open now.
      const ThreadFrames& f = t_frames;
      // Inside the capturing cuMemAllocAsync/cuMemFreeAsync (cuda.h,
      // CU_GRAPH_NODE_TYPE_MEM_ALLOC/_FREE): that call makes no event.
      const bool memory_node = g->nodeType == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
                               g->nodeType == CU_GRAPH_NODE_TYPE_MEM_FREE;
      if (memory_node && f.depth > 0 && f.depth <= kMaxDepth)
        t_frames.memory_node_correlation = f.correlation[f.depth - 1];
      uint64_t id = graph_node_id(s, g->node);
      if (id == 0) break;
      Recorder::graph_node(id);
      // A captured copy or memset runs later under the graph launch's
      // correlation: remember the capturing call's, under which its
      // addresses were stored.
      const bool has_addresses =
          g->nodeType == CU_GRAPH_NODE_TYPE_MEMCPY || g->nodeType == CU_GRAPH_NODE_TYPE_MEMSET;
      if (has_addresses && f.depth > 0 && f.depth <= kMaxDepth) {
        AgentLock lock(s.graph_mu);
        if (s.node_correlation.size() < kMaxAddresses && budget::charge(kMapEntryBytes)) {
          auto [it, added] = s.node_correlation.emplace(id, 0);
          if (!added) budget::release(kMapEntryBytes);
          it->second = f.correlation[f.depth - 1];
        }
      }
      break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED: {
      auto* g = static_cast<const CUpti_GraphData*>(rd->resourceDescriptor);
      if (g == nullptr) break;
      uint64_t clone = graph_node_id(s, g->node);
      uint64_t original = graph_node_id(s, g->originalNode);
      if (clone != 0 && original != 0 && clone != original) {
        AgentLock lock(s.graph_mu);
        auto it = s.graph_node_origin.find(clone);
        if (it != s.graph_node_origin.end())
          it->second = original;
        else if (budget::charge(kMapEntryBytes))
          s.graph_node_origin.emplace(clone, original);
        else
          ++s.graph_nodes_dropped;
      }
      break;
    }
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
      note_device_of_context(s, rd->context);
      python::look_again_if_loaded();  // a program that loaded libpython after we started
      break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
      // Checksum mode's digests in flight there, and records of a context
      // not yet delivered, are lost with it.
      if (s.config.checksums) kernel_checksums::context_destroying(s, rd->context);
      flush_activity(s);
      break;
    default:
      break;
  }
}

}  // namespace

void CUPTIAPI on_cupti_callback(void* userdata, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid, const void* data) {
  auto* s = static_cast<GpuState*>(userdata);
  if (s == nullptr || data == nullptr) return;
  CuptiCallback section;  // the trace write would wait on CUPTI and on us
  // A switch of CUPTI's records asked for in here waits for a later callback.
  struct InCallback {
    InCallback() { activity_switch::enter_callback(); }
    ~InCallback() { activity_switch::leave_callback(); }
  } in_callback;
  try {
    if (device_reads::in_agent_call()) {
      // The agent's own sync or copy (checksum mode): not the program's.
      if (domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        const auto* cb = static_cast<const CUpti_CallbackData*>(data);
        if (cb->callbackSite == CUPTI_API_ENTER) device_reads::note_agent_call(cb->correlationId);
      }
      return;
    }
    switch (domain) {
      case CUPTI_CB_DOMAIN_DRIVER_API:
      case CUPTI_CB_DOMAIN_RUNTIME_API:
        on_api(*s, domain, cbid, static_cast<const CUpti_CallbackData*>(data));
        break;
      case CUPTI_CB_DOMAIN_RESOURCE:
        on_resource(*s, cbid, static_cast<const CUpti_ResourceData*>(data));
        break;
      default:
        break;
    }
  } catch (...) {
    // Never let an exception unwind into the driver.
  }
}

bool enable_callbacks(GpuState& s, std::string* why) {
  const Cupti& c = s.cupti;
  struct Domain {
    CUpti_CallbackDomain domain;
    CbidSlot* slots;
  };
  const Domain domains[] = {
      {CUPTI_CB_DOMAIN_DRIVER_API, s.driver_api},
      {CUPTI_CB_DOMAIN_RUNTIME_API, s.runtime_api},
  };
  for (const Domain& d : domains) {
    bool runtime = d.domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (c.get_callback_name == nullptr) {
      // Old CUPTI: no names up front; classify on first call instead.
      CUptiResult r = c.enable_domain(1, s.subscriber, d.domain);
      if (r != CUPTI_SUCCESS) {
        *why = "cuptiEnableDomain: " + cupti_error(c, r);
        return false;
      }
      continue;
    }
    // Past the header's size too: a newer libcupti names APIs this build
    // has no id for; unnamed ids are skipped.
    for (uint32_t cbid = 1; cbid < kMaxCbid; ++cbid) {
      const char* name = nullptr;
      if (c.get_callback_name(d.domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr)
        continue;
      CbidSlot& slot = d.slots[cbid];
      slot.info = classify_api(name, runtime);
      slot.classified = true;
      if (slot.info.cls == ApiClass::kIgnore) continue;
      CUptiResult r = c.enable_callback(1, s.subscriber, d.domain, cbid);
      if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_INVALID_PARAMETER) {
        *why = std::string("cuptiEnableCallback(") + name + "): " + cupti_error(c, r);
        return false;
      }
    }
  }
  for (CUpti_CallbackId cbid :
       {CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
        CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
        CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING}) {
    CUptiResult r = c.enable_callback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, cbid);
    if (r != CUPTI_SUCCESS) {
      *why = "cuptiEnableCallback(resource " + std::to_string(cbid) + "): " + cupti_error(c, r);
      return false;
    }
  }
  return true;
}

}  // namespace brickprof::agent
