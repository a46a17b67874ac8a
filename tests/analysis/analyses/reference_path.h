// A second witness for the critical path on traces of a few nodes: the
// dependency model of analysis/README.md built again the slow, obvious way
// (every thread cut at every boundary, each piece's owner found by looking
// at every scope, every edge found by looking at every other activity) and
// the longest path found by trying every path. Nothing is shared with
// analysis/analyses/dependency_graph.cpp. Tests only: cubic and worse.
#pragma once

#include <cstdint>

#include "trace/model/trace.h"

namespace brickprof::test {

struct ReferencePath {
  int64_t length_ns = 0;
  int64_t measured_span_ns = 0;
  size_t activities = 0;
};

ReferencePath reference_critical_path(const Trace& trace);

}  // namespace brickprof::test
