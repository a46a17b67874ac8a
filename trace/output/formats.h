// The one table of output formats: each row a name (BRICKPROF_FORMATS,
// report's flags), the extension its file takes, and the factory of its
// sink (trace_sink.h). A new format is its sink and one row.
#pragma once

#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/output/sink.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

struct Format {
  std::string_view name;
  std::string_view extension;  // appended to the output prefix
  std::unique_ptr<TraceSink> (*make)(std::ostream& out);
};

// Every format, in SPEC order: json, tree, dot, chrome, folded, then json.gz
// and perfetto.
std::span<const Format> formats();
// The format of that name, or nullptr.
const Format* find_format(std::string_view name);
// The longest format extension that `path` ends with (".trace.json" before
// ".json"), or "". Reads the table only: safe at any point of exit.
std::string_view format_extension_of(std::string_view path);
// Splits "json,tree" into names (empty items skipped, spaces trimmed).
std::vector<std::string> parse_formats(std::string_view list);

// What a write of several formats did: where each written one went, in
// order, and one line per format not written, naming it.
struct WrittenOutputs {
  std::vector<std::string> files;
  std::vector<std::string> failures;
};

// Writes each named format through `sink`, one at a time, the JSON first:
// every command reads it, and on a disk about to fill it gets the room.
// Never throws, so the agent can call it at exit inside the host process.
WrittenOutputs write_outputs(TraceSource& source, const std::vector<std::string>& formats,
                             OutputSink& sink);

}  // namespace brickprof
