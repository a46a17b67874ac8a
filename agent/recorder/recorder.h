// The recorder: per-thread, lock-free buffers of small event records.
// Producers (scope API, NVTX injection, CUPTI callbacks) append on their own
// thread with no lock and no allocation in steady state; at exit the dumper
// reads every buffer (thread_walk.h, io/trace_stream.h). Events, sites and
// per-thread state are charged to one budget (budget.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/recorder/cpu_counters.h"
#include "agent/recorder/site_table.h"
#include "agent/recorder/thread_buffers.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

enum class EventType : uint8_t {
  kPush,        // a = element count or layer index; site = what was opened
  kPop,         //
  kWork,        // a, b = FLOPs and bytes (double bits) for the innermost scope
  kCudaApi,     // tsc = API enter, a = correlation id | Python stack << 32 (see
                //   python_frames.h; 0: none), b = API exit tsc, site = API name
  kGraphNode,   // a = CUDA graph node id created under the current scope
  kMark,        // an instant (NVTX mark); site = its name
  kRangeStart,  // a = range id; site = its name (the range may end on another thread)
  kRangeEnd,    // a = range id
  kMemory,      // a = address, b = bytes, then the packed word (pack_memory) and the
                //   stream, the pool; site = the API's or the program pool's name
  kShapes,      // site = a shapes signature (shapes_signature) for the innermost scope
  kChecksum,    // a = index in checksum_table.h; site = the output's name, for the
                //   innermost scope
  kCounter,     // a = value (double bits), b = CounterKind; site = its name
  kTile,        // tsc = the first tile's start, then per tile level its count, ticks,
                //   elements and bytes (BRICKPROF__RECORD_TILE), for the innermost scope
  kCpuCounters,  // words 2-6: what the thread's CPU counters counted in the scope the
                 //   next pop closes (cpu_counters.h), in cpu_counters::event_names() order
};

// Records are variable-size runs of 8-byte words, so a pop costs 16 bytes and
// a push 24 (fresh memory, not the stores, is most of an event's cost): the
// tag (site id | type << 32), the cycle counter, then 0-2 payload words. The
// scope API header writes push and pop records itself (brickprof.h), so this
// layout is ABI: BRICKPROF__RECORD_LAYOUT.
constexpr uint32_t kEventWords[] = {3, 2, 4, 4, 3, 2, 3, 3, 7, 2, 3, 4, 14, 7};  // by EventType

inline uint64_t event_tag(uint32_t site, EventType type) {
  return site | static_cast<uint64_t>(type) << 32;
}

// A view of one record; only its first words() words exist.
struct Event {
  uint64_t tag;
  uint64_t tsc;
  uint64_t a;
  uint64_t b;

  EventType type() const { return static_cast<EventType>(tag >> 32); }
  uint32_t site() const { return static_cast<uint32_t>(tag); }
  // Unknown types (never written) count as two words so a walk cannot stall.
  uint32_t words() const {
    uint64_t t = tag >> 32;
    return t < sizeof(kEventWords) / sizeof(kEventWords[0]) ? kEventWords[t] : 2;
  }
};

// One memory event (Recorder::memory): what a CUDA call or the program's
// allocator did, on the calling thread, so the write attributes it to the
// scope open there then (MemoryEvent in trace/model/memory.h).
struct MemoryRecord {
  MemoryOp op = MemoryOp::kAlloc;
  MemorySource source = MemorySource::kDevice;
  uint32_t name_site = 0;  // intern_api_name() of the API ("cuMemAlloc_v2") or the pool ("kv_cache")
  uint64_t address = 0;    // pointer, or the VMM handle (kPhysical)
  uint64_t bytes = 0;      // alloc, map, trim (bytes to keep); 0 on free and unmap
  uint32_t device = kHostDeviceId;  // CUDA ordinal (< 255), or kHostDeviceId
  int32_t result = 0;      // CUresult / cudaError_t; != 0: the call failed, nothing changed
  uint64_t stream = 0;     // stream-ordered calls
  uint64_t pool = 0;       // kAsync: the pool handle, 0 the device's current pool
  uint32_t python_stack = 0;  // python::current_stack()'s id, 0 for none
  uint64_t tsc = 0;        // when (Clock::ticks()); 0: now
};

// The packed word of a kMemory record: op (4 bits), source (4), device (8;
// 0xff = host), result (16, saturated), Python stack id + 1 (32; 0 none).
inline uint64_t pack_memory(const MemoryRecord& r) {
  const uint64_t device = r.device >= 0xff ? 0xff : r.device;
  const uint64_t result = r.result < 0 || r.result > 0xffff ? 0xffff : r.result;
  return static_cast<uint64_t>(r.op) | static_cast<uint64_t>(r.source) << 4 | device << 8 |
         result << 16 | static_cast<uint64_t>(r.python_stack) << 32;
}

class Recorder {
 public:
  // Intern a site by kind, brick id and name (see sites::intern): call once
  // per call site, then cache the id. Names that do not fit the budget
  // become sites::kOther and are counted (dropped_names).
  static uint32_t intern_site(NodeKind kind, int brick_id, std::string_view name);
  // For NVTX and dynamic names: picks layer / brick / scope from the name.
  static uint32_t intern_named(std::string_view name, NodeKind default_kind);
  static uint32_t intern_api_name(std::string_view name);

