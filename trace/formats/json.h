// The JSON trace ("json", <prefix>.json) and the same bytes gzip-compressed
// ("json.gz"), as sinks (trace_sink.h): the pieces of trace_json_parts.h in
// order, nodes and edges as the producer streams them.
#pragma once

#include <memory>
#include <ostream>

#include "trace/json/json_writer.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

class JsonSink : public TraceSink {
 public:
  explicit JsonSink(std::ostream& out) : w_(out) {}
  unsigned needs() const override { return kNodes | kEdges | kStats | kRecorded; }
  void begin(const TraceHead& head) override;
  void node(const NodeEvent& e) override;
  void edge(const Edge& e) override;
  void end(const TraceStats* stats) override;

 private:
  void open_edges();

  JsonWriter w_;
  const Trace* header_ = nullptr;
  bool in_edges_ = false;
};

// The JSON through a gzip layer; throws std::runtime_error when zlib cannot
// be loaded or a write fails.
class GzipJsonSink : public TraceSink {
 public:
  explicit GzipJsonSink(std::ostream& out);
  ~GzipJsonSink() override;
  unsigned needs() const override { return json_->needs(); }
  void begin(const TraceHead& head) override { json_->begin(head); }
  void node(const NodeEvent& e) override { json_->node(e); }
  void edge(const Edge& e) override { json_->edge(e); }
  void end(const TraceStats* stats) override;

 private:
  struct Layer;
  std::unique_ptr<Layer> gzip_;
  std::unique_ptr<JsonSink> json_;
};

}  // namespace brickprof
