// The C ABI behind <brickprof/brickprof.h>: the function table that the
// header's lazy binding finds with dlsym("brickprof_get_api").
#include <brickprof/brickprof.h>

#include <cmath>

#include "agent/capture/capture.h"
#include "agent/io/host_peaks.h"
#include "agent/lifecycle/agent.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {
namespace {

NodeKind kind_of(int32_t kind) {
  switch (kind) {
    case BRICKPROF_KIND_LAYER: return NodeKind::kLayer;
    case BRICKPROF_KIND_BRICK: return NodeKind::kBrick;
    default: return NodeKind::kScope;
  }
}

// The site's cookie caches its interned id + 1 (0 = not yet interned).
__attribute__((noinline)) uint32_t intern_cookie(brickprof__site* site) {
  const char* name = site->name ? site->name : "";
  uint32_t id = Recorder::intern_site(kind_of(site->kind), site->brick, name) + 1;
  __atomic_store_n(&site->cookie, id, __ATOMIC_RELAXED);
  return id;
}

int api_push(brickprof__site* site, uint64_t arg) {
  uint32_t cookie = __atomic_load_n(&site->cookie, __ATOMIC_RELAXED);
  if (__builtin_expect(cookie == 0, 0)) cookie = intern_cookie(site);
  return Recorder::push(cookie - 1, arg);
}

int api_push_name(int32_t kind, const char* name, uint64_t arg) {
  // Off: nothing to intern, unless the name may open a capture window.
  if (!Recorder::enabled() && !Recorder::capturing_by_scope()) return 0;
  std::string_view text = name ? name : "";
  uint32_t site = kind == BRICKPROF_KIND_SCOPE ? Recorder::intern_named(text, NodeKind::kScope)
                                               : Recorder::intern_site(kind_of(kind), -1, text);
  return Recorder::push(site, arg);
}

void api_pop() { Recorder::pop(); }
void api_add_work(double flops, double bytes) { Recorder::work(flops, bytes); }
void api_set_enabled(int on) { capture::set_user_enabled(on != 0); }
int api_is_enabled() { return Recorder::enabled() ? 1 : 0; }

void api_counter(const char* name, double value) {
  if (!Recorder::enabled()) return;
  if (!std::isfinite(value)) {
    Recorder::count_dropped();  // a track cannot show it; counted, as a full buffer's
    return;
  }
  Recorder::counter(Recorder::intern_api_name(name ? name : ""), value);
}
void api_tokens(uint64_t n) { Recorder::tokens(n); }

brickprof__thread_buffer* api_thread_buffer() {
  return static_cast<brickprof__thread_buffer*>(Recorder::thread_buffer());
}

// Version 1 callers read only the fields up to is_enabled; a header newer
// than this agent checks `size` before using a field appended after ours.
// Constant-initialised: a constructor running before ours may already use
// it. The fast state starts at "call" until the clock is known to be the
// cycle counter the header reads.
constinit brickprof__api_table g_api = {
    BRICKPROF__ABI_VERSION,
    sizeof(brickprof__api_table),
    api_push,
    api_push_name,
    api_pop,
    api_add_work,
    api_set_enabled,
    api_is_enabled,
    BRICKPROF__FAST_CALL,
    BRICKPROF__RECORD_LAYOUT,
    api_thread_buffer,
    set_host_peaks,
    api_counter,
    api_tokens,
};

}  // namespace

}  // namespace brickprof::agent

extern "C" __attribute__((visibility("default"))) const brickprof__api_table* brickprof_get_api(
    uint32_t abi_version) {
  if (abi_version == 0 || abi_version > BRICKPROF__ABI_VERSION) return nullptr;
  brickprof::agent::ensure_started();
  static bool bound = (brickprof::agent::Recorder::bind_fast_state(
                           &brickprof::agent::g_api.fast_state),
                       true);
  (void)bound;
  return &brickprof::agent::g_api;
}
