// A trace given on the command line (see trace_input.h).
#include "tools/trace_input.h"

#include <unistd.h>

#include <fstream>
#include <memory>

#include "trace/json/job_summary_json.h"
#include "trace/output/formats.h"

namespace brickprof::cli {
namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string head_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[256] = {};
  in.read(head, sizeof head - 1);
  return std::string(head, static_cast<size_t>(in.gcount()));
}

// A Chrome trace, whatever its name: its first object key is traceEvents.
bool looks_like_chrome_trace(const std::string& path) {
  return head_of(path).find("\"traceEvents\"") != std::string::npos;
}

// What the file is, if it is one of the other exports, and the trace's
// name beside it ("" where none is there).
std::string hint_for(const std::string& path) {
  for (const Format& f : formats()) {
    const std::string_view name = f.name;
    if (name == "json" || name == "json.gz") continue;
    const std::string_view ext = f.extension;
    if (!ends_with(path, ext)) continue;
    const std::string prefix = path.substr(0, path.size() - ext.size());
    std::string hint = "this is the " + std::string(name) + " output brickprof writes beside a "
                       "trace, not the trace";
    for (const char* trace_ext : {".json", ".json.gz"})
      if (::access((prefix + trace_ext).c_str(), R_OK) == 0)
        return hint + ": the trace is " + prefix + trace_ext;
    return hint + " (" + prefix + ".json)";
  }
  if (is_job_summary_file(path))
    return "this is an MPI job's summary (brickprof-job/1), not a trace: brickprof report "
           "and view read it; the ranks' traces are beside it";
  if (looks_like_chrome_trace(path))
    return "this is a Chrome trace (traceEvents), not a brickprof trace: give the .json that "
           "brickprof run wrote";
  return "";
}

}  // namespace

bool is_job_summary_file(const std::string& path) { return looks_like_job_summary(head_of(path)); }

Trace read_trace_input(const std::string& path, const ReadProgress& progress) {
  try {
    return read_trace_file(path, progress);
  } catch (const TraceError& e) {
    const std::string hint = hint_for(path);
    if (hint.empty()) throw;
    throw TraceError(std::string(e.what()) + "; " + hint);
  }
}

}  // namespace brickprof::cli
