// Small text helpers shared by the report views: durations, rates, labels.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/dependency_graph.h"
#include "analysis/trace.h"

namespace brickprof {

std::string format_us(int64_t ns);      // "100.0µs"
std::string format_ms(int64_t ns);      // "0.70ms"
std::string format_time(int64_t ns);    // µs below 10 ms, ms above
std::string format_bytes(double bytes); // "4.00 MiB"
std::string format_rate(double per_s, const char* unit);  // "1.23 G<unit>/s"
std::string format_fixed(double v, int decimals);
// "RmsNorm", or "(untracked CPU time)" for kNoNode.
std::string node_label(const Trace& trace, uint32_t node);
// "thread 12" or "gpu0 stream 7".
std::string lane_label(const Lane& lane);

}  // namespace brickprof
