// The JSON trace in pieces, in the order the "json" format's sink
// (trace/formats/json.h) writes them as nodes stream in.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/derive/stats.h"
#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

// Opens the top-level object and writes everything before "nodes":
// schema, process, sources, diagnostics, devices, threads, communicators (from `header`;
// its nodes are not read).
void write_trace_json_head(JsonWriter& w, const Trace& header);
// One element of "nodes" (`detail` null for CPU nodes; `call` for the
// scope of an MPI call).
void write_trace_json_node(JsonWriter& w, uint32_t id, const Node& node, std::string_view name,
                           const GpuDetail* detail, const CommCall* call = nullptr);
// One element of "edges".
void write_trace_json_edge(JsonWriter& w, const Edge& edge);
// "memory" and "shapes", when there are any (names in `header.strings`).
void write_trace_json_memory(JsonWriter& w, const Trace& header);
// "checksums", when there are any.
void write_trace_json_checksums(JsonWriter& w, const Trace& header);
// "counters", when there are any (names in `header.strings`).
void write_trace_json_counters(JsonWriter& w, const Trace& header);
// "tiles", when there are any.
void write_trace_json_tiles(JsonWriter& w, const Trace& header);
// "cpu_counters", when any were recorded.
void write_trace_json_cpu_counters(JsonWriter& w, const Trace& header);
// "gpu_metrics", when the range profiler ran.
void write_trace_json_gpu_metrics(JsonWriter& w, const Trace& header);
// "python_frames" and "python_stacks", when there are any.
void write_trace_json_python(JsonWriter& w, const std::vector<PythonFrame>& frames,
                             const std::vector<std::vector<uint32_t>>& stacks);
// "ptx", the derived "bricks" and "categories", and the closing brace.
void write_trace_json_tail(JsonWriter& w, const std::vector<PtxModule>& ptx,
                           const TraceStats& stats);

}  // namespace brickprof
