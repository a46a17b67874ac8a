// The JSON trace and its gzip form as sinks (see export_json.h).
#include "trace/formats/json.h"

#include <stdexcept>

#include "trace/json/gzip_stream.h"
#include "trace/json/trace_json_parts.h"

namespace brickprof {

void JsonSink::begin(const TraceHead& head) {
  header_ = &head.header;
  write_trace_json_head(w_, head.header);
  w_.key("nodes").begin_array();
}

void JsonSink::node(const NodeEvent& e) {
  write_trace_json_node(w_, e.id, e.node, e.name, e.detail, e.call);
}

void JsonSink::open_edges() {
  if (in_edges_) return;
  w_.end_array();
  w_.key("edges").begin_array();
  in_edges_ = true;
}

void JsonSink::edge(const Edge& e) {
  open_edges();
  write_trace_json_edge(w_, e);
}

void JsonSink::end(const TraceStats* stats) {
  open_edges();
  w_.end_array();
  write_trace_json_memory(w_, *header_);
  write_trace_json_checksums(w_, *header_);
  write_trace_json_counters(w_, *header_);
  write_trace_json_tiles(w_, *header_);
  write_trace_json_cpu_counters(w_, *header_);
  write_trace_json_gpu_metrics(w_, *header_);
  write_trace_json_python(w_, header_->python_frames, header_->python_stacks);
  write_trace_json_tail(w_, header_->ptx, *stats);
  w_.flush();
}

struct GzipJsonSink::Layer {
  explicit Layer(std::ostream& out) : gzip(out.rdbuf()), compressed(&gzip) {}
  GzipStreamBuf gzip;
  std::ostream compressed;
};

GzipJsonSink::GzipJsonSink(std::ostream& out)
    : gzip_(std::make_unique<Layer>(out)), json_(std::make_unique<JsonSink>(gzip_->compressed)) {}

GzipJsonSink::~GzipJsonSink() = default;

void GzipJsonSink::end(const TraceStats* stats) {
  json_->end(stats);
  gzip_->compressed.flush();
  if (!gzip_->compressed) throw std::runtime_error("write failed");
  gzip_->gzip.finish();
}

}  // namespace brickprof
