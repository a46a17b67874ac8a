// Writes the JSON trace (see trace_json.h for the format's entry points).
#include <algorithm>

#include "analysis/json_writer.h"
#include "analysis/stats.h"
#include "analysis/trace_json.h"

namespace brickprof {
namespace {

void write_process_fields(JsonWriter& w, const ProcessInfo& p) {
  w.field("pid", p.pid).field("ppid", p.ppid).field("program", p.program);
  w.field("cmdline", p.cmdline).field("host", p.host).field("rank", p.rank);
  w.field("start_ns", p.start_ns).field("end_ns", p.end_ns).field("clock", p.clock);
}

void write_process(JsonWriter& w, const ProcessInfo& p) {
  w.key("process").begin_object();
  write_process_fields(w, p);
  w.end_object();
}

void write_id_maps(JsonWriter& w, std::string_view key, std::string_view id_key,
                   const std::vector<SourceInfo::IdMap>& maps) {
  w.key(key).begin_array();
  for (const SourceInfo::IdMap& m : maps)
    w.begin_object()
        .field(id_key, m.id)
        .field("source_" + std::string(id_key), m.source_id)
        .end_object();
  w.end_array();
}

// Only merged traces have sources; recorded traces keep their exact form.
void write_sources(JsonWriter& w, const std::vector<SourceInfo>& sources) {
  if (sources.empty()) return;
  w.key("sources").begin_array();
  for (const SourceInfo& s : sources) {
    w.newline().begin_object();
    w.field("label", s.label).field("file", s.file);
    write_process_fields(w, s.process);
    w.field("cupti", s.cupti).field("nvtx", s.nvtx);
    write_id_maps(w, "threads", "tid", s.threads);
    write_id_maps(w, "devices", "id", s.devices);
    w.end_object();
  }
  w.end_array();
}

void write_diagnostics(JsonWriter& w, const Diagnostics& d) {
  w.key("diagnostics").begin_object();
  w.field("cupti", d.cupti).field("nvtx", d.nvtx);
  w.field("dropped_events", d.dropped_events);
  w.field("dropped_names", d.dropped_names);
  w.field("dropped_activity_records", d.dropped_activity_records);
  w.field("zero_timestamp_records", d.zero_timestamp_records);
  w.field("unbalanced_pops", d.unbalanced_pops);
  w.field("open_scopes_at_exit", d.open_scopes_at_exit);
  w.field("capture", d.capture);
  w.key("capture_windows").begin_array();
  for (const TimeRange& r : d.capture_windows)
    w.begin_object().field("start_ns", r.start_ns).field("end_ns", r.end_ns).end_object();
  w.end_array();
  w.field("scopes_cut_by_capture", d.scopes_cut_by_capture);
  w.field("records_outside_capture", d.records_outside_capture);
  w.key("warnings").begin_array();
  for (const std::string& s : d.warnings) w.value(s);
  w.end_array();
  w.end_object();
}

void write_devices(JsonWriter& w, const std::vector<Device>& devices) {
  w.key("devices").begin_array();
  for (const Device& d : devices) {
    w.begin_object();
    w.field("id", d.id).field("name", d.name).field("sm_count", d.sm_count);
    w.field("clock_mhz", d.clock_mhz).field("memory_clock_mhz", d.memory_clock_mhz);
    w.field("memory_bus_bits", d.memory_bus_bits);
    w.field("peak_gflops", d.peak_gflops).field("peak_gbps", d.peak_gbps);
    w.field("peaks_source", d.peaks_source);
    w.end_object();
  }
  w.end_array();
}

void write_dims(JsonWriter& w, std::string_view key, const uint32_t (&dims)[3]) {
  w.key(key).begin_array().value(dims[0]).value(dims[1]).value(dims[2]).end_array();
}

void write_gpu_detail(JsonWriter& w, NodeKind kind, const GpuDetail& g) {
  w.field("device", g.device).field("context", g.context).field("stream", g.stream);
  w.field("correlation", g.correlation);
  if (g.graph_node) w.field("graph_node", g.graph_node);  // replayed from a CUDA graph
  if (g.graph_id) w.field("graph_id", g.graph_id);        // a whole graph replay
  if (g.api_start_ns) w.field("api_start_ns", g.api_start_ns).field("api_end_ns", g.api_end_ns);
  switch (kind) {
    case NodeKind::kKernel:
      write_dims(w, "grid", g.grid);
      write_dims(w, "block", g.block);
      w.field("smem", g.smem).field("registers", g.registers);
      w.key("ptx_hash").hex(g.ptx_hash);
      break;
    case NodeKind::kTransfer:
    case NodeKind::kMemset:
      w.field("bytes", g.bytes).field("direction", to_string(g.direction));
      w.field("src_kind", to_string(g.src_kind)).field("dst_kind", to_string(g.dst_kind));
      w.field("src_addr", g.src_addr).field("dst_addr", g.dst_addr);
      break;
    case NodeKind::kSync:
      w.field("sync", to_string(g.sync)).field("event", g.event);
      break;
    default:
      break;
  }
}

void write_node(JsonWriter& w, const Trace& t, uint32_t id) {
  const Node& n = t.nodes[id];
  w.newline().begin_object();
  w.field("id", id).field("kind", to_string(n.kind)).field("name", t.name(n));
  w.key("parent");
  if (n.parent == kNoNode) w.null(); else w.value(n.parent);
  w.field("thread", n.thread).field("start_ns", n.start_ns).field("end_ns", n.end_ns);
  if (n.kind == NodeKind::kLayer) w.field("index", n.layer_index);
  if (n.kind == NodeKind::kBrick) {
    w.field("brick_id", static_cast<int>(n.brick_id));
    w.field("category", to_string(n.category));
  }
  if (n.elements) w.field("elements", n.elements);
  if (n.flops > 0) w.field("flops", n.flops);
  if (n.bytes_moved > 0) w.field("bytes_moved", n.bytes_moved);
  if (const GpuDetail* g = t.detail(n)) write_gpu_detail(w, n.kind, *g);
  w.end_object();
}

void write_derived(JsonWriter& w, const Trace& t) {
  TraceStats stats = compute_stats(t);
  w.key("bricks").begin_array();
  for (const BrickStat& b : stats.bricks) {
    w.newline().begin_object();
    w.field("name", b.name).field("category", to_string(b.category)).field("count", b.count);
    w.field("total_ns", b.total_ns).field("avg_ns", b.avg_ns());
    w.field("min_ns", b.min_ns).field("max_ns", b.max_ns).field("elements", b.elements);
    w.field("gpu_ns", b.gpu_ns).field("kernels", b.kernels);
    w.field("elements_per_s", b.throughput());
    w.end_object();
  }
  w.end_array();
  w.key("categories").begin_array();
  for (const CategoryStat& c : stats.categories) {
    w.newline().begin_object();
    w.field("name", to_string(c.category)).field("count", c.count);
    w.field("total_ns", c.total_ns).field("pct", c.pct);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

void write_trace_json(const Trace& t, std::ostream& out) {
  JsonWriter w(out);
  w.begin_object();
  w.field("schema", kSchema);
  write_process(w, t.process);
  write_sources(w, t.sources);
  write_diagnostics(w, t.diagnostics);
  write_devices(w, t.devices);
  w.key("threads").begin_array();
  for (const ThreadInfo& th : t.threads)
    w.begin_object().field("tid", th.tid).field("name", th.name).end_object();
  w.end_array();
  w.key("nodes").begin_array();
  for (uint32_t i = 0; i < t.nodes.size(); ++i) write_node(w, t, i);
  w.end_array();
  w.key("edges").begin_array();
  for (const Edge& e : t.edges) {
    w.newline().begin_object();
    w.field("src", e.src).field("dst", e.dst).field("type", to_string(e.type));
    w.end_object();
  }
  w.end_array();
  w.key("ptx").begin_array();
  for (const PtxModule& m : t.ptx) {
    w.newline().begin_object();
    w.key("hash").hex(m.hash);
    w.field("kind", m.kind).field("bytes", m.bytes);
    w.key("kernels").begin_array();
    for (const std::string& k : m.kernels) w.value(k);
    w.end_array();
    if (!m.source.empty()) w.field("source", m.source);
    w.end_object();
  }
  w.end_array();
  write_derived(w, t);
  w.end_object().newline();
}

}  // namespace brickprof