  // Hot path. push: whether a pop must follow; false (nothing recorded)
  // when disabled or full, except inside a capture trigger scope, where
  // every push is counted. pop: whether it was recorded.
  static bool push(uint32_t site, uint64_t arg);
  static bool pop();
  static void work(double flops, double bytes);
  // `python_stack`: python::current_stack()'s id, 0 for none.
  static void cuda_api(uint64_t enter_tsc, uint64_t exit_tsc, uint32_t name_site,
                       uint32_t correlation, uint32_t python_stack);
  static void graph_node(uint64_t graph_node_id);
  static void mark(uint32_t site);
  static void range_start(uint32_t site, uint64_t range_id);
  static void range_end(uint64_t range_id);
  // A memory event on this thread (CUDA's memory calls, and the program's
  // allocator through brickprof_mem_alloc / brickprof_mem_free with source
  // kProgram and the pool's name interned as name_site).
  static void memory(const MemoryRecord& record);
  // Shapes for the innermost open scope: `signature_site` is
  // intern_api_name(shapes_signature(...)). The last one a scope gets wins.
  static void shapes(uint32_t signature_site);
  // A program's counter sample (`name_site`: intern_api_name of its name)
  // or `tokens` tokens produced, on this thread, under its innermost scope.
  static void counter(uint32_t name_site, double value);
  static void tokens(uint64_t tokens);
  // One tile of `level` (< kTileLevels) that took `ticks`, added to this
  // thread's last record if that is a tile record (no push or pop since),
  // else to a new one.
  static void tile(uint32_t level, uint64_t ticks, uint64_t elements, uint64_t bytes);
  // The text a shapes record carries: "dtype|inputs|output", the inputs
  // separated by ';', each shape its dims joined by 'x', a rank-0 shape
  // "_": "f32|1x4096;4096x4096|1x4096"; no inputs: "f32||1x4096".
  static std::string shapes_signature(std::string_view dtype,
                                      const std::vector<std::vector<int64_t>>& inputs,
                                      const std::vector<int64_t>& output);
  // Its reading at the write; false (nothing set) if `text` is not one.
  static bool parse_shapes_signature(std::string_view text, NodeShape* out);
  // A digest of an output for the innermost open scope (brickprof_checksum):
  // kept in checksum_table.h, its index in a kChecksum record named
  // `name_site` (intern_api_name of the program's name for the buffer);
  // `source` says how it was read (kHostCopy: device memory, copied).
  static void checksum(uint32_t name_site, ElementType type, uint64_t address,
                       const Digest& digest, ChecksumSource source = ChecksumSource::kProgram);

  // Called on the popping thread just before a scope's end is timestamped,
  // with the kind of scope that ends; BRICKPROF_SYNC=per-layer|immediate
  // installs one that synchronises the GPU so CPU wall times include it.
  using ScopeEndHook = void (*)(NodeKind closed_kind);
  static void set_scope_end_hook(ScopeEndHook hook);
  // While a scope-end hook is set: how many scopes the calling thread has
  // open, and in `*sites` their sites, outermost first (null if the thread
  // has none; only the first ThreadBuffer::kMaxDepth are kept).
  static uint32_t open_scopes(const uint32_t** sites);

  static void set_enabled(bool on);
  static bool enabled();
  // BRICKPROF_CAPTURE=scope:NAME (see capture.h): from now on a thread's
  // outermost scope or brick named NAME opens a capture window and its pop
  // closes it; every push and pop then goes through push() and pop(). An
  // empty NAME turns it off.
  static void capture_by_scope(std::string_view name);
  static bool capturing_by_scope();
  // For the capture trigger (capture/scope_trigger.h): a push or pop
  // recorded as without one (`closes_recorded`: the push was recorded, so
  // the pop is even if recording stopped since), and a drop counted on this
  // thread.
  static bool record_push(uint32_t site, uint64_t arg);
  static bool record_pop(bool closes_recorded);
  static void count_dropped();
  // A scope API call whose arguments the trace cannot hold: left out and
  // counted apart from drops (diagnostics.ignored_api_calls).
  static void count_ignored();
  static uint64_t ignored_api_calls();
  // The header's inline fast path (brickprof.h): allowed only while ticks
  // are the cycle counter and no scope-end hook needs every pop.
  static void set_clock_is_tsc(bool tsc);
  // BRICKPROF_CPU_COUNTERS: every recorded push and pop reads the thread's
  // CPU counters (cpu_counters.h), so the inline path is off. False (and
  // nothing changes) when the machine refuses them.
  static bool start_cpu_counters(cpu_counters::Mode mode);
  static void bind_fast_state(volatile uint32_t* word);  // the API table's word
  static void* thread_buffer();  // a brickprof__thread_buffer*; registers the thread
  // The budget, bytes (BRICKPROF_BUFFER_MB); set before recording.
  static void set_capacity(uint64_t bytes);

  // For the dumper: every thread's events in order (recording should be
  // off). Exited threads keep their buffers as they are until
  // resume_after_dump() (after a dump that did not end the process).
  using ThreadEvents = thread_buffers::ThreadEvents;
  using Segment = thread_buffers::Segment;
  static std::vector<ThreadEvents> snapshot();
  static void resume_after_dump();
  // A destructive dump frees each segment once it is consumed.
  static void release(const Segment& segment);
  static uint64_t dropped_events();
  static uint64_t dropped_names();
  // Whether any event was recorded or dropped since start (or fork). Lock-free
  // and async-signal-safe, for the exec and _exit hooks.
  static bool recorded_anything();
  static SiteInfo site(uint32_t id);
  // Forget all events (after fork, in the child).
  static void reset_after_fork();
};

}  // namespace brickprof::agent
