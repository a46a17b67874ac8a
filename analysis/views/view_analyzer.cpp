// The `report --analyze` view: per-op summary (and by shape, where the
// program attached shapes), slowest ops, hotspots, devices, balance,
// communication.
#include "analysis/analyses/shapes.h"
#include "analysis/analyses/trace_analyzer.h"
#include "analysis/analyses/trace_scope.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

constexpr size_t kMaxOps = 20;

void ops_json(JsonWriter& w, std::string_view key, const std::vector<OpSummary>& ops,
              const Analysis& a) {
  w.key(key).begin_array();
  for (const OpSummary& s : ops)
    w.newline()
        .begin_object()
        .field("name", s.name)
        .field("kind", to_string(s.kind))
        .field("count", s.count)
        .field("total_ns", s.total_ns)
        .field("avg_ns", s.avg_ns())
        .field("min_ns", s.min_ns)
        .field("median_ns", s.median_ns)
        .field("p99_ns", s.p99_ns)
        .field("max_ns", s.max_ns)
        .field("bytes", s.bytes)
        .field("share", a.comm_share(s))
        .end_object();
  w.end_array();
}

// Where a node ran: GPU work, the brick (and layer) that launched it; a
// scope, the two scopes around it ("decode token / Layer 1"), not itself;
// "" at the top.
std::string issued_in(const Trace& t, const ScopeNamer& scope, uint32_t node) {
  const Node& n = t.nodes[node];
  if (is_gpu_kind(n.kind)) {
    std::string in = scope(node);
    return in == "(no scope)" ? "" : in;
  }
  const uint32_t parent = n.parent < t.nodes.size() ? n.parent : kNoNode;
  if (parent == kNoNode) return "";
  const uint32_t grandparent = t.nodes[parent].parent;
  std::string in = node_label(t, t.nodes[parent]);
  if (grandparent < t.nodes.size()) in = node_label(t, t.nodes[grandparent]) + " / " + in;
  return in;
}

// The nodes, with where each ran when `scope` is given, and the shape
// that applies to each when `shapes` is given and has one.
void nodes_json(JsonWriter& w, std::string_view key, const Trace& t,
                const std::vector<uint32_t>& ids, const ScopeNamer* scope = nullptr,
                const ShapeIndex* shapes = nullptr) {
  w.key(key).begin_array();
  for (uint32_t i : ids) {
    w.newline()
        .begin_object()
        .field("node", t.file_id(i))
        .field("name", t.name(t.nodes[i]))
        .field("duration_ns", t.nodes[i].duration_ns());
    if (scope) w.field("scope", issued_in(t, *scope, i));
    if (const NodeShape* s = shapes ? shapes->of(i) : nullptr)
      w.field("shape", shape_text(*s))
          .field("output_elements", s->output_elements())
          .field("output_bytes", output_bytes(*s));
    w.end_object();
  }
  w.end_array();
}

constexpr size_t kMaxShapes = 20;

void shapes_json(JsonWriter& w, const std::vector<OpShape>& rows) {
  w.key("ops_by_shape").begin_array();
  for (const OpShape& r : rows)
    w.newline()
        .begin_object()
        .field("name", r.name)
        .field("shape", r.shape)
        .field("count", r.count)
        .field("total_ns", r.total_ns)
        .field("output_elements", r.output_elements)
        .field("output_bytes", r.output_bytes)
        .end_object();
  w.end_array();
}

// The largest ops by shape; output size per call (bytes where the dtype's
// element size is known).
void shapes_text(const std::vector<OpShape>& rows, std::ostream& out) {
  if (rows.empty()) return;
  out << "Operations by shape (" << rows.size() << "):\n";
  for (size_t i = 0; i < rows.size() && i < kMaxShapes; ++i) {
    const OpShape& r = rows[i];
    out << "  " << pad_right(clip(printable(r.name), 24), 25)
        << pad_right(clip(printable(r.shape), 48), 49) << pad_left(std::to_string(r.count), 8)
        << pad_left(format_duration(r.total_ns), 13) << "  out "
        << (r.output_bytes ? format_bytes(r.output_bytes)
                           : std::to_string(r.output_elements) + " elements")
        << '\n';
  }
}

