// The in-memory trace: nodes (scopes, kernels, copies, syncs), edges, and what
// is known about the process and its devices. The JSON trace is its on-disk
// form; every analysis and exporter reads this model and nothing else.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/checksum.h"
#include "trace/model/comm.h"
#include "trace/model/counters.h"
#include "trace/model/cpu_counters.h"
#include "trace/model/gpu_metrics.h"
#include "trace/model/ids.h"
#include "trace/model/memory.h"
#include "trace/model/string_table.h"
#include "trace/model/tiles.h"

namespace brickprof {


enum class NodeKind : uint8_t { kLayer, kBrick, kScope, kKernel, kTransfer, kMemset, kSync };
enum class EdgeType : uint8_t { kContains, kLaunches, kSequence, kDependsOn, kTransfer };
// Communication: MPI calls, all-reduce bricks, NCCL kernels (bricks.h says
// which names).
enum class Category : uint8_t { kNorm, kAttention, kFfn, kOther, kCommunication, kNone };
enum class Direction : uint8_t { kUnknown, kH2D, kD2H, kD2D, kH2H, kPeer };
enum class MemoryKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kManaged, kArray };
enum class SyncKind : uint8_t { kUnknown, kStream, kContext, kEvent, kStreamWait, kDevice };

std::string_view to_string(NodeKind kind);
std::string_view to_string(EdgeType type);
std::string_view to_string(Category category);
std::string_view to_string(Direction direction);
std::string_view to_string(MemoryKind kind);
std::string_view to_string(SyncKind kind);
// Parsers return false on an unknown name.
bool parse(std::string_view text, NodeKind* out);
bool parse(std::string_view text, EdgeType* out);
bool parse(std::string_view text, Category* out);
bool parse(std::string_view text, Direction* out);
bool parse(std::string_view text, MemoryKind* out);
bool parse(std::string_view text, SyncKind* out);

inline bool is_cpu_kind(NodeKind k) {
  return k == NodeKind::kLayer || k == NodeKind::kBrick || k == NodeKind::kScope;
}
inline bool is_gpu_kind(NodeKind k) { return !is_cpu_kind(k); }

// Start/end ranges (NVTX) may end on another thread and overlap each other, so
// they live on lanes of their own: "threads" numbered from here (above any
// Linux thread id), each holding ranges that do not overlap. They are
// annotations, not work: the dependency graph leaves them out.
constexpr uint32_t kRangeLaneBase = 0x80000000u;
inline bool is_range_lane(uint32_t thread) { return thread >= kRangeLaneBase; }

// One node of the execution graph. GPU nodes keep their device-side details
// in Trace::gpu (indexed by `detail`) so CPU scopes stay small.
struct Node {
  NodeKind kind = NodeKind::kScope;
  Category category = Category::kNone;
  int16_t brick_id = -1;     // brickprof_brick, -1 for custom/none
  int32_t layer_index = -1;  // layers only
  StringId name = 0;
  uint32_t parent = kNoNode;    // enclosing scope (or launching scope for GPU work)
  uint32_t thread = 0;          // OS thread id of the CPU side
  uint32_t detail = kNoDetail;  // index into Trace::gpu
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t elements = 0;
  double flops = 0;  // annotated work, for the roofline
  double bytes_moved = 0;

  int64_t duration_ns() const { return end_ns - start_ns; }
};

// Device-side facts of a kernel, copy, memset or sync.
struct GpuDetail {
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint64_t correlation = 0;
  // The CPU-side API call that issued the work (launch, copy, sync), on the
  // same timeline: a kernel cannot start before api_start_ns.
  int64_t api_start_ns = 0;
  int64_t api_end_ns = 0;
  // kernel
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t smem = 0;  // static + dynamic shared memory, bytes
  uint32_t registers = 0;
  uint64_t ptx_hash = 0;
  uint64_t graph_node = 0;  // CUDA graph node id when replayed from a graph
  // A whole CUDA graph replay traced as one interval (BRICKPROF_CUDA_GRAPH_TRACE
  // =graph): the graph's id; 0 for a kernel of its own.
  uint32_t graph_id = 0;
  // transfer / memset
  uint64_t bytes = 0;
  Direction direction = Direction::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  uint64_t src_addr = 0;
  uint64_t dst_addr = 0;
  // sync
  SyncKind sync = SyncKind::kUnknown;
  uint64_t event = 0;
  // The Python stack of the launching thread: an index into
  // Trace::python_stacks, kNoPythonStack when none was read.
  uint32_t python_stack = kNoPythonStack;
};

