// Labels for the report views (see report_labels.h).
#include "analysis/report_labels.h"

namespace brickprof {

std::string node_label(const Trace& trace, uint32_t node) {
  if (node == kNoNode) return "(untracked CPU time)";
  std::string_view name = trace.name(trace.nodes[node]);
  if (name.empty())
    return "(" + std::string(to_string(trace.nodes[node].kind)) + " " + std::to_string(node) + ")";
  return std::string(name);
}

std::string lane_label(const Lane& lane) {
  if (lane.kind == Lane::Kind::kThread) return "thread " + std::to_string(lane.thread);
  return "gpu" + std::to_string(lane.device) + " stream " + std::to_string(lane.stream);
}

}  // namespace brickprof
