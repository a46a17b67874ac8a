// The analyses as report views: each renders text for the terminal or JSON
// for scripts, from a trace's nodes and edges alone. The CLI
// (`brickprof report ...`) and the agent's exit dump call these.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "analysis/dependency_graph.h"
#include "analysis/machine_peaks.h"
#include "analysis/trace.h"

namespace brickprof {

// Thrown for a bad view argument (e.g. "--what-if X" without "=K").
class ViewError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Critical path and slack, in the seed's summary form. Throws GraphError on
// a dependency cycle.
void render_critical_path(const Trace& trace, const DependencyGraph& graph, std::ostream& out,
                          bool json);
void render_critical_path(const Trace& trace, std::ostream& out, bool json);

// A parsed "--what-if NAME=K": NAME made K times faster.
struct WhatIfSpec {
  std::string name;
  double factor = 1;
};
// Parses "NAME=K" (K > 0, "2" or "2x"); throws ViewError otherwise, so a
// caller can reject a bad spec before reading any trace.
WhatIfSpec parse_what_if_spec(std::string_view spec);

// `spec` is "NAME=K" as parse_what_if_spec reads it.
void render_what_if(const Trace& trace, const DependencyGraph& graph, std::string_view spec,
                    std::ostream& out, bool json);

// Roofline per kernel and per brick against the device peaks (or
// overrides.gflops / overrides.gbps where set).
void render_roofline(const Trace& trace, const PeakOverrides& overrides, std::ostream& out,
                     bool json);

// Transfer totals, bandwidth vs link, pageable copies, ping-pong, re-uploads;
// the link's peak is overrides.link_gbps when set.
void render_transfers(const Trace& trace, const PeakOverrides& overrides, std::ostream& out,
                      bool json);

// GPU idle time per device: busy share, idle split into waiting for the
// host and issued-not-started, the host scopes waited on, largest gaps.
void render_gpu_idle(const Trace& trace, std::ostream& out, bool json);

// Kernel launch statistics: the host's launch call, launch-to-start delay,
// launch-bound kernels, per kernel name and launch path (direct or graph).
void render_launches(const Trace& trace, std::ostream& out, bool json);

// The trace analyzer: per-op summary, slowest ops, memory hotspots, devices,
// load balance, communication share.
void render_analyzer(const Trace& trace, std::ostream& out, bool json);

}  // namespace brickprof
