// Output paths and writing for the agent (see output.h): the analysis
// library's exporters, each written atomically next to the prefix.
#include "agent/output.h"

#include "analysis/sink.h"

namespace brickprof::agent {

std::string output_prefix(const Config& config, const ProcessInfo& p) {
  return expand_output_prefix(config.output, static_cast<long>(p.pid), static_cast<long>(p.rank),
                              p.host, p.program);
}

std::vector<std::string> write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                                       const std::string& prefix) {
  FileSink sink(prefix);
  return brickprof::write_outputs(trace, formats, sink);
}

}  // namespace brickprof::agent
