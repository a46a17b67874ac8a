// NVTX v3 injection: InitializeInjectionNvtx2 and the range/mark handlers.
//
// Push/pop (A, W, Ex; global and per-domain) map to Recorder::push/pop on
// the calling thread. Marks map to Recorder::mark. Start/end ranges may end
// on another thread, which a per-thread scope stack cannot express: they are
// recorded as start and end events with the range's id and become nodes on
// range lanes of their own (kRangeLaneBase), never disturbing the push/pop
// nesting.
#include "agent/nvtx/nvtx_injection.h"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "agent/lifecycle/agent.h"
#include "agent/ptx/hash.h"
#include "agent/recorder/recorder.h"
#include "trace/model/bricks.h"

namespace brickprof::agent {
namespace {

std::atomic<const char*> g_status{"not loaded"};

// What a name resolves to: the recorder site and the push argument (the
// layer index for layers).
struct Resolved {
  uint32_t site = 0;
  uint64_t arg = 0;
};

Resolved resolve_name(std::string_view name) {
  Resolved r;
  r.site = Recorder::intern_named(name, NodeKind::kScope);
  if (Recorder::site(r.site).kind == NodeKind::kLayer) {
    if (auto index = layer_from_name(name)) r.arg = static_cast<uint64_t>(*index);
  }
  return r;
}

// Registered strings and domains: handles NVTX gives back to us, never freed.
struct RegisteredString {
  std::string text;
  Resolved resolved;
};
struct Domain {
  std::string name;
};

// Per-thread cache keyed by the string's address (NVTX names are mostly
// literals), checked by length and hash so a reused buffer with new text
// misses: no lock and no allocation on a hit. On the heap, one per thread:
// the agent's static TLS must stay tiny, or dlopen (NVTX/CUDA injection
// without LD_PRELOAD) fails with "cannot allocate memory in static TLS".
struct CacheEntry {
  const char* ptr = nullptr;
  size_t len = 0;
  uint64_t hash = 0;
  Resolved resolved;
};
constexpr size_t kCacheSize = 64;
thread_local std::unique_ptr<CacheEntry[]> t_cache;

Resolved resolve_ascii(const char* text) {
  if (text == nullptr) text = "";
  size_t len = std::strlen(text);
  uint64_t hash = fnv1a64(text, len);
  if (!t_cache) t_cache.reset(new CacheEntry[kCacheSize]);
  CacheEntry& e = t_cache[(reinterpret_cast<uintptr_t>(text) >> 3) % kCacheSize];
  if (e.ptr == text && e.len == len && e.hash == hash && e.resolved.site != 0) return e.resolved;
  Resolved r = resolve_name(std::string_view(text, len));
  e = {text, len, hash, r};
  return r;
}

std::string utf8_from_wide(const wchar_t* w) {
  std::string out;
  if (w == nullptr) return out;
  for (; *w; ++w) {
    auto c = static_cast<uint32_t>(*w);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

Resolved resolve_wide(const wchar_t* text) { return resolve_name(utf8_from_wide(text)); }

Resolved resolve_attributes(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return resolve_ascii("");
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return resolve_ascii(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return resolve_wide(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      auto* s = reinterpret_cast<const RegisteredString*>(a->message.registered);
      return s ? s->resolved : resolve_ascii("");
    }
    default:
      return resolve_ascii("");
  }
}

int push(Resolved r) {
  Recorder::push(r.site, r.arg);
  return 0;  // nesting depth is not tracked here; NVTX allows any >= 0
}
int pop() { return Recorder::pop() ? 0 : -1; }

// Start and end are recorded on whichever threads call them; the dump pairs
// them by id (see replay.cpp).
std::atomic<uint64_t> g_range_seq{1};
nvtxRangeId_t start_range(Resolved r) {
  nvtxRangeId_t id = g_range_seq.fetch_add(1, std::memory_order_relaxed);
  Recorder::range_start(r.site, id);
  return id;
}
void end_range(nvtxRangeId_t id) { Recorder::range_end(id); }

// Core module.
void NVTX_API mark_ex(const nvtxEventAttributes_t* a) {
  Recorder::mark(resolve_attributes(a).site);
}
void NVTX_API mark_a(const char* m) { Recorder::mark(resolve_ascii(m).site); }
void NVTX_API mark_w(const wchar_t* m) { Recorder::mark(resolve_wide(m).site); }
nvtxRangeId_t NVTX_API range_start_ex(const nvtxEventAttributes_t* a) {
  return start_range(resolve_attributes(a));
}
nvtxRangeId_t NVTX_API range_start_a(const char* m) { return start_range(resolve_ascii(m)); }
nvtxRangeId_t NVTX_API range_start_w(const wchar_t* m) { return start_range(resolve_wide(m)); }
void NVTX_API range_end(nvtxRangeId_t id) { end_range(id); }
int NVTX_API range_push_ex(const nvtxEventAttributes_t* a) { return push(resolve_attributes(a)); }
int NVTX_API range_push_a(const char* m) { return push(resolve_ascii(m)); }
int NVTX_API range_push_w(const wchar_t* m) { return push(resolve_wide(m)); }
int NVTX_API range_pop() { return pop(); }

// Core2 (domains).
void NVTX_API domain_mark_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) { mark_ex(a); }
nvtxRangeId_t NVTX_API domain_range_start_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) {
  return range_start_ex(a);
}
void NVTX_API domain_range_end(nvtxDomainHandle_t, nvtxRangeId_t id) { end_range(id); }
int NVTX_API domain_range_push_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) {
  return range_push_ex(a);
}
int NVTX_API domain_range_pop(nvtxDomainHandle_t) { return pop(); }
nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t, const char* s) {
  auto* r = new RegisteredString{s ? s : "", {}};
  r->resolved = resolve_name(r->text);
  return reinterpret_cast<nvtxStringHandle_t>(r);
}
nvtxStringHandle_t NVTX_API domain_register_string_w(nvtxDomainHandle_t, const wchar_t* s) {
  auto* r = new RegisteredString{utf8_from_wide(s), {}};
  r->resolved = resolve_name(r->text);
  return reinterpret_cast<nvtxStringHandle_t>(r);
}
nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(new Domain{name ? name : ""});
}
nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(new Domain{utf8_from_wide(name)});
}
void NVTX_API domain_destroy(nvtxDomainHandle_t) {}  // handles may still be in flight

