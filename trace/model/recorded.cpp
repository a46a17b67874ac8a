// What a trace recorded (see recorded.h).
#include "trace/model/recorded.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace brickprof {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string nothing_recorded_line(std::string_view capture) {
  if (capture.empty() || capture == "all") return std::string(kNothingRecorded);
  return "Nothing recorded: no capture window (" + std::string(capture) +
         ") held a scope, NVTX range or GPU work; capture all (the default) to see what ran.";
}

bool has_gpu_work(const Trace& trace) {
  return std::any_of(trace.nodes.begin(), trace.nodes.end(),
                     [](const Node& n) { return is_gpu_kind(n.kind); });
}

std::string no_gpu_line(const Trace& trace) {
  if (has_gpu_work(trace)) return "";
  const std::string_view cupti = trace.diagnostics.cupti;
  constexpr std::string_view kUnavailable = "unavailable: ";
  if (starts_with(cupti, "unavailable: no libcuda"))
    return "GPU: none; no CUDA driver on this machine, so CPU scopes only";
  if (starts_with(cupti, "active")) return "GPU: none; no GPU work ran while CUPTI recorded";
  if (starts_with(cupti, "off")) {
    // "off (BRICKPROF_GPU=off)", "off: BRICKPROF_SYNC=none (CPU scopes only)"
    std::string_view why = cupti.substr(3);
    const bool parenthesised = starts_with(why, " (") && why.back() == ')';
    why.remove_prefix(std::min(why.find_first_not_of(":( "), why.size()));
    if (parenthesised) why.remove_suffix(1);
    return "GPU: off; " + std::string(why);
  }
  if (starts_with(cupti, kUnavailable))
    return "GPU: not recorded; " + std::string(cupti.substr(kUnavailable.size()));
  return "GPU: none; no GPU work in the trace";
}

void SpanUnion::add(int64_t start_ns, int64_t end_ns) {
  if (end_ns <= start_ns) return;
  if (end_ == start_ || start_ns > end_) {
    done_ns_ += end_ - start_;
    start_ = start_ns;
    end_ = end_ns;
  } else {
    end_ = std::max(end_, end_ns);
  }
}

int64_t time_outside_scopes(const Trace& trace) {
  const int64_t wall = recorded_wall_ns(trace);
  if (wall <= 0 || recorded_nothing(trace)) return -1;
  std::vector<std::pair<int64_t, int64_t>> roots;
  for (const Node& n : trace.nodes)
    if (is_cpu_kind(n.kind) && n.parent >= trace.nodes.size())
      roots.emplace_back(n.start_ns, n.end_ns);
  if (!std::is_sorted(roots.begin(), roots.end())) std::sort(roots.begin(), roots.end());
  SpanUnion scoped;
  for (const auto& [start, end] : roots) scoped.add(start, end);
  return std::max<int64_t>(wall - scoped.total_ns(), 0);
}

int64_t recorded_wall_ns(const Trace& trace) {
  const ProcessInfo& p = trace.process;
  const int64_t span = p.end_ns - p.start_ns;
  if (span <= 0) return 0;
  const std::vector<TimeRange>& windows = trace.diagnostics.capture_windows;
  if (windows.empty()) return span;
  int64_t inside = 0;
  for (const TimeRange& w : windows) {
    const int64_t start = std::max(w.start_ns, p.start_ns), end = std::min(w.end_ns, p.end_ns);
    if (end > start) inside += end - start;
  }
  return inside;
}

}  // namespace brickprof
