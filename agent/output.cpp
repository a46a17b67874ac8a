// Output paths and writing for the agent (see output.h): the analysis
// library's exporters, each written atomically next to the prefix.
#include "agent/output.h"

#include <unistd.h>

#include <cstdio>
#include <memory>

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

namespace {
template <typename Visit>
void each_output_path(const std::vector<std::string>& formats, const std::string& prefix,
                      Visit visit) {
  FileSink sink(prefix);
  for (const std::string& name : formats)
    if (std::unique_ptr<Exporter> exporter = make_exporter(name)) visit(sink.path_for(*exporter));
}
}  // namespace

bool outputs_exist(const std::vector<std::string>& formats, const std::string& prefix) {
  bool any = false;
  each_output_path(formats, prefix,
                   [&](const std::string& path) { any |= access(path.c_str(), F_OK) == 0; });
  return any;
}

void remove_outputs(const std::vector<std::string>& formats, const std::string& prefix) {
  each_output_path(formats, prefix, [](const std::string& path) { std::remove(path.c_str()); });
}

}  // namespace brickprof::agent
