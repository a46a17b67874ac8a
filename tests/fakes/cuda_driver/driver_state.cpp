// The fake driver's objects and GPU queue (see driver_state.h). State is
// allocated once and never freed: clients call in from exit handlers, after
// static destructors would have run.
#include "driver_state.h"

#include <sched.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "driver_limits.h"
#include "driver_trace.h"
#include "fake_cuda.h"
#include "fork_child.h"

namespace fake_cuda {
namespace {

struct State {
  std::mutex mu;
  std::deque<CUctx_st> contexts;  // deque: pointers stay valid
  std::deque<CUmod_st> modules;
  std::deque<CUfunc_st> functions;
  std::deque<CUstream_st> streams;
  std::deque<CUgraph_st> graphs;
  std::deque<CUgraphNode_st> graph_nodes;
  std::deque<CUgraphExec_st> graph_execs;
  std::deque<CUevent_st> events;
  CUcontext primary = nullptr;  // one device, one primary context
  int primary_retains = 0;
  uint64_t heap_next = kHeapBase;
  uint64_t gpu_busy_until = 0;
};

State& state() {
  static State* s = [] {
    auto* made = new State();
    renew_in_fork_child(&made->mu);
    return made;
  }();
  return *s;
}

std::atomic<bool> g_initialized{false};
thread_local CUcontext t_current = nullptr;

}  // namespace

bool initialized() { return g_initialized.load(); }
void set_initialized() { g_initialized.store(true); }

CUcontext current_context() { return t_current; }
void set_current_context(CUcontext ctx) { t_current = ctx; }
uint32_t context_id(CUcontext ctx) { return ctx != nullptr ? ctx->id : 0; }

CUcontext new_context(CUdevice device) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.contexts.push_back(CUctx_st{static_cast<uint32_t>(s.contexts.size() + 1), device});
  return &s.contexts.back();
}

CUmodule new_module(const char* image) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.modules.push_back(CUmod_st{image});
  return &s.modules.back();
}

CUfunction find_function(CUmodule module, const char* name) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (CUfunc_st& f : s.functions)
    if (f.module == module && f.name == name) return &f;
  // An entry point is declared in PTX as ".entry NAME(".
  if (module->image.find(".entry " + std::string(name) + "(") == std::string::npos) return nullptr;
  // Its limit starts at what the default 48 KiB leaves beside its static
  // shared memory (cuda.h, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
  const unsigned fixed = ptx_static_shared_bytes(module->image, name);
  const int64_t room = int64_t{kSharedPerBlock} - fixed;
  s.functions.push_back(CUfunc_st{name, module, fixed, room > 0 ? room : 0});
  return &s.functions.back();
}

CUdeviceptr heap_alloc(size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  uint64_t p = s.heap_next;
  s.heap_next += (bytes + 255) / 256 * 256;  // the driver's 256-byte alignment
  return static_cast<CUdeviceptr>(p);
}

CUstream new_stream() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  // Ids after the NULL stream's, as CUPTI numbers streams of a context.
  s.streams.push_back(CUstream_st{kDefaultStreamId + 1 + static_cast<uint32_t>(s.streams.size())});
  return &s.streams.back();
}

CUgraph new_graph() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.graphs.push_back(CUgraph_st{static_cast<uint32_t>(s.graphs.size() + 1), {}});
  return &s.graphs.back();
}

CUgraphNode new_graph_node(const CUgraphNode_st& like) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.graph_nodes.push_back(like);
  s.graph_nodes.back().id = s.graph_nodes.size();
  return &s.graph_nodes.back();
}

CUgraphExec new_graph_exec() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.graph_execs.push_back(CUgraphExec_st{static_cast<uint32_t>(s.graph_execs.size() + 1), {}});
  return &s.graph_execs.back();
}

CUevent new_event() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.events.emplace_back();
  return &s.events.back();
}

CUcontext retain_primary_context(CUdevice device, bool* created) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  *created = s.primary_retains++ == 0;
  if (s.primary == nullptr) {
    s.contexts.push_back(CUctx_st{static_cast<uint32_t>(s.contexts.size() + 1), device});
    s.primary = &s.contexts.back();
  }
  return s.primary;
}

CUcontext release_primary_context(CUdevice) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.primary_retains > 0 && --s.primary_retains == 0 ? s.primary : nullptr;
}

bool invalidate_captures() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  bool any = false;
  for (CUstream_st& st : s.streams)
    if (st.capture != nullptr) st.invalidated = any = true;
  return any;
}

uint32_t stream_id(CUstream stream) { return stream != nullptr ? stream->id : kDefaultStreamId; }

Interval gpu_run(uint64_t duration_ns) {
  uint64_t now = now_ns();
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  uint64_t start = now > s.gpu_busy_until ? now : s.gpu_busy_until;
  s.gpu_busy_until = start + duration_ns;
  return Interval{start, s.gpu_busy_until};
}

void gpu_wait_until(uint64_t ns) {
  while (now_ns() < ns) sched_yield();
}

void gpu_wait_idle() {
  uint64_t until;
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    until = s.gpu_busy_until;
  }
  gpu_wait_until(until);
}

}  // namespace fake_cuda