// A Python frame that launched GPU work: the line being run in a function.
struct PythonFrame {
  std::string file;      // co_filename, as Python has it
  int64_t line = 0;
  std::string function;  // co_qualname (co_name before 3.11)
};

struct Edge {
  uint32_t src = 0;
  uint32_t dst = 0;
  EdgeType type = EdgeType::kContains;
};

struct ProcessInfo {
  int64_t pid = 0;
  int64_t ppid = 0;
  std::string program;
  std::string cmdline;
  std::string host;
  int64_t rank = -1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string clock = "CLOCK_MONOTONIC";
  // Under a job launcher (mpirun, srun, torchrun): which, its job id, the
  // ranks on this host and in all; -1 / 0 / "" when not known.
  std::string launcher;
  std::string job;
  int64_t local_rank = -1;
  int64_t world_size = 0;
  ClockSync clock_sync;  // this clock against rank 0's (MPI programs)
};

// A stretch of the trace's timeline [start_ns, end_ns].
struct TimeRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool operator==(const TimeRange&) const = default;
};

struct Diagnostics {
  std::string cupti = "not started";
  std::string nvtx = "not started";
  // BRICKPROF_CPU_COUNTERS: "off", the counters read ("software: task-clock,
  // ..."), or why none could be ("none (no PMU: ...)").
  std::string cpu_counters = "off";
  // BRICKPROF_GPU_METRICS: "off", what the range profiler collected
  // ("kernel replay, 2 passes: ..."), or why it could not ("refused: ...").
  std::string gpu_metrics = "off";
  uint64_t dropped_events = 0;
  // Run-time names (NVTX, brickprof_push_name) recorded as "(other)":
  // the name table was full.
  uint64_t dropped_names = 0;
  // Scope API calls whose arguments the trace cannot hold (a tile level
  // outside macro/midi/micro, a counter value that is not finite, shapes
  // past their 512 bytes): left out, and not events lost to a full buffer.
  uint64_t ignored_api_calls = 0;
  uint64_t dropped_activity_records = 0;
  uint64_t zero_timestamp_records = 0;
  uint64_t unbalanced_pops = 0;
  uint64_t open_scopes_at_exit = 0;
  // BRICKPROF_CAPTURE: "all", or the mode and its windows; scopes the
  // windows cut (not errors) and GPU records launched outside them (left out).
  std::string capture = "all";
  std::vector<TimeRange> capture_windows;  // sorted; empty: all was recorded
  uint64_t scopes_cut_by_capture = 0;
  uint64_t records_outside_capture = 0;
  // When CUPTI's work records were switched off (between capture windows);
  // GPU work launched then has no record. Sorted; empty: never off.
  std::vector<TimeRange> activity_off;
  // BRICKPROF_CHECKSUMS: "off", or how kernels' outputs were digested
  // ("host-copy", "device"): the launches were synchronised, times perturbed.
  std::string checksum_mode = "off";
  std::vector<std::string> warnings;
};


struct Device {
  uint32_t id = 0;
  std::string name;
  uint32_t sm_count = 0;
  double clock_mhz = 0;
  double memory_clock_mhz = 0;
  uint32_t memory_bus_bits = 0;
  double peak_gflops = 0;
  double peak_gbps = 0;
  // "device attributes", "measured", "measured by the program (...)",
  // "override", "default"
  std::string peaks_source;
  uint64_t memory_bytes = 0;  // the device's memory (cuDeviceTotalMem); 0: not known
  // The host: the read bandwidth (GB/s) one thread reached over working sets
  // of the L1, L2 and L3 caches' sizes, as the program measured it
  // (brickprof_set_cache_bandwidth); 0: not measured.
  double cache_gbps[3] = {0, 0, 0};
};

