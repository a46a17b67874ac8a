// The JSON trace's pieces (see trace_json_parts.h).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "trace/derive/stats.h"
#include "trace/json/json_writer.h"
#include "trace/json/trace_json.h"
#include "trace/json/trace_json_parts.h"
#include "trace/model/hash_text.h"

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
  if (d.cpu_counters != "off")
    w.field("cpu_counters", d.cpu_counters);  // off: traces keep their form
  if (d.gpu_metrics != "off") w.field("gpu_metrics", d.gpu_metrics);
  w.field("dropped_events", d.dropped_events);
  w.field("dropped_names", d.dropped_names);
  if (d.ignored_api_calls)
    w.field("ignored_api_calls", d.ignored_api_calls);  // none: traces keep their form
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
  if (!d.activity_off.empty()) {  // only with capture windows: older readers never see it
    w.key("activity_off").begin_array();
    for (const TimeRange& r : d.activity_off)
      w.begin_object().field("start_ns", r.start_ns).field("end_ns", r.end_ns).end_object();
    w.end_array();
  }
  if (d.checksum_mode != "off") w.field("checksum_mode", d.checksum_mode);  // absent: off
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
    if (d.memory_bytes) w.field("memory_bytes", d.memory_bytes);
    if (d.cache_gbps[0] > 0 || d.cache_gbps[1] > 0 || d.cache_gbps[2] > 0) {
      w.key("cache_gbps").begin_array();
      for (double gbps : d.cache_gbps) w.value(gbps);
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
}

// The node and edge elements are written straight into the writer's
// buffer: they are most of a trace, and field-by-field writing (a
// separator check, a key escape and a copy per field) was most of the time
// to write one. Byte for byte what the JsonWriter calls would write.
char* put(char* p, std::string_view text) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

template <typename Int>
char* put_int(char* p, Int v) {
  return std::to_chars(p, p + 24, v).ptr;
}

char* put_double(char* p, double v) {
  if (!std::isfinite(v)) return put(p, "null");  // as JsonWriter::value(double)
  return std::to_chars(p, p + 32, v).ptr;
}

char* put_quoted(char* p, std::string_view plain) {  // enum names: nothing to escape
  *p++ = '"';
  p = put(p, plain);
  *p++ = '"';
  return p;
}

char* put_hex(char* p, uint64_t v) {
  *p++ = '"';
  p = put_hash_text(p, v);
  *p++ = '"';
  return p;
}

char* put_dims(char* p, std::string_view key, const uint32_t (&d)[3]) {
  p = put(p, key);
  *p++ = '[';
  p = put_int(p, d[0]);
  *p++ = ',';
  p = put_int(p, d[1]);
  *p++ = ',';
  p = put_int(p, d[2]);
  *p++ = ']';
  return p;
}

char* put_gpu_detail(char* p, NodeKind kind, const GpuDetail& g) {
  p = put_int(put(p, ",\"device\":"), g.device);
  p = put_int(put(p, ",\"context\":"), g.context);
  p = put_int(put(p, ",\"stream\":"), g.stream);
  p = put_int(put(p, ",\"correlation\":"), g.correlation);
  if (g.graph_node) p = put_int(put(p, ",\"graph_node\":"), g.graph_node);  // replayed from a graph
  if (g.graph_id) p = put_int(put(p, ",\"graph_id\":"), g.graph_id);        // a whole graph replay
  if (g.api_start_ns) {
    p = put_int(put(p, ",\"api_start_ns\":"), g.api_start_ns);
    p = put_int(put(p, ",\"api_end_ns\":"), g.api_end_ns);
  }
  if (g.python_stack != kNoPythonStack) p = put_int(put(p, ",\"python_stack\":"), g.python_stack);
  switch (kind) {
    case NodeKind::kKernel:
      p = put_dims(p, ",\"grid\":", g.grid);
      p = put_dims(p, ",\"block\":", g.block);
      p = put_int(put(p, ",\"smem\":"), g.smem);
      p = put_int(put(p, ",\"registers\":"), g.registers);
      p = put_hex(put(p, ",\"ptx_hash\":"), g.ptx_hash);
      break;
    case NodeKind::kTransfer:
    case NodeKind::kMemset:
      p = put_int(put(p, ",\"bytes\":"), g.bytes);
      p = put_quoted(put(p, ",\"direction\":"), to_string(g.direction));
      p = put_quoted(put(p, ",\"src_kind\":"), to_string(g.src_kind));
      p = put_quoted(put(p, ",\"dst_kind\":"), to_string(g.dst_kind));
      p = put_int(put(p, ",\"src_addr\":"), g.src_addr);
      p = put_int(put(p, ",\"dst_addr\":"), g.dst_addr);
      break;
    case NodeKind::kSync:
      p = put_quoted(put(p, ",\"sync\":"), to_string(g.sync));
      p = put_int(put(p, ",\"event\":"), g.event);
      break;
    default:
      break;
  }
  return p;
}

