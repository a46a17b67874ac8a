// Critical path, slack and what-if over the dependency graph: one forward and
// one backward pass in topological order, O(activities + edges).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyses/dependency_graph.h"
#include "trace/model/trace.h"

namespace brickprof {

// One run of consecutive path activities with the same owner.
struct PathStep {
  uint32_t node = kNoNode;  // kNoNode: untracked CPU time
  uint32_t lane = 0;
  int64_t duration_ns = 0;  // modelled time this step adds to the path
};

struct NodeSlack {
  uint32_t node = kNoNode;
  int64_t slack_ns = 0;     // how late it could finish without delaying the end
  int64_t duration_ns = 0;  // modelled duration summed over its activities
};

struct CriticalPath {
  int64_t length_ns = 0;  // modelled end-to-end time
  // First start to last end of any activity (a blocking call's return
  // included), less the unrecorded time between capture windows.
  int64_t measured_span_ns = 0;
  int64_t start_offset_ns = 0;   // when the path's first activity could start
  std::vector<PathStep> steps;   // in time order
  std::vector<int64_t> slack;    // per activity
  std::vector<NodeSlack> nodes;  // per owner node with activities, slack = min over them
  size_t busy_lanes = 0;         // lanes with any positive-duration activity
  bool parallel() const { return busy_lanes > 1; }
};

CriticalPath compute_critical_path(const Trace& trace, const DependencyGraph& graph);

// What a step's or an activity's owner is called: the node's label, the
// one every text output uses (queries.h node_label), or "(untracked CPU
// time)" for kNoNode.
std::string owner_label(const Trace& trace, uint32_t owner);

// Time on the path under one label (a name may own many steps).
struct PathShare {
  std::string label;  // owner_label of the steps' owner
  int64_t ns = 0;
  uint64_t steps = 0;
};

// What `report --critical-path` shows: the path, the lanes its steps ran
// on, the nodes worth moving and where the path's time goes by name.
struct CriticalPathReport {
  CriticalPath path;        // without the per-activity slack (the graph is not kept)
  std::vector<Lane> lanes;  // indexed by PathStep::lane
  size_t activities = 0;    // in the dependency graph
  // Every node with positive slack of at least 1% of the path, largest
  // first; none when the path is the timeline itself.
  std::vector<NodeSlack> opportunities;
  std::vector<PathShare> by_label;  // most time first, then by label
};

CriticalPathReport critical_path_report(const Trace& trace, const DependencyGraph& graph);

// End-to-end time of the graph with the given per-activity durations (the
// forward pass only): the what-if engine.
int64_t evaluate_length(const DependencyGraph& graph, const std::vector<int64_t>& durations);

// One --what-if result.
struct WhatIf {
  std::string target;
  double factor = 1;
  size_t matched_activities = 0;
  int64_t before_ns = 0;
  int64_t after_ns = 0;
  int64_t saved_ns() const { return before_ns - after_ns; }
};

// "target k x faster": every activity owned by a node named `target`, or
// under a brick named `target` (its scopes and the GPU work it launched),
// takes duration / k; the path is re-evaluated, not the time subtracted.
WhatIf what_if(const Trace& trace, const DependencyGraph& graph, std::string_view target,
               double factor);

}  // namespace brickprof