struct PtxModule {
  uint64_t hash = 0;
  std::string kind;  // "ptx" or "cubin"
  uint64_t bytes = 0;
  std::vector<std::string> kernels;
  std::string source;  // only with BRICKPROF_PTX=source
};

struct ThreadInfo {
  uint32_t tid = 0;
  std::string name;
};

// Where part of a merged trace came from (`brickprof merge`): one entry per
// input process, so the merged `process` need not stand for all of them.
// Its threads and devices were renumbered; the maps give both ids.
struct SourceInfo {
  std::string label;        // "rank 0": the "rank 0: " its thread and device names start with
  std::string file;         // the input file, when merged from files
  ProcessInfo process;      // as the source recorded it (its own rank, -1 if none)
  std::string cupti, nvtx;  // its diagnostics' status lines
  struct IdMap {
    uint32_t id = 0;         // in the merged trace
    uint32_t source_id = 0;  // in the source
  };
  std::vector<IdMap> threads;
  std::vector<IdMap> devices;
  // The clock line `merge` subtracted from this source's times (local -
  // rank 0's: offset at local time at_ns, and drift in ns per ns), when its
  // process.clock_sync was measured.
  struct Alignment {
    bool applied = false;
    int64_t at_ns = 0;
    double offset_ns = 0;
    double drift = 0;
  } alignment;
};

struct Trace {
  ProcessInfo process;
  Diagnostics diagnostics;
  std::vector<Device> devices;
  std::vector<ThreadInfo> threads;
  std::vector<Node> nodes;
  std::vector<GpuDetail> gpu;
  std::vector<Edge> edges;
  std::vector<PtxModule> ptx;
  std::vector<SourceInfo> sources;  // merged traces only; empty for a recorded one
  // MPI calls (sorted by node) and the communicators they name; empty for a
  // program that made none.
  std::vector<CommCall> comm_calls;
  std::vector<Communicator> communicators;
  // Set by subtrees_named (report --under NAME): the trace holds scopes of
  // that name, each one step of the program, which the Chrome export marks
  // as Kineto's ProfilerStep#N. Not in the JSON trace.
  std::string steps_name;
  // A part of a trace (trace_subset.h) keeps some nodes, renumbered: the id
  // each had in the trace it was taken from, so every output names a node
  // as the file does. Empty when every node's id is its index.
  std::vector<uint32_t> file_ids;
  // Python stacks of GPU launches (GpuDetail::python_stack): frame ids,
  // innermost first.
  std::vector<PythonFrame> python_frames;
  std::vector<std::vector<uint32_t>> python_stacks;
  // Allocations and frees in time order (memory.h), and the shapes the
  // program attached to its scopes, by node; empty when none were recorded.
  std::vector<MemoryEvent> memory;
  std::vector<NodeShape> shapes;
  // Digests of outputs (checksum.h), by node, each node's in the order taken.
  std::vector<OutputChecksum> checksums;
  // The program's counter samples and tokens in time order (counters.h).
  std::vector<CounterSample> counters;
  // Tiles added up per node, thread and level (tiles.h), by node.
  std::vector<TileStats> tiles;
  // The CPU's counters per scope (cpu_counters.h); empty unless asked for.
  CpuCounters cpu_counters;
  // The GPU's counters per kernel (gpu_metrics.h); empty unless asked for.
  GpuMetrics gpu_metrics;
  StringTable strings;

  std::string_view name(const Node& n) const { return strings.view(n.name); }
  const GpuDetail* detail(const Node& n) const {
    return n.detail == kNoDetail ? nullptr : &gpu[n.detail];
  }
  // Appends a node (and its GPU detail, if given); returns its id.
  uint32_t add_node(const Node& node);
  uint32_t add_gpu_node(Node node, const GpuDetail& detail);
  void add_edge(uint32_t src, uint32_t dst, EdgeType type) { edges.push_back({src, dst, type}); }
  // The MPI call a node is, or nullptr (binary search in comm_calls).
  const CommCall* comm_call(uint32_t node) const;
  // The id outputs give node `node`: the file's (see file_ids).
  uint32_t file_id(uint32_t node) const {
    return file_ids.empty() || node >= file_ids.size() ? node : file_ids[node];
  }
};

}  // namespace brickprof
