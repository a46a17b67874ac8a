// Shared helpers for the analyses tests: load a fixture, find a node,
// render a report view.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "analysis/views/views.h"
#include "trace/json/trace_json.h"

namespace brickprof::test {

inline Trace load(const std::string& name) {
  return read_trace_file(std::string(ANALYSES_DATA) + "/" + name);
}

inline uint32_t find(const Trace& t, std::string_view name) {
  for (uint32_t i = 0; i < t.nodes.size(); ++i)
    if (t.name(t.nodes[i]) == name) return i;
  return kNoNode;
}

// The report view `name` (its registry entry) of `t`: text, or its JSON value.
inline std::string render(std::string_view name, const Trace& t, const ViewSettings& settings = {},
                          bool json = false) {
  const View* view = find_view(name);
  if (view == nullptr) throw std::invalid_argument("no view named " + std::string(name));
  std::ostringstream out;
  render_view(*view, t, compute_view(*view, t, settings), json, out);
  return out.str();
}

inline ViewSettings with_peaks(const PeakOverrides& peaks) {
  ViewSettings settings;
  settings.peaks = peaks;
  return settings;
}

}  // namespace brickprof::test