// Room for every field but the name (numbers of at most 24 characters).
constexpr size_t kNodeBytes = 1024;

// ,"mpi":{"op", "comm", "peer", "tag", "bytes", "recv_bytes", "seq"}, the
// defaults (-1, 0) left out.
char* put_comm_call(char* p, const CommCall& c) {
  p = put_quoted(put(p, ",\"mpi\":{\"op\":"), to_string(c.op));
  p = put_int(put(p, ",\"comm\":"), c.comm);
  if (c.peer >= 0) p = put_int(put(p, ",\"peer\":"), c.peer);
  if (c.tag >= 0) p = put_int(put(p, ",\"tag\":"), c.tag);
  p = put_int(put(p, ",\"bytes\":"), c.bytes);
  if (c.recv_bytes) p = put_int(put(p, ",\"recv_bytes\":"), c.recv_bytes);
  if (c.seq) p = put_int(put(p, ",\"seq\":"), c.seq);
  return put(p, "}");
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

}  // namespace

void write_trace_json_node(JsonWriter& w, uint32_t id, const Node& n, std::string_view name,
                           const GpuDetail* g, const CommCall* call) {
  w.newline();
  char* p = w.begin_raw_element(kNodeBytes + json_string_bytes(name));
  p = put_int(put(p, "{\"id\":"), id);
  p = put_quoted(put(p, ",\"kind\":"), to_string(n.kind));
  p = write_json_string(put(p, ",\"name\":"), name);
  p = put(p, ",\"parent\":");
  p = n.parent == kNoNode ? put(p, "null") : put_int(p, n.parent);
  p = put_int(put(p, ",\"thread\":"), n.thread);
  p = put_int(put(p, ",\"start_ns\":"), n.start_ns);
  p = put_int(put(p, ",\"end_ns\":"), n.end_ns);
  if (n.kind == NodeKind::kLayer) p = put_int(put(p, ",\"index\":"), n.layer_index);
  if (n.kind == NodeKind::kBrick) {
    p = put_int(put(p, ",\"brick_id\":"), static_cast<int>(n.brick_id));
    p = put_quoted(put(p, ",\"category\":"), to_string(n.category));
  } else if (n.category != Category::kNone) {
    p = put_quoted(put(p, ",\"category\":"), to_string(n.category));  // a scope "MPI_Allreduce"
  }
  if (n.elements) p = put_int(put(p, ",\"elements\":"), n.elements);
  if (n.flops > 0) p = put_double(put(p, ",\"flops\":"), n.flops);
  if (n.bytes_moved > 0) p = put_double(put(p, ",\"bytes_moved\":"), n.bytes_moved);
  if (g) p = put_gpu_detail(p, n.kind, *g);
  if (call) p = put_comm_call(p, *call);
  *p++ = '}';
  w.end_raw_element(p);
}

void write_trace_json_edge(JsonWriter& w, const Edge& e) {
  w.newline();
  char* p = w.begin_raw_element(128);
  p = put_int(put(p, "{\"src\":"), e.src);
  p = put_int(put(p, ",\"dst\":"), e.dst);
  p = put_quoted(put(p, ",\"type\":"), to_string(e.type));
  *p++ = '}';
  w.end_raw_element(p);
}

void write_trace_json_head(JsonWriter& w, const Trace& t) {
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
}

void write_trace_json_memory(JsonWriter& w, const Trace& t) {
  if (!t.memory.empty()) {
    w.key("memory").begin_array();
    for (const MemoryEvent& e : t.memory) {
      w.newline().begin_object();
      w.field("t", e.time_ns).field("thread", e.thread);
      w.key("scope");
      if (e.scope == kNoNode)
        w.null();
      else
        w.value(e.scope);
      w.field("op", to_string(e.op)).field("source", to_string(e.source));
      w.field("device", e.device);
      w.key("address").hex(e.address);
      if (e.bytes) w.field("bytes", e.bytes);
      if (e.stream) w.field("stream", e.stream);
      if (e.pool) w.key("pool").hex(e.pool);
      w.field("api", t.strings.view(e.name));
      if (e.python_stack != kNoPythonStack) w.field("python_stack", e.python_stack);
      if (e.result) w.field("result", e.result);
      w.end_object();
    }
    w.end_array();
  }
  if (!t.shapes.empty()) {
    w.key("shapes").begin_array();
    for (const NodeShape& s : t.shapes) {
      w.newline().begin_object();
      w.field("node", s.node).field("dtype", s.dtype);
      w.key("inputs").begin_array();
      for (const std::vector<int64_t>& dims : s.inputs) {
        w.begin_array();
        for (int64_t d : dims) w.value(d);
        w.end_array();
      }
      w.end_array();
      w.key("output").begin_array();
      for (int64_t d : s.output) w.value(d);
      w.end_array();
      w.end_object();
    }
    w.end_array();
  }
}