// The analyzer's figures, and with the program's shapes, its ops by shape.
struct AnalyzerView {
  Analysis a;
  std::vector<OpShape> by_shape;
};

AnalyzerView compute(const Trace& t, const ViewSettings&) {
  AnalyzerView v{analyze_trace(t), {}};
  v.by_shape = ops_by_shape(t, ShapeIndex(t), v.a.op_nodes);
  return v;
}

void json(const Trace& t, const AnalyzerView& v, JsonWriter& w) {
  const Analysis& a = v.a;
  w.begin_object().field("total_ns", a.total_ns).field("imbalance_ratio", a.imbalance_ratio);
  ops_json(w, "ops", a.ops, a);
  const ScopeNamer scope(t);
  nodes_json(w, "slowest", t, a.slowest, &scope);
  const ShapeIndex shapes(t);
  nodes_json(w, "hotspots", t, a.hotspots, nullptr, &shapes);
  w.key("devices").begin_array();
  for (const DeviceSummary& d : a.devices)
    w.newline()
        .begin_object()
        .field("device", d.device)
        .field("ops", d.ops)
        .field("total_ns", d.total_ns)
        .field("bytes", d.bytes)
        .end_object();
  w.end_array();
  ops_json(w, "communication", a.communication, a);
  if (!v.by_shape.empty()) shapes_json(w, v.by_shape);
  w.end_object().newline();
}

void text(const Trace& t, const AnalyzerView& v, std::ostream& out) {
  const Analysis& a = v.a;
  out << "Operations (" << a.ops.size() << " distinct, " << format_duration(a.total_ns)
      << " total)\n";
  out << "  " << pad_right("name", 37) << pad_right("kind", 8) << pad_left("count", 10)
      << pad_left("total", 13);
  for (const char* column : {"avg", "min", "median", "p99", "max"}) out << pad_left(column, 11);
  out << '\n';
  for (size_t i = 0; i < a.ops.size() && i < kMaxOps; ++i) {
    const OpSummary& s = a.ops[i];
    out << "  " << pad_right(clip(printable(s.name), 36), 37) << pad_right(to_string(s.kind), 8)
        << pad_left(std::to_string(s.count), 10) << pad_left(format_duration(s.total_ns), 13);
    for (int64_t ns : {s.avg_ns(), s.min_ns, s.median_ns, s.p99_ns, s.max_ns})
      out << pad_left(format_duration(ns), 11);
    out << '\n';
  }
  out << "Slowest operations:\n";
  const ScopeNamer scope(t);
  for (uint32_t i : a.slowest) {
    out << "  " << printable(t.name(t.nodes[i])) << ' '
        << format_duration(t.nodes[i].duration_ns());
    if (std::string in = issued_in(t, scope, i); !in.empty()) out << " in " << printable(in);
    out << '\n';
  }
  shapes_text(v.by_shape, out);
  if (!a.hotspots.empty()) out << "Memory hotspots (over 64 MiB): " << a.hotspots.size() << '\n';
  const ShapeIndex shapes(t);
  for (size_t i = 0; i < a.hotspots.size() && i < 10; ++i) {
    out << "  " << printable(t.name(t.nodes[a.hotspots[i]]));
    if (const NodeShape* s = shapes.of(a.hotspots[i])) out << "  " << printable(shape_text(*s));
    out << '\n';
  }
  out << "Devices:\n";
  for (const DeviceSummary& d : a.devices)
    out << "  " << printable(d.device) << ": " << d.ops << " ops, " << format_duration(d.total_ns)
        << ", " << format_bytes(static_cast<uint64_t>(d.bytes)) << '\n';
  if (a.imbalance_ratio > 0)
    out << "Load balance: imbalance " << format_fixed(a.imbalance_ratio, 2)
        << " (max/mean busy time over GPUs)\n";
  if (!a.communication.empty()) out << "Communication:\n";
  for (const OpSummary& s : a.communication)
    out << "  " << printable(s.name) << ' ' << format_duration(s.total_ns) << " ("
        << format_fixed(100 * a.comm_share(s), 1) << "% of op time, " << s.count << " calls)\n";
}

}  // namespace

extern constinit const View kAnalyzerView = make_view<compute, text, json>(
    "analyze", "Per-op summary, hotspots, devices, load balance, communication", false);

}  // namespace brickprof
