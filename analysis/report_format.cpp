// Text helpers for the report views (see report_format.h).
#include "analysis/report_format.h"

#include <cstdio>

namespace brickprof {

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_us(int64_t ns) { return format_fixed(static_cast<double>(ns) / 1e3, 1) + "µs"; }
std::string format_ms(int64_t ns) { return format_fixed(static_cast<double>(ns) / 1e6, 2) + "ms"; }
std::string format_time(int64_t ns) {
  return ns < 10'000'000 && ns > -10'000'000 ? format_us(ns) : format_ms(ns);
}

std::string format_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return format_fixed(b, u == 0 ? 0 : 2) + " " + units[u];
}

std::string format_rate(double v, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int p = 0;
  while (v >= 1000 && p < 5) {
    v /= 1000;
    ++p;
  }
  return format_fixed(v, 2) + " " + prefixes[p] + unit + "/s";
}

std::string node_label(const Trace& trace, uint32_t node) {
  if (node == kNoNode) return "(untracked CPU time)";
  std::string_view name = trace.name(trace.nodes[node]);
  if (name.empty()) return "(" + std::string(to_string(trace.nodes[node].kind)) + " " +
                           std::to_string(node) + ")";
  return std::string(name);
}

std::string lane_label(const Lane& lane) {
  if (lane.kind == Lane::Kind::kThread) return "thread " + std::to_string(lane.thread);
  return "gpu" + std::to_string(lane.device) + " stream " + std::to_string(lane.stream);
}

}  // namespace brickprof