template <typename F>
void set_slot(NvtxFunctionTable table, unsigned size, unsigned id, F fn) {
  if (id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool fill_tables(NvtxGetExportTableFunc_t get_export_table) {
  auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return false;
  }
  NvtxFunctionTable t = nullptr;
  unsigned n = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) || t == nullptr) return false;
  set_slot(t, n, NVTX_CBID_CORE_MarkEx, mark_ex);
  set_slot(t, n, NVTX_CBID_CORE_MarkA, mark_a);
  set_slot(t, n, NVTX_CBID_CORE_MarkW, mark_w);
  set_slot(t, n, NVTX_CBID_CORE_RangeStartEx, range_start_ex);
  set_slot(t, n, NVTX_CBID_CORE_RangeStartA, range_start_a);
  set_slot(t, n, NVTX_CBID_CORE_RangeStartW, range_start_w);
  set_slot(t, n, NVTX_CBID_CORE_RangeEnd, range_end);
  set_slot(t, n, NVTX_CBID_CORE_RangePushEx, range_push_ex);
  set_slot(t, n, NVTX_CBID_CORE_RangePushA, range_push_a);
  set_slot(t, n, NVTX_CBID_CORE_RangePushW, range_push_w);
  set_slot(t, n, NVTX_CBID_CORE_RangePop, range_pop);
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) && t != nullptr) {
    set_slot(t, n, NVTX_CBID_CORE2_DomainMarkEx, domain_mark_ex);
    set_slot(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, domain_range_start_ex);
    set_slot(t, n, NVTX_CBID_CORE2_DomainRangeEnd, domain_range_end);
    set_slot(t, n, NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push_ex);
    set_slot(t, n, NVTX_CBID_CORE2_DomainRangePop, domain_range_pop);
    set_slot(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, domain_register_string_a);
    set_slot(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, domain_register_string_w);
    set_slot(t, n, NVTX_CBID_CORE2_DomainCreateA, domain_create_a);
    set_slot(t, n, NVTX_CBID_CORE2_DomainCreateW, domain_create_w);
    set_slot(t, n, NVTX_CBID_CORE2_DomainDestroy, domain_destroy);
  }
  return true;
}

}  // namespace

std::string nvtx_status() { return g_status.load(); }

}  // namespace brickprof::agent

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  using namespace brickprof::agent;
  try {
    ensure_started();
    if (get_export_table == nullptr || !fill_tables(get_export_table)) {
      g_status.store("unavailable: NVTX export table not usable");
      return 0;  // NVTX then turns every call into a no-op
    }
    g_status.store("active");
    return 1;
  } catch (...) {
    return 0;
  }
}
