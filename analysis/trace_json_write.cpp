// Writes the JSON trace (see trace_json.h for the format's entry points).
#include <algorithm>

#include "analysis/json_writer.h"
#include "analysis/stats.h"
#include "analysis/trace_json.h"

namespace brickprof {
namespace {

void write_clock_sync(JsonWriter& w, const ClockSync& sync) {
  w.key("clock_sync").begin_object();
  w.field("reference_rank", sync.reference_rank);
  w.key("samples").begin_array();
  for (const ClockSync::Sample& s : sync.samples)
    w.begin_object()
        .field("local_ns", s.local_ns)
        .field("offset_ns", s.offset_ns)
        .field("rtt_ns", s.rtt_ns)
        .end_object();
  w.end_array();
  w.end_object();
}

// The job fields only under a launcher, so other traces keep their form.
void write_process_fields(JsonWriter& w, const ProcessInfo& p) {
  w.field("pid", p.pid).field("ppid", p.ppid).field("program", p.program);
  w.field("cmdline", p.cmdline).field("host", p.host).field("rank", p.rank);
  if (!p.launcher.empty()) w.field("launcher", p.launcher);
  if (!p.job.empty()) w.field("job", p.job);
  if (p.local_rank >= 0) w.field("local_rank", p.local_rank);
  if (p.world_size > 0) w.field("world_size", p.world_size);
  w.field("start_ns", p.start_ns).field("end_ns", p.end_ns).field("clock", p.clock);
  if (p.clock_sync.measured()) write_clock_sync(w, p.clock_sync);
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
    if (s.alignment.applied) {
      w.key("alignment").begin_object();
      w.field("at_ns", s.alignment.at_ns).field("offset_ns", s.alignment.offset_ns);
      w.field("drift", s.alignment.drift);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
}

void write_diagnostics(JsonWriter& w, const Diagnostics& d) {
  w.key("diagnostics").begin_object();
  w.field("cupti", d.cupti).field("nvtx", d.nvtx);
  w.field("dropped_events", d.dropped_events);
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

// "mpi": {"op", "comm", "peer", "tag", "bytes", "recv_bytes", "seq"}, the
// defaults (-1, 0) left out.
void write_comm_call(JsonWriter& w, const CommCall& c) {
  w.key("mpi").begin_object();
  w.field("op", to_string(c.op)).field("comm", c.comm);
  if (c.peer >= 0) w.field("peer", c.peer);
  if (c.tag >= 0) w.field("tag", c.tag);
  w.field("bytes", c.bytes);
  if (c.recv_bytes) w.field("recv_bytes", c.recv_bytes);
  if (c.seq) w.field("seq", c.seq);
  w.end_object();
}

void write_communicators(JsonWriter& w, const std::vector<Communicator>& comms) {
  if (comms.empty()) return;
  w.key("communicators").begin_array();
  for (const Communicator& c : comms) {
    w.newline().begin_object();
    w.field("id", c.id).field("name", c.name);
    w.key("key").hex(c.key);
    w.field("size", c.size).field("rank", c.rank).field("source", c.source);
    w.end_object();
  }
  w.end_array();
}

void write_node(JsonWriter& w, const Trace& t, uint32_t id, const CommCall* call) {
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
  } else if (n.category != Category::kNone) {
    w.field("category", to_string(n.category));  // a scope "MPI_Allreduce"
  }
  if (n.elements) w.field("elements", n.elements);
  if (n.flops > 0) w.field("flops", n.flops);
  if (n.bytes_moved > 0) w.field("bytes_moved", n.bytes_moved);
  if (const GpuDetail* g = t.detail(n)) write_gpu_detail(w, n.kind, *g);
  if (call) write_comm_call(w, *call);
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
  write_communicators(w, t.communicators);
  w.key("nodes").begin_array();
  auto call = t.comm_calls.begin();  // sorted by node: one cursor
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    while (call != t.comm_calls.end() && call->node < i) ++call;
    write_node(w, t, i, call != t.comm_calls.end() && call->node == i ? &*call : nullptr);
  }
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