void write_trace_json_checksums(JsonWriter& w, const Trace& t) {
  if (t.checksums.empty()) return;
  w.key("checksums").begin_array();
  for (const OutputChecksum& c : t.checksums) {
    const Digest& d = c.digest;
    w.newline().begin_object();
    w.field("node", c.node).field("name", t.strings.view(c.name));
    w.field("type", to_string(c.type)).field("source", to_string(c.source));
    w.key("address").hex(c.address);
    w.key("fnv1a").hex(d.fnv1a);
    w.field("count", d.count).field("sum", d.sum).field("l1", d.l1).field("l2", d.l2);
    w.field("min", d.min).field("max", d.max);
    if (d.nan) w.field("nan", d.nan);
    if (d.inf) w.field("inf", d.inf);
    w.key("projections").begin_array();
    for (double p : d.projections) w.value(p);
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

void write_trace_json_counters(JsonWriter& w, const Trace& t) {
  if (t.counters.empty()) return;
  w.key("counters").begin_array();
  for (const CounterSample& s : t.counters) {
    w.newline().begin_object();
    w.field("t", s.time_ns).field("thread", s.thread);
    w.key("scope");
    if (s.scope == kNoNode)
      w.null();
    else
      w.value(s.scope);
    if (s.kind == CounterKind::kTokens)
      w.field("tokens", static_cast<uint64_t>(s.value));
    else
      w.field("name", t.strings.view(s.name)).field("value", s.value);
    w.end_object();
  }
  w.end_array();
}

void write_trace_json_tiles(JsonWriter& w, const Trace& t) {
  if (t.tiles.empty()) return;
  w.key("tiles").begin_array();
  for (const TileStats& s : t.tiles) {
    w.newline().begin_object();
    w.field("node", s.node).field("thread", s.thread).field("level", tile_level_name(s.level));
    w.field("count", s.count).field("total_ns", s.total_ns);
    w.field("elements", s.elements).field("bytes", s.bytes);
    w.end_object();
  }
  w.end_array();
}

void write_trace_json_cpu_counters(JsonWriter& w, const Trace& t) {
  const CpuCounters& c = t.cpu_counters;
  if (c.empty()) return;
  w.key("cpu_counters").begin_object().key("events").begin_array();
  for (const std::string& e : c.events) w.value(e);
  w.end_array().key("nodes").begin_array();
  for (const NodeCpuCounters& n : c.nodes) {
    w.newline().begin_object().field("node", n.node).key("values").begin_array();
    for (size_t i = 0; i < c.events.size() && i < kMaxCpuCounters; ++i) w.value(n.values[i]);
    w.end_array().end_object();
  }
  w.end_array().end_object();
}

void write_trace_json_gpu_metrics(JsonWriter& w, const Trace& t) {
  const GpuMetrics& g = t.gpu_metrics;
  if (g.empty()) return;
  w.key("gpu_metrics").begin_object().key("metrics").begin_array();
  for (const std::string& m : g.metrics) w.value(m);
  w.end_array().key("weights").begin_array();
  for (int32_t weight : g.weights) w.value(static_cast<int64_t>(weight));
  w.end_array();
  w.field("passes", g.passes).field("every", g.every);
  w.field("occurrences_sampled", g.occurrences_sampled)
      .field("occurrences_skipped", g.occurrences_skipped);
  w.key("nodes").begin_array();
  for (const NodeGpuMetrics& n : g.nodes) {
    w.newline().begin_object().field("node", n.node).key("values").begin_array();
    for (double v : n.values) w.value(v);  // not measured: null
    w.end_array().end_object();
  }
  w.end_array().end_object();
}

void write_trace_json_python(JsonWriter& w, const std::vector<PythonFrame>& frames,
                             const std::vector<std::vector<uint32_t>>& stacks) {
  if (frames.empty() && stacks.empty()) return;  // traces without Python keep their form
  w.key("python_frames").begin_array();
  for (const PythonFrame& f : frames) {
    w.newline().begin_object();
    w.field("file", f.file).field("line", f.line).field("function", f.function);
    w.end_object();
  }
  w.end_array();
  w.key("python_stacks").begin_array();
  for (const std::vector<uint32_t>& s : stacks) {
    w.newline().begin_array();
    for (uint32_t f : s) w.value(f);
    w.end_array();
  }
  w.end_array();
}

void write_trace_json_tail(JsonWriter& w, const std::vector<PtxModule>& ptx,
                           const TraceStats& stats) {
  w.key("ptx").begin_array();
  for (const PtxModule& m : ptx) {
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
  w.end_object().newline();
}

}  // namespace brickprof
