// GPU work launched outside every scope, grouped under the Python frames
// that launched it: synthetic scopes named "model.py:212 forward" (file's
// base name, line, function), built when a trace is read for the views and
// by the agent's exit write for its tree, DOT, folded and Chrome files (one
// algorithm, so both say the same). NVTX ranges and brickprof scopes keep
// precedence: only GPU nodes with no parent are moved. Consecutive launches
// of one thread whose innermost frames agree share their scopes (a loop at
// one line is one scope holding its kernels, as a sampling profiler would
// merge identical stacks); a brickprof scope of that thread in between
// starts them afresh.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// The frames a trace groups by unless told otherwise (`report`, `view`,
// the page and the agent's exit files): the innermost one.
inline constexpr uint32_t kDefaultPythonFrames = 1;

// The scope name of a frame: "model.py:212 forward".
std::string python_frame_name(const PythonFrame& frame);

// One GPU launch outside every scope, with a Python stack.
struct PythonLaunch {
  uint32_t id;          // its node id: ties in time go by it
  uint32_t thread;      // the launching thread
  int64_t issued_ns;    // its API call's start
  int64_t returned_ns;  // and end
  uint32_t stack;       // into python_stacks
};

// A GPU node's launch as the grouping sees it (its API call's times, or
// its start where the call was not recorded).
PythonLaunch python_launch_of(uint32_t id, const Node& node, const GpuDetail& detail);

// A synthetic scope: the innermost `depth` frames of a run of launches.
struct PythonScope {
  uint32_t frame;   // into python_frames
  uint32_t parent;  // the enclosing synthetic scope (an index into the list), or kNoNode
  uint32_t thread;
  int64_t start_ns, end_ns;
};

// Each thread's outermost CPU scopes' starts, sorted: a run of launches
// never spans one.
using RootStarts = std::unordered_map<uint32_t, std::vector<int64_t>>;
RootStarts root_starts_of(const Trace& trace);

// The grouping of `launches` (any order), in the order it is made:
// `scope(index)` as each synthetic scope is made (its end still growing),
// then `launched(launch, scope)` for each launch (an index into
// `launches`) with its innermost scope. Returns the scopes, ends final.
struct PythonGroupingVisitor {
  std::function<void(uint32_t scope, const PythonScope&)> scope;
  std::function<void(uint32_t launch, uint32_t scope)> launched;
};
std::vector<PythonScope> group_python_launches(const std::vector<PythonLaunch>& launches,
                                               const std::vector<std::vector<uint32_t>>& stacks,
                                               size_t frames, uint32_t depth,
                                               const RootStarts& roots,
                                               const PythonGroupingVisitor& visit);

// Adds the scopes (innermost `depth` frames of each stack; 0: none) and
// moves each orphan GPU node with a Python stack under its innermost one;
// a memory event outside every scope with a Python stack goes under the
// deepest scope open on its thread then whose frames are its own innermost
// ones. Returns how many GPU nodes were moved.
size_t group_by_python_frames(Trace& trace, uint32_t depth);

}  // namespace brickprof
