// The JSON trace ("brickprof/1"): reading it back with clear errors for
// corrupt, truncated or foreign input. It is written in pieces
// (trace_json_parts.h) by the "json" format's sink (trace/formats/json.h).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

inline constexpr std::string_view kSchema = "brickprof/1";

// What went wrong reading a trace: one line, naming the problem and where.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a trace; throws TraceError (message without the file name).
Trace parse_trace_json(std::string_view json);
// Reads and parses a file; TraceError messages start with the path.
Trace read_trace_file(const std::string& path);

// Told how far reading has come: bytes of the file read so far and its
// size. Called once per batch of nodes or edges (about a megabyte), never
// per node, so it costs nothing measurable; a progress bar draws from it.
using ReadProgress = std::function<void(uint64_t done_bytes, uint64_t total_bytes)>;
Trace read_trace_file(const std::string& path, const ReadProgress& progress);

}  // namespace brickprof
