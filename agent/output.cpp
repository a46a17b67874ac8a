// Output paths and atomic writes for the agent (see output.h).
#include "agent/output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "analysis/trace_json.h"

namespace brickprof::agent {

std::string output_prefix(const Config& config, const ProcessInfo& p) {
  return expand_output_prefix(config.output, static_cast<long>(p.pid), static_cast<long>(p.rank),
                              p.host, p.program);
}

std::vector<std::string> write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                                       const std::string& prefix) {
  std::vector<std::string> errors;
  for (const std::string& format : formats) {
    if (format != "json") continue;  // other formats: exporters land separately
    std::string path = prefix + ".json";
    std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) {
        errors.push_back("cannot write " + path + ": " + std::strerror(errno));
        continue;
      }
      write_trace_json(trace, out);
      if (!out.flush()) errors.push_back("cannot write " + path + ": write failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      errors.push_back("cannot write " + path + ": " + std::strerror(errno));
      std::remove(tmp.c_str());
    }
  }
  return errors;
}

}  // namespace brickprof::agent
