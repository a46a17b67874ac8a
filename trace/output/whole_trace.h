// A held Trace as a producer for the format sinks (trace_sink.h): what
// report, merge, the views and the tests write. Each structure a sink asks
// for (the aggregate tree, the tracks, the statistics) is built on first
// need and kept for the next sink of the same write.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/trace.h"
#include "trace/output/formats.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

class WholeTrace : public TraceSource {
 public:
  explicit WholeTrace(const Trace& trace);
  ~WholeTrace() override;
  void feed(TraceSink& sink) override;

 private:
  struct Built;
  const Trace& t_;
  std::unique_ptr<Built> built_;
};

// write_outputs (formats.h) of a held trace.
WrittenOutputs write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                             OutputSink& sink);

// Writes one format (formats.h) of `trace`; throws std::invalid_argument for
// an unknown name, and what the sink throws.
void write_format(std::string_view format, const Trace& trace, std::ostream& out);

}  // namespace brickprof
