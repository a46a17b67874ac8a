// The C ABI behind <brickprof/brickprof.h>: the function table that the
// header's lazy binding finds with dlsym("brickprof_get_api").
#include <brickprof/brickprof.h>

#include <cmath>
#include <cstdlib>

#include "agent/capture/capture.h"
#include "agent/io/host_peaks.h"
#include "agent/lifecycle/agent.h"
#include "agent/python/python_frames.h"
#include "agent/recorder/checksum_table.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "agent/recorder/shape_text.h"
#include "agent/recorder/text_sites.h"

namespace brickprof::agent {

// From agent/cupti when the GPU source is built in (cupti/device_reads.h):
// whether `ptr` is device memory, and if so its copy (malloc'ed; null when
// it could not be read).
__attribute__((weak)) bool copy_if_device(const void* ptr, uint64_t bytes, void** copy);

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

// The program's allocator's events: no device of their own, and the
// Python line that made them, as for GPU work.
void record_program_memory(MemoryOp op, const void* ptr, uint64_t bytes, uint32_t pool) {
  MemoryRecord r;
  r.op = op;
  r.source = MemorySource::kProgram;
  r.name_site = pool;
  r.address = reinterpret_cast<uintptr_t>(ptr);
  r.bytes = bytes;
  r.python_stack = python::current_stack();
  Recorder::memory(r);
}

// A program's pool name or shape text as a site (text_sites.h): interned
// once per distinct text, so each event carries a 32-bit id.
constexpr std::string_view kUnnamedPool = "(program)";
constexpr size_t kShapeTextMax = 512;  // past it, the shape is dropped and counted

void api_mem_alloc(const void* ptr, uint64_t bytes, const char* pool) {
  if (!Recorder::enabled()) return;
  const uint32_t name = text_site(pool && *pool ? std::string_view(pool) : kUnnamedPool);
  record_program_memory(MemoryOp::kAlloc, ptr, bytes, name);
}

void api_mem_free(const void* ptr, const char* pool) {
  if (!Recorder::enabled()) return;
  const uint32_t name = text_site(pool && *pool ? std::string_view(pool) : kUnnamedPool);
  record_program_memory(MemoryOp::kFree, ptr, 0, name);
}

void api_set_shapes(const char* dtype, const int64_t* dims, const uint32_t* ranks,
                    uint32_t n_inputs, const int64_t* out_dims, uint32_t out_rank) {
  if (!Recorder::enabled()) return;
  char text[kShapeTextMax];
  const size_t size =
      format_shape_text(text, sizeof text, dtype, dims, ranks, n_inputs, out_dims, out_rank);
  if (size == 0) {
    Recorder::count_ignored();  // too long to keep
    return;
  }
  const uint32_t site = text_site(std::string_view(text, size));
  if (site == sites::kOther) {
    Recorder::count_dropped();  // no room for the text
    return;
  }
  Recorder::shapes(site);
}

// The digest is taken here, on the calling thread, before the program may
// change the buffer; only its ~200 bytes are kept (checksum_table.h).
void api_checksum(const char* name, const void* ptr, uint64_t count, const char* dtype) {
  if (!Recorder::enabled()) return;
  ElementType type = ElementType::kBytes;
  if ((dtype && !parse(dtype, &type)) || (!ptr && count > 0)) {
    checksum_table::count_dropped();
    return;
  }
  // Device memory is copied to the host first (a read of it here would fault).
  void* copy = nullptr;
  const bool device = ptr != nullptr && count > 0 && copy_if_device &&
                      copy_if_device(ptr,
                                     count > UINT64_MAX / element_bytes(type)
                                         ? UINT64_MAX
                                         : count * element_bytes(type),
                                     &copy);
  if (device && copy == nullptr) {
    checksum_table::count_dropped();
    return;
  }
  const Digest digest = digest_of(device ? copy : ptr, count, type);
  std::free(copy);
  Recorder::checksum(Recorder::intern_api_name(name ? name : ""), type,
                     reinterpret_cast<uintptr_t>(ptr), digest,
                     device ? ChecksumSource::kHostCopy : ChecksumSource::kProgram);
}
void api_counter(const char* name, double value) {
  if (!Recorder::enabled()) return;
  if (!std::isfinite(value)) {
    Recorder::count_ignored();  // a track cannot show it
    return;
  }
  Recorder::counter(Recorder::intern_api_name(name ? name : ""), value);
}
void api_tokens(uint64_t n) { Recorder::tokens(n); }

uint64_t api_tile_ticks() { return Clock::ticks(); }
void api_tile(int32_t level, uint64_t ticks, uint64_t elements, uint64_t bytes) {
  if (!Recorder::enabled()) return;
  if (level < 0 || level >= BRICKPROF_TILE_LEVELS) {
    Recorder::count_ignored();  // not a level the trace has
    return;
  }
  Recorder::tile(static_cast<uint32_t>(level), ticks, elements, bytes);
}

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
    api_mem_alloc,
    api_mem_free,
    api_set_shapes,
    api_checksum,
    api_counter,
    api_tokens,
    api_tile_ticks,
    api_tile,
    set_cache_bandwidth,
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
